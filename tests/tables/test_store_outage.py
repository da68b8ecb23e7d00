"""A hand's result is stored before it is shown, whatever fails (DESIGN.md, "Results are
written before they are shown"): four fast tables of bots play on PostgreSQL while the
database refuses connections for a few seconds. Every hand any seat was shown as ended has
exactly one record and its ledger rows afterwards, and the ledger sums to every balance.
(The same with the owning node killed during the outage: tests/cluster/test_store_outage.py.)
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import func, select

from app.protocol import TableStateMessage
from app.store.db import Database
from app.store.models import Account, HandRecord
from app.tables import admin as table_admin
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.conftest import POSTGRES_URL
from tests.funded import funded_accounts
from tests.outage import check_hands_paid, refusing_connections, shown_ended
from tests.sinks import Sink
from tests.waits import until

pytestmark = pytest.mark.skipif(POSTGRES_URL is None, reason="needs TEST_DATABASE_URL")

FAST = Timers(discard=60, claim=60, decide=60, ready=0.05)
TABLES = 4


def failed_to_store(caplog: pytest.LogCaptureFixture) -> set[str]:
    """The tables whose store of a hand has failed (the first failure is logged)."""
    return {str(r.args[0]) for r in caplog.records
            if "retrying until stored" in r.msg and isinstance(r.args, tuple)}


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_hands_ending_while_the_database_is_away_are_stored_before_they_are_shown(
    db: Database, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="app.tables.registry")
    accounts = await funded_accounts(db, 4 * TABLES, "o")
    registry = TableRegistry(db.sessions)
    sinks = {a: Sink() for a in accounts}
    tables = []
    try:
        for t in range(TABLES):
            live = registry.create("lishui", 1, timers=FAST)
            for account in accounts[4 * t: 4 * t + 4]:
                registry.connections.connect(account, sinks[account])
                await registry.sit(live.table_id, account, bot=True)
            tables.append(live)
        await until(lambda: len(shown_ended(sinks.values())) >= 8, 30, "hands before the outage")
        before = set(shown_ended(sinks.values()))
        async with refusing_connections(database_url):
            # every table's store has failed once: a table stores one hand at a time, so
            # the hands stored before the outage have all been shown by then (`settling`
            # alone is also true of a store that is about to succeed)
            everyone = {live.table_id for live in tables}
            await until(lambda: failed_to_store(caplog) == everyone, 10,
                        "a hand of every table to end while the database is away")
            shown_during = set(shown_ended(sinks.values())) - before
            await asyncio.sleep(3)
            # nothing a seat was shown during the outage can have been stored in it
            assert set(shown_ended(sinks.values())) - before == shown_during
            settling = [live for live in tables if live.table.settling]
            assert settling
            # the table says so, and deals nothing until the hand is stored
            states = [m for m in sinks[settling[0].accounts()[0] or 0].messages
                      if isinstance(m, TableStateMessage)]
            assert states[-1].settling and states[-1].hand_id is None
        # once the database is back, the held hands are stored, then shown, and play goes on
        after = set(shown_ended(sinks.values()))
        await until(lambda: len(set(shown_ended(sinks.values())) - after) >= 8, 60,
                    "hands after the outage")
        for live in tables:
            await table_admin.pause(registry, live.table_id)
        await until(lambda: not any(live.table.settling for live in tables), 30,
                    "every result stored")
    finally:
        await registry.stop()

    ended = shown_ended(sinks.values())
    assert any("retrying until stored" in r.getMessage() for r in caplog.records)
    await check_hands_paid(database_url, ended, 1, ended)
    async with db.sessions() as s:
        stored = set((await s.execute(
            select(HandRecord.id).where(HandRecord.voided.is_(False))
        )).scalars())
        players = (await s.execute(select(func.count()).select_from(Account))).scalar_one()
    assert stored == set(ended)  # nothing stored that no seat was shown, nothing shown lost
    assert players == 4 * TABLES
