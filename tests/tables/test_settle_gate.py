"""Hands ending together are stored a few at a time (`STORE_CONCURRENCY`): a burst of
endings waits its turn instead of queueing all its database work ahead of the other tables'
actions (docs/architecture.md, "Settlement bursts"). Every hand shown as ended is still
stored and paid exactly once, and the tables whose hands wait go on afterwards."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.store.db import Database
from app.tables import registry as registry_module
from app.tables.messages import Silver
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.outage import check_hands_paid, shown_ended
from tests.sinks import Sink
from tests.waits import until

FAST = Timers(discard=60, claim=60, decide=60, ready=0.05)
TABLES = 6
GATE = 2


async def test_a_burst_of_endings_is_stored_a_few_at_a_time_and_every_hand_is_paid(
    db: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = registry_module.store_hand
    in_flight, most, stored = 0, 0, 0

    async def slow_store(*args: Any, **kwargs: Any) -> Silver:
        nonlocal in_flight, most, stored
        in_flight += 1
        most = max(most, in_flight)
        try:
            await asyncio.sleep(0.05)  # a slow database: the endings pile up
            silver = await real(*args, **kwargs)
            stored += 1
            return silver
        finally:
            in_flight -= 1

    monkeypatch.setattr(registry_module, "store_hand", slow_store)
    accounts = await funded_accounts(db, 4 * TABLES, "g")
    registry = TableRegistry(db.sessions, store_concurrency=GATE)
    sinks = {a: Sink() for a in accounts}
    try:
        for t in range(TABLES):
            live = registry.create("lishui", 1, timers=FAST)
            for account in accounts[4 * t: 4 * t + 4]:
                registry.connect(account, sinks[account])
                registry.sit(live.table_id, account, bot=True)
        # bots play at once: every table ends a hand within moments of the others
        await until(lambda: stored >= 4 * TABLES, 60, "four hands per table stored")
    finally:
        await registry.stop()
    await until(lambda: in_flight == 0, 10, "the last stores to finish")
    assert most == GATE  # they did pile up, and never more than the gate were stored at once
    ended = shown_ended(sinks.values())
    assert len(ended) >= 4 * TABLES
    await check_hands_paid(database_url, ended.keys(), 1, ended)
