"""Who holds a seat, as a player would notice it, through the registry and the real store:

- 湖州 bases come from the seated accounts' stored 积分 (RULES.md 4), read at each deal, so
  a table of 局长s plays on base 50 and a 科员 sitting down makes the next hand's base 2;
  an escape pays 8 x that base;
- a player away (socket closed) when a hand would be dealt loses the seat, with no
  penalty and no disconnect counted; the table deals no hand to three players;
- a ban closes the account's socket (4004) and escapes its seat during a hand (frees it
  between hands); an action already on its way is not applied;
- an account sits at one table at a time (`seated_elsewhere`);
- an escape (逃跑) frees the leaver's seat as its hand ends, before the hand is stored: the
  leaver may sit again at once (a slow store made the re-sit `already_seated` for seconds),
  sees the escaped hand's result, pays its penalty, and keeps the seat.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from app.protocol import TableStateMessage
from app.rules.actions import Discard, Escape
from app.rules.hand import legal_actions, pending_seats
from app.store.db import Database
from app.store.models import Disconnect, HandRecord, LedgerEntry
from app.store.ranks import SeatResult, record_stats, stats_of
from app.tables import bans
from app.tables.bans import CLOSE_BANNED
from app.tables.errors import TableError
from app.tables.messages import Disconnected, PlayerAction
from app.tables.registry import LiveTable, TableRegistry
from app.tables.settlement import service as settlement_module
from app.tables.timers import Timers
from tests.outage import shown_ended
from tests.sinks import LONG, Sink
from tests.tables.settlement.test_penalties import _accounts, _books_balance

WAIT = Timers(**{**LONG, "ready": 0.3})  # nobody times out; the next deal comes soon


async def _until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def _records(db: Database, table_id: str) -> list[HandRecord]:
    async with db.sessions() as s:
        return list((await s.execute(
            select(HandRecord).where(HandRecord.table_id == table_id).order_by(HandRecord.id)
        )).scalars())


async def _stored(db: Database, table_id: str, count: int) -> list[HandRecord]:
    """The table's hand records once there are `count` of them."""
    async with asyncio.timeout(10):
        while len(records := await _records(db, table_id)) < count:
            await asyncio.sleep(0.05)
    return records


async def _penalties(db: Database, account_id: int) -> list[tuple[str, int]]:
    async with db.sessions() as s:
        return [tuple(r) for r in (await s.execute(
            select(LedgerEntry.reason, LedgerEntry.delta)
            .where(LedgerEntry.account_id == account_id, LedgerEntry.hand_id.is_not(None))
            .order_by(LedgerEntry.id)
        )).all()]  # type: ignore[misc]


async def _points(db: Database, account_id: int, points: int, variant: str = "huzhou") -> None:
    async with db.sessions() as s:
        await record_stats(s, account_id, variant, SeatResult(points=points))


async def _seat_all(registry: TableRegistry, live: LiveTable, ids: list[int]) -> dict[int, Sink]:
    sinks = {}
    for seat, account in enumerate(ids):
        sinks[account] = Sink()
        registry.connections.connect(account, sinks[account])
        await registry.sit(live.table_id, account, seat)
    return sinks


async def _dealt(live: LiveTable, hand: int) -> None:
    await _until(lambda: live.table.hand is not None and live.table.hand_id.endswith(f"-{hand}"))


# --- 湖州 bases from the accounts' 积分 -------------------------------------------------------


async def test_huzhou_bases_come_from_the_accounts_points(db: Database) -> None:
    ids = await _accounts(db, 5)
    masters, newcomer = ids[:4], ids[4]
    for account in masters:
        await _points(db, account, 5000)  # 局长 (3066 and up): base 50
    registry = TableRegistry(db.sessions)
    live = registry.create("huzhou", 1, timers=WAIT)
    try:
        await _seat_all(registry, live, masters)
        await _dealt(live, 1)
        hand = live.table.hand
        assert hand is not None and hand.ctx.seat_points == (5000, 5000, 5000, 5000)

        # 逃跑: 8 x base 50, shared by the others
        await registry.require(live.table_id).leave(masters[3])
        first = (await _stored(db, live.table_id, 1))[0]
        assert json.loads(first.ctx)["seat_points"] == [5000] * 4
        assert await _penalties(db, masters[3]) == [("escape_penalty", -400)]
        await _until(lambda: live.accounts()[3] is None)

        # a 科员 (0 积分) takes the seat: the next hand's base is the lowest seat's, 2
        registry.connections.connect(newcomer, Sink())
        await registry.sit(live.table_id, newcomer, 3)
        await _dealt(live, 2)
        hand = live.table.hand
        assert hand is not None
        async with db.sessions() as s:
            settled = [(await stats_of(s, a))["huzhou"].points for a in masters[:3]]
        assert sorted(settled) == [5133, 5133, 5134]  # 5000 + the shares of the 400
        assert hand.ctx.seat_points == (*settled, 0)
        await registry.require(live.table_id).leave(newcomer)
        second = (await _stored(db, live.table_id, 2))[1]
        assert json.loads(second.ctx)["seat_points"] == [*settled, 0]
        assert await _penalties(db, newcomer) == [("escape_penalty", -16)]  # 8 x 2
    finally:
        await registry.stop()
    await _books_balance(db)


async def test_other_variants_keep_their_context(db: Database) -> None:
    ids = await _accounts(db, 4)
    for account in ids:
        await _points(db, account, 5000, "lishui")
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=WAIT)
    try:
        await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        hand = live.table.hand
        assert hand is not None and hand.ctx.seat_points == (0, 0, 0, 0)  # unused there
    finally:
        await registry.stop()


# --- an absent player between hands -----------------------------------------------------------


async def test_a_player_away_at_the_deal_loses_the_seat_without_penalty(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=Timers(**{**LONG, "ready": 2.0}))
    try:
        sinks = await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        await registry.require(live.table_id).leave(ids[0])  # the first hand ends (an escape)
        await _stored(db, live.table_id, 1)
        await _until(lambda: live.accounts()[0] is None)
        await registry.sit(live.table_id, ids[0], 0)  # back before the next deal
        # seat 2's player closes the tab between hands
        for table_id, seat in registry.connections.disconnect(ids[2], sinks[ids[2]]):
            registry.require(table_id).table.submit(Disconnected(seat))
        await registry.require(live.table_id).flush()
        assert live.accounts() == ids  # the seat is held until the deal is due
        await _until(lambda: live.accounts()[2] is None, 5)
        assert live.table.hand is None and live.table.hand_id.endswith("-1")
        await asyncio.sleep(0.6)  # ticks after the deal time: still no hand for three
        assert live.table.hand is None and len(await _records(db, live.table_id)) == 1
        await asyncio.sleep(0.1)  # the table_state of the freed seat is sent
        last = [m for m in sinks[ids[1]].messages if isinstance(m, TableStateMessage)][-1]
        assert [s.name is not None for s in last.seats] == [True, True, False, True]
        assert last.seats[2].balance is None and last.hand_id is None
        async with db.sessions() as s:
            assert (await stats_of(s, ids[2]))["lishui"].disconnects == 0
            assert (await s.execute(select(func.count()).select_from(Disconnect))).scalar_one() == 0
        assert "disconnect_penalty" not in [reason for reason, _ in await _penalties(db, ids[2])]
    finally:
        await registry.stop()


async def test_bots_and_connected_players_are_dealt_in(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=WAIT)
    try:
        registry.connections.connect(ids[0], Sink())
        await registry.sit(live.table_id, ids[0], 0)
        for seat, bot in enumerate(ids[1:], start=1):
            await registry.sit(live.table_id, bot, seat, bot=True)
        await _dealt(live, 1)
        assert live.accounts() == ids
    finally:
        await registry.stop()


# --- a ban ------------------------------------------------------------------------------------


async def test_a_ban_escapes_the_seat_closes_the_socket_and_refuses_actions_in_flight(
    db: Database,
) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=WAIT)
    try:
        sinks = await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        hand = live.table.hand
        assert hand is not None
        banned_seat = pending_seats(hand)[0]  # the dealer, to discard
        banned = ids[banned_seat]
        discard = next(a for a in legal_actions(hand, banned_seat) if isinstance(a, Discard))
        # an action already on its way when the ban lands
        live.table.submit(PlayerAction(banned_seat, discard, live.table.seq))
        await bans.ban(registry, banned)
        assert sinks[banned].closed == CLOSE_BANNED == 4004
        record = (await _stored(db, live.table_id, 1))[0]
        actions = json.loads(record.actions)
        assert actions == [{"seat": banned_seat, "action": {"type": "escape"}}]  # no discard
        assert json.loads(record.result)["outcome"] == "escape"
        await _until(lambda: live.accounts()[banned_seat] is None)
        assert (await _penalties(db, banned))[0][0] == "escape_penalty"
        assert all(sinks[a].closed is None for a in ids if a != banned)
        # a later action of that seat reaches nothing
        live.table.submit(PlayerAction(banned_seat, Escape(banned_seat), 0))
        await registry.require(live.table_id).flush()
        assert len(await _records(db, live.table_id)) == 1
    finally:
        await registry.stop()


async def test_a_ban_between_hands_frees_the_seat(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=WAIT)
    try:
        sinks = {}
        for seat, account in enumerate(ids[:3]):
            sinks[account] = Sink()
            registry.connections.connect(account, sinks[account])
            await registry.sit(live.table_id, account, seat)
        await bans.ban(registry, ids[1])
        assert live.accounts() == [ids[0], None, ids[2], None]
        assert sinks[ids[1]].closed == CLOSE_BANNED
        assert sinks[ids[0]].closed is None
        assert await _penalties(db, ids[1]) == []
    finally:
        await registry.stop()


# --- one table at a time ----------------------------------------------------------------------


async def test_an_account_sits_at_one_table_at_a_time(db: Database) -> None:
    ids = await _accounts(db, 1)
    registry = TableRegistry(db.sessions)
    first = registry.create("lishui", 1, timers=WAIT)
    second = registry.create("huzhou", 1, timers=WAIT)
    try:
        assert await registry.take_seat(first.table_id, ids[0]) == 0
        with pytest.raises(TableError) as refused:
            await registry.take_seat(second.table_id, ids[0])
        assert refused.value.code == "seated_elsewhere"
        assert refused.value.details == {"table_id": first.table_id}
        with pytest.raises(TableError) as refused:
            await registry.sit(second.table_id, ids[0], bot=True)
        assert refused.value.code == "seated_elsewhere"
        assert second.accounts() == [None] * 4
        await registry.require(first.table_id).leave(ids[0])
        assert await registry.take_seat(second.table_id, ids[0]) == 0
    finally:
        await registry.stop()


# --- an escape frees the seat before the hand is stored ---------------------------------------


async def test_an_escaper_sits_again_while_the_hand_is_stored_and_keeps_the_seat(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = settlement_module.store_hands
    stored = asyncio.Event()
    release = asyncio.Event()

    async def slow_store(*args: Any, **kwargs: Any) -> Any:
        await release.wait()  # a database busy with a burst of endings
        try:
            return await real(*args, **kwargs)
        finally:
            stored.set()

    monkeypatch.setattr(settlement_module, "store_hands", slow_store)
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=WAIT)
    try:
        sinks = await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        hand_id = live.table.hand_id
        await registry.require(live.table_id).leave(ids[2])
        await _until(lambda: live.accounts()[2] is None)  # freed, the hand not stored yet
        assert live.table.settling and not stored.is_set()
        assert await registry.take_seat(live.table_id, ids[2]) == 2
        release.set()
        await _stored(db, live.table_id, 1)
        await registry.require(live.table_id).flush()
        assert live.accounts() == ids  # nothing freed the seat again
        assert hand_id in shown_ended([sinks[ids[2]]])  # the result of the escaped hand
        assert (await _penalties(db, ids[2]))[0][0] == "escape_penalty"
        await _dealt(live, 2)  # the four play on
    finally:
        release.set()
        await registry.stop()
