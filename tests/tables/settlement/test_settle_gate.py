"""Hands ending together are stored in batches, a few batches at a time
(`STORE_CONCURRENCY` x `STORE_BATCH`): a burst of endings costs a few statements per batch
instead of per hand, and waits its turn instead of queueing all its database work ahead of
the other tables' actions (docs/architecture.md, "Settlement bursts"). Every hand shown as
ended is still stored and paid exactly once, and the tables whose hands wait go on
afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import pytest

from app.store.db import Database
from app.tables.registry import TableRegistry
from app.tables.settlement import service as settlement_module
from app.tables.settlement.results import Job, Stored
from app.tables.settlement.settler import Settler, loop_room
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.outage import check_hands_paid, shown_ended
from tests.sinks import Sink
from tests.waits import until

FAST = Timers(discard=60, claim=60, decide=60, ready=0.05)
TABLES = 6
GATE = 2


async def test_a_burst_of_endings_is_stored_in_batches_and_every_hand_is_paid(
    db: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = settlement_module.store_hands
    in_flight, most, stored = 0, 0, 0
    batches: list[int] = []

    async def slow_store(sessions: Any, jobs: Sequence[Job], policy: Any) -> list[Any]:
        nonlocal in_flight, most, stored
        in_flight += 1
        most = max(most, in_flight)
        batches.append(len(jobs))
        try:
            await asyncio.sleep(0.05)  # a slow database: the endings pile up
            outcomes: list[Stored | Exception] = await real(sessions, jobs, policy)
            stored += sum(isinstance(o, Stored) for o in outcomes)
            return outcomes
        finally:
            in_flight -= 1

    monkeypatch.setattr(settlement_module, "store_hands", slow_store)
    accounts = await funded_accounts(db, 4 * TABLES, "g")
    registry = TableRegistry(db.sessions, store_concurrency=GATE, store_batch=4)
    sinks = {a: Sink() for a in accounts}
    try:
        for t in range(TABLES):
            live = registry.create("lishui", 1, timers=FAST)
            for account in accounts[4 * t: 4 * t + 4]:
                registry.connections.connect(account, sinks[account])
                await registry.sit(live.table_id, account, bot=True)
        # bots play at once: every table ends a hand within moments of the others; a hand
        # is shown once stored (through its table's inbox): the registry stops after both
        await until(lambda: stored >= 4 * TABLES
                    and len(shown_ended(sinks.values())) >= 4 * TABLES, 60,
                    "four hands per table stored and shown")
    finally:
        await registry.stop()
    await until(lambda: in_flight == 0, 10, "the last stores to finish")
    assert most == GATE  # they did pile up, and never more than the gate were stored at once
    assert max(batches) == 4  # the waiting hands went together, never more than the batch
    assert len(batches) < sum(batches)  # fewer batches than hands
    ended = shown_ended(sinks.values())
    assert len(ended) >= 4 * TABLES
    await check_hands_paid(database_url, ended.keys(), 1, ended)


async def test_a_batch_waits_while_the_loop_is_busy_but_not_for_ever() -> None:
    """A burst's batches go after the tables' own work: while passes of the event loop are
    long (here a task that holds it 20 ms a pass), the batch waits; once they are short it
    is stored. A loop that stays busy still gets its batch stored, `defer` later."""
    order: list[str] = []

    async def store(jobs: Sequence[Job]) -> list[Stored | None | Exception]:
        order.append("store")
        return [None] * len(jobs)

    async def busy(passes: int) -> None:
        for _ in range(passes):
            time.sleep(0.02)  # noqa: ASYNC251 - a pass of the loop with much to do (the escapes)
            order.append("busy")
            await asyncio.sleep(0)

    job = Job.__new__(Job)  # the store function above never looks inside
    async with asyncio.timeout(30):
        worker = asyncio.create_task(busy(10))
        await asyncio.sleep(0)  # the burst has started
        settler = Settler(store, loop_room=lambda defer: loop_room(busy=0.005, defer=defer),
                          defer=30)
        assert await settler.store(job) is None
        await worker
        assert order.index("store") == len(order) - 1 == 10  # after every busy pass

        order.clear()
        worker = asyncio.create_task(busy(1_000))  # 20 s of busy passes
        await asyncio.sleep(0)
        settler = Settler(store, loop_room=lambda defer: loop_room(busy=0.005, defer=defer),
                          defer=0.2)
        assert await settler.store(job) is None  # within `defer`, not after the 20 s
        worker.cancel()
        assert 0 < order.index("store") < 100


async def test_a_hand_that_waited_for_a_runner_is_not_deferred_again() -> None:
    """The wait for room is counted from a hand's end, not from its batch's turn: in a
    burst, a hand queued behind a batch being stored has used its wait, and its own batch
    goes as soon as a runner is free (so the burst's last hands do not wait `defer` once
    per batch ahead of them)."""
    given: list[float] = []

    async def room(defer: float) -> None:
        given.append(defer)
        await asyncio.sleep(defer)  # a loop that stays busy: the whole wait is used

    async def store(jobs: Sequence[Job]) -> list[Stored | None | Exception]:
        await asyncio.sleep(0.3)  # longer than `defer`
        return [None] * len(jobs)

    job = Job.__new__(Job)  # the store function above never looks inside
    settler = Settler(store, runners=1, loop_room=room, defer=0.2)
    async with asyncio.timeout(30):
        first = asyncio.create_task(settler.store(job))
        while not given:  # the first batch is waiting for room
            await asyncio.sleep(0)
        await asyncio.sleep(0.25)  # ... and is being stored: the second hand queues behind it
        second = asyncio.create_task(settler.store(job))
        assert await first is None and await second is None
    assert len(given) == 2
    assert 0.15 < given[0] <= 0.2  # the first hand may wait for room
    assert given[1] == 0.0  # the second waited longer than that for the runner
