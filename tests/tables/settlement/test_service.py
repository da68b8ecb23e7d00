"""The settlement of a hand (app/tables/settlement/service.py): stored once, then the one fact "hand H
settled" told to every listener in the order they subscribed; a hand whose table another
node owns now (the fence) is neither stored nor told; a store that fails is tried again
until it is stored."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select

from app.store.db import Database
from app.store.models import HandRecord, LedgerEntry
from app.tables.directory import OneNodeDirectory
from app.tables.network import Network
from app.tables.registry import TableRegistry
from app.tables.settlement import service as settlement_module
from app.tables.settlement.service import HandSettled, Settlement
from tests.tables.settlement.test_penalties import STAKE, _accounts, _finished, _record


class Fence:
    def __init__(self, ours: bool) -> None:
        self.ours = ours
        self.asked: list[list[str]] = []

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        self.asked.append(list(table_ids))
        return [self.ours] * len(table_ids)


async def _stored(db: Database, hand_id: str) -> tuple[bool, int]:
    async with db.sessions() as s:
        record = await s.get(HandRecord, hand_id)
        rows = await s.scalar(
            select(func.count()).select_from(LedgerEntry).where(LedgerEntry.hand_id == hand_id)
        )
    return record is not None, rows or 0


async def test_a_hand_is_stored_then_each_listener_told_in_order(db: Database) -> None:
    seats = await _accounts(db)
    settlement = Settlement(db.sessions)
    told: list[tuple[str, str, bool]] = []

    def listener(name: str):  # type: ignore[no-untyped-def]
        async def hear(settled: HandSettled) -> None:
            stored = await _stored(db, settled.record.hand_id)
            told.append((name, settled.record.hand_id, stored[0]))
        return hear

    settlement.subscribe(listener("rooms"))
    settlement.subscribe(listener("journal"))
    record = _record("h1", seats, _finished(1), ())
    stored = await settlement.settle(record, STAKE)
    assert stored is not None and sum(stored.paid.silver) == 0
    assert sorted(stored.profiles) == sorted(seats)
    assert told == [("rooms", "h1", True), ("journal", "h1", True)]  # stored before told
    assert (await _stored(db, "h1"))[1] > 0
    await settlement.stop(1.0)


async def test_a_hand_another_node_owns_is_not_stored_here(db: Database) -> None:
    seats = await _accounts(db)
    settlement = Settlement(db.sessions)
    fence = Fence(ours=False)
    settlement.fence = fence
    told: list[HandSettled] = []

    async def hear(settled: HandSettled) -> None:
        told.append(settled)

    settlement.subscribe(hear)
    record = _record("t-1", seats, _finished(1), (), table_id="t")
    assert await settlement.settle(record, STAKE) is None
    assert fence.asked == [["t"]] and told == []
    assert await _stored(db, "t-1") == (False, 0)
    await settlement.stop(1.0)


async def test_a_failed_store_is_tried_again_until_stored(
    db: Database, monkeypatch: object
) -> None:
    seats = await _accounts(db)
    real = settlement_module.store_hands
    failures = [2]

    async def flaky(*args: object, **kwargs: object) -> list[object]:
        if failures[0]:
            failures[0] -= 1
            raise OSError("the database is away")
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(settlement_module, "store_hands", flaky)  # type: ignore[attr-defined]
    monkeypatch.setattr(settlement_module, "RETRY_FIRST", 0.01)  # type: ignore[attr-defined]
    retried: list[bool] = []
    settlement = Settlement(db.sessions)
    stored = await settlement.settle(
        _record("r1", seats, _finished(2), ()), STAKE, retrying=lambda: retried.append(True)
    )
    assert stored is not None and failures == [0] and retried == [True]
    assert (await _stored(db, "r1"))[0]
    await settlement.stop(1.0)


async def test_the_registry_settles_behind_its_networks_fence(db: Database) -> None:
    """A node whose network says another node owns the table now stores nothing of its
    hand and shows nothing (None)."""
    seats = await _accounts(db)
    registry = TableRegistry(db.sessions)
    fence = FencedOff()
    registry.network = Network(directory=fence)
    live = registry.create("lishui", STAKE)
    try:
        record = _record(f"{live.table_id}-1", seats, _finished(1), (), live.table_id)
        assert await live.settle(record) is None
    finally:
        await registry.stop()
    assert fence.asked == [[live.table_id]]
    assert await _stored(db, record.hand_id) == (False, 0)


class FencedOff(OneNodeDirectory):
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        self.asked.append(list(table_ids))
        return [False] * len(table_ids)
