"""Tables no person plays at are closed (issue 16): a table whose seats have all been empty
or bots' for `idle_close_seconds` leaves the lobby, between hands, and its bots are free for
the next table; a table with a player is never closed; only the table's owner closes it.
Idle time is the registry's fake clock; hands are real, stored in the real store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

import pytest

from app.store.db import Database
from app.tables.actor import TableActor
from app.tables.clock import FakeClock
from app.tables.directory import OneNodeDirectory
from app.tables.messages import CloseIdle, Tick
from app.tables.network import Network
from app.tables.registry import TableRegistry
from app.tables.seats import SeatState
from app.tables.timers import Timers
from tests.sinks import LONG, Sink
from tests.tables.settlement.test_penalties import _accounts, _books_balance
from tests.tables.test_actor import Harness
from tests.tables.test_table_seats import _records

IDLE = 300.0
QUICK = Timers(**{**LONG, "ready": 0.2})  # bots deal again soon after each hand


class Owner(OneNodeDirectory):
    """One process that notes what it is told, and that may lose its tables' fence."""

    def __init__(self) -> None:
        self.closed_tables: list[str] = []
        self.owner = True

    def closed(self, table_id: str) -> None:
        self.closed_tables.append(table_id)

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        return [self.owner] * len(table_ids)


def _registry(db: Database) -> tuple[TableRegistry, FakeClock, Owner]:
    clock = FakeClock()
    registry = TableRegistry(db.sessions, idle_close_seconds=IDLE, clock=clock)
    network = Owner()
    registry.network = Network(directory=network)
    return registry, clock, network


async def _until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def test_a_table_left_to_bots_closes_after_the_idle_time_and_frees_them(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    player, *bots = await _accounts(db, 4)
    registry, clock, network = _registry(db)
    try:
        live = registry.create("lishui", 1, timers=Timers(**LONG))
        registry.connections.connect(player, Sink())
        await registry.sit(live.table_id, player, 0)
        for bot in bots[:2]:
            await registry.sit(live.table_id, bot, bot=True)
        clock.advance(10 * IDLE)
        assert await registry.idle.close_idle() == []  # a player sits there: never idle

        # between hands: the seat is free at once
        await registry.require(live.table_id).leave(player)
        clock.advance(IDLE - 1)
        assert await registry.idle.close_idle() == []
        assert registry.get(live.table_id) is live

        clock.advance(1)
        with caplog.at_level(logging.INFO, logger="app.tables.idle"):
            assert await registry.idle.close_idle() == [live.table_id]
        assert registry.get(live.table_id) is None and registry.all() == []
        assert network.closed_tables == [live.table_id]  # off the lobby of every node
        assert registry.seated_accounts() == set()  # its bots sit nowhere: free again
        assert any("no player sat there" in r.getMessage() for r in caplog.records)
    finally:
        await registry.stop()


async def test_an_empty_table_closes_too_and_a_player_sitting_down_stops_the_clock(
    db: Database,
) -> None:
    (player,) = await _accounts(db, 1)
    registry, clock, _ = _registry(db)
    try:
        empty = registry.create("lishui", 1, timers=Timers(**LONG))
        joined = registry.create("wenzhou", 1, timers=Timers(**LONG))
        clock.advance(IDLE - 10)
        registry.connections.connect(player, Sink())
        await registry.sit(joined.table_id, player)
        clock.advance(10)
        assert await registry.idle.close_idle() == [empty.table_id]
        assert [live.table_id for live in registry.all()] == [joined.table_id]

        # its idle time starts now, not at creation
        await registry.require(joined.table_id).leave(player)
        clock.advance(IDLE - 1)
        assert await registry.idle.close_idle() == []
        clock.advance(1)
        assert await registry.idle.close_idle() == [joined.table_id]
    finally:
        await registry.stop()


async def test_four_bots_playing_are_closed_between_hands_no_hand_voided(db: Database) -> None:
    bots = await _accounts(db, 4)
    registry, clock, _ = _registry(db)
    try:
        live = registry.create("lishui", 1, timers=QUICK)
        for bot in bots:
            await registry.sit(live.table_id, bot, bot=True)
        await _until(lambda: int(live.table.hand_id.rpartition("-")[2] or 0) >= 3)  # they play on
        clock.advance(IDLE)
        closed: list[str] = []
        async with asyncio.timeout(10):
            while not closed:  # as the sweeper does: a hand in play or being stored waits
                closed = await registry.idle.close_idle()
                await asyncio.sleep(0.01)
        assert closed == [live.table_id]
        records = await _records(db, live.table_id)
        assert records and not any(r.voided for r in records)
        assert registry.seated_accounts() == set()
    finally:
        await registry.stop()
    await _books_balance(db)


async def test_a_node_that_no_longer_owns_the_table_does_not_close_it(db: Database) -> None:
    registry, clock, network = _registry(db)
    try:
        live = registry.create("lishui", 1, timers=Timers(**LONG))
        network.owner = False  # a newer owner holds the fence: it decides
        clock.advance(IDLE)
        assert await registry.idle.close_idle() == []
        assert registry.get(live.table_id) is live and network.closed_tables == []
    finally:
        await registry.stop()


async def test_no_idle_time_set_means_tables_stay(db: Database) -> None:
    clock = FakeClock()
    registry = TableRegistry(db.sessions, clock=clock)
    try:
        live = registry.create("lishui", 1, timers=Timers(**LONG))
        clock.advance(100 * IDLE)
        assert await registry.idle.close_idle() == []
        assert registry.get(live.table_id) is live
    finally:
        await registry.stop()


async def test_the_actor_frees_the_seats_only_between_hands_and_only_without_a_person() -> None:
    h = Harness(seed=1000)
    table: TableActor = h.table
    table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    table.seats[0] = SeatState(11)  # a person at seat 0
    loop = asyncio.get_running_loop()

    async def close() -> bool:
        done: asyncio.Future[bool] = loop.create_future()
        await table.handle(CloseIdle(done))
        return done.result()

    await h.handle(Tick())  # dealt; the person at seat 0 is waited for
    assert table.hand is not None
    assert not await close()
    table.seats[0] = SeatState(11, autoplay=True, house_bot=True)  # bots only, hand in play
    assert not await close() and table.hand is not None
    await h.handle(Tick())
    await h.play_out()
    assert table.hand is None and len(h.records) == 1
    assert await close()
    assert [seat.account for seat in table.seats] == [None] * 4
    assert not h.records[0].voided
