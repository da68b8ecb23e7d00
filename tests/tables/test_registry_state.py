"""The registry's ``table_state`` and ``seated`` messages at a running table, with sinks in
place of sockets: names and balances from the store, and 丽水's new seating announced."""

from __future__ import annotations

import asyncio
import json

from sqlalchemy import select

from app.protocol import EventMessage, SeatedMessage, TableStateMessage
from app.store.db import Database
from app.store.models import Account, HandRecord
from app.store.ranks import title_of
from app.tables import admin as table_admin
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.sinks import Sink
from tests.tables.settlement.test_penalties import _accounts


async def test_table_state_names_the_players_and_a_reseat_is_announced(db: Database) -> None:
    ids = await _accounts(db)
    registry = TableRegistry(db.sessions)
    read_profiles = registry.parts.reads

    async def slow_profiles(accounts: set[int]) -> dict[int, tuple[str, int]]:
        await asyncio.sleep(0.3)  # a busy database: table_state lags behind the events
        return await read_profiles(accounts)

    registry.parts.reads = slow_profiles  # type: ignore[assignment]
    # a short ready timer: the test sees each deal (with none, hands follow at once)
    live = registry.create("lishui", 1, timers=Timers(ready=0.1))
    sinks = {account: Sink() for account in ids}
    try:
        for account in ids:
            registry.connections.connect(account, sinks[account])
        for seat, account in enumerate(ids):
            await registry.sit(live.table_id, account, seat, bot=True)  # 托管: hands play themselves
        reseat: dict[str, list[int]] | None = None
        async with asyncio.timeout(120):
            while reseat is None:
                await asyncio.sleep(0.2)
                async with db.sessions() as s:
                    results = (await s.execute(
                        select(HandRecord.id, HandRecord.result)
                        .where(HandRecord.table_id == live.table_id)
                    )).all()
                reseat, reseat_hand = next(
                    ((json.loads(r)["reseat"], h) for h, r in results
                     if "reseat" in json.loads(r)), (None, "")
                )
            number = int(reseat_hand.rsplit("-", 1)[1])
            while live.table.hand_id != f"{live.table_id}-{number + 1}":
                await asyncio.sleep(0.02)  # the first hand of the new 版 is dealt
            await table_admin.pause(registry, live.table_id)  # no more hands
            await asyncio.sleep(0.5)  # the last table_state is sent
        async with db.sessions() as s:
            rows = (await s.execute(select(Account.id, Account.username, Account.balance)
                                    .where(Account.id.in_(ids)))).all()
        profiles = {a: (name, balance) for a, name, balance in rows}
        order = reseat["order"]
        assert sorted(order) == [0, 1, 2, 3]
        assert live.accounts() != ids or order == [0, 1, 2, 3]
        for account in ids:
            sink = sinks[account]
            seat = live.seat_of(account)
            assert seat is not None and ids[order[seat]] == account  # as recorded
            seated = [m for m in sink.messages if isinstance(m, SeatedMessage)]
            assert seated[0].seat == ids.index(account) and seated[-1].seat == seat
            # the reseat hand's result, then the new seat, then the next hand's deal
            kinds = [
                "seated" if isinstance(m, SeatedMessage) and m.seat == seat
                else f"{m.event.kind} {m.hand_id}" if isinstance(m, EventMessage) else None
                for m in sink.messages
            ]
            ended = kinds.index(f"hand_ended {reseat_hand}")
            after = kinds[ended + 1:]
            assert "seated" in after
            assert after.index("seated") < after.index(
                f"hand_started {live.table_id}-{number + 1}")
            last = [m for m in sink.messages if isinstance(m, TableStateMessage)][-1]
            for info in last.seats:
                who = live.accounts()[info.seat]
                assert who is not None
                name, balance = profiles[who]
                assert (info.name, info.balance, info.title) == (name, balance, title_of(balance))
                assert info.connected and info.ready and info.autoplay
            assert sink.closed is None
        assert sum(b for _, b in profiles.values()) == 40000  # 丽水 pays nothing to the house
    finally:
        await registry.stop()
