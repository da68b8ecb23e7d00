"""docs/operating.md, "Backup and restore": the runbook's own commands, run as written.

A server (`python -m app`, as deployed) over a PostgreSQL database of this test's own plays
hands with money moving: the house funded by an administrator, two players and two house
bots at a table. While they play, the runbook's backup block dumps the database with
pg_dump; its restore block restores the dump into a fresh database, and its check block
finds every balance equal to its ledger. A server started on the restored database answers
`GET /admin/silver` reconciled (nothing unexplained), every hand shown ended before the
dump began is there, whole, and every balance is the one the live database had at the
dump's moment (the restored ledger is row for row the live one's up to then).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from app.settings import Settings
from tests.api.helpers import HOUSE_FLOAT
from tests.cluster.processes import Player, play, register, start_node, wait_up
from tests.conftest import POSTGRES_URL
from tests.live import UNTHROTTLED, live_server
from tests.ops.operating import (
    SECRET,
    database_url,
    make_admin,
    node_env,
    postgres_tools,
    run_block,
    scratch_database,
    scratch_names,
    seat_with_bots,
    silver,
)
from tests.waits import until

pytestmark = pytest.mark.skipif(POSTGRES_URL is None, reason="TEST_DATABASE_URL is not set")

HANDS = "SELECT id, seed, result, voided FROM hand_records"
LEDGER = "SELECT id, account_id, delta, balance_after, reason, hand_id, idempotency_key FROM ledger"


async def _rows(url: str, query: str) -> list[tuple[Any, ...]]:
    conn = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await conn.fetch(query)]
    finally:
        await conn.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A database of this test's own, migrated, its house funded and its first admin made,
    served by a live server: its address and the database's URL."""
    postgres_tools("pg_dump", "pg_restore", "createdb", "psql")
    with scratch_database("live") as url:
        settings = Settings(database_url=url, jwt_secret=SECRET, argon2_time_cost=1,
                            argon2_memory_kib=1024, argon2_parallelism=1, **UNTHROTTLED)
        with live_server(settings) as (port, _):
            make_admin(settings)
            yield f"127.0.0.1:{port}", url


def _ended(players: list[Player]) -> set[str]:
    return {hand for player in players for hand in player.ended}


async def _play_and_dump(address: str, url: str, backup: Path) -> set[str]:
    """Tables play while the runbook's backup block runs; the hands shown ended before."""
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        players = [await register(http, f"saver{i}", address) for i in range(2)]
        await seat_with_bots(http, players)
        tasks = [asyncio.create_task(play(p, address, stop)) for p in players]
        try:
            await until(lambda: len(_ended(players)) >= 2, 60, "two hands played")
            before = _ended(players)
            # the players go on while pg_dump reads: a backup is taken from a live server
            await asyncio.to_thread(
                run_block, "backup", {"DATABASE_URL": url, "BACKUP_FILE": str(backup)}
            )
            await until(lambda: len(_ended(players) - before) >= 1, 60, "a hand after the dump")
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return before


def _check_block(restored: str) -> dict[str, str]:
    """The runbook's check block on the restored database: its counts by name."""
    said = run_block("restore-check", {"RESTORE_URL": restored})
    assert "MISMATCH" not in said, said
    return dict(line.split(" ", 1) for line in said.splitlines() if line)


async def test_a_dump_taken_during_play_restores_into_a_fresh_database_that_reconciles(
    running: tuple[str, str], tmp_path: Path
) -> None:
    address, live = running
    backup = tmp_path / "mahjong.dump"
    async with asyncio.timeout(150):
        shown_before_dump = await _play_and_dump(address, live, backup)
    live_ledger = {row[0]: row for row in await _rows(live, LEDGER)}
    live_hands = {row[0]: row for row in await _rows(live, HANDS)}
    (schema,), = await _rows(live, "SELECT version_num FROM alembic_version")

    with scratch_names("restored") as (name,):
        restored = database_url(name)
        assert POSTGRES_URL is not None
        run_block("restore", {"SERVER_URL": POSTGRES_URL, "RESTORE_DB": name,
                              "RESTORE_URL": restored, "BACKUP_FILE": str(backup)})
        counts = _check_block(restored)
        assert counts["schema"] == schema

        ledger = await _rows(restored, LEDGER)
        hands = {row[0]: row for row in await _rows(restored, HANDS)}
        assert (counts["ledger"], counts["hands"]) == (str(len(ledger)), str(len(hands)))
        # a snapshot of the live database: its rows, as they were, none made up
        assert all(live_ledger[row[0]] == row for row in ledger)
        assert all(live_hands[hand] == row for hand, row in hands.items())
        assert shown_before_dump <= set(hands), "a hand shown ended is missing from the dump"
        assert len(live_ledger) > len(ledger), "play went on after the dump"
        # every stored hand is settled whole: one ledger row per seat (bots' included)
        settled: dict[str, int] = {}
        for row in ledger:
            if row[5] is not None and row[4] in ("hand_settlement", "escape_penalty"):
                settled[row[5]] = settled.get(row[5], 0) + 1
        assert all(settled.get(hand) == 4 for hand in hands), settled

        balances = dict(await _rows(restored, "SELECT username, balance FROM accounts"))
        last = {row[1]: row[3] for row in sorted(ledger)}  # account -> its last balance_after
        ids = dict(await _rows(restored, "SELECT username, id FROM accounts"))
        assert all(balances[user] == last.get(ids[user], 0) for user in balances)

        env = node_env(restored)
        restored_node = start_node("restored", env, tmp_path)
        try:
            wait_up(restored_node)
            async with httpx.AsyncClient(base_url=f"http://{restored_node.address}") as http:
                supply = await silver(http)
                login = await http.post("/auth/login", json={
                    "username": "saver0", "password": "correct horse battery"})
                me = await http.get("/me", headers={
                    "Authorization": f"Bearer {login.json()['access_token']}"})
        finally:
            restored_node.process.send_signal(signal.SIGTERM)
            restored_node.process.wait(30)
    assert supply["unexplained"] == 0, supply
    assert supply["total"] == sum(balances.values())
    assert supply["adjustments"] == HOUSE_FLOAT  # the house's float came back with the ledger
    assert me.json()["balance"] == balances["saver0"]
    print(f"\nrestored: {counts}; hands shown before the dump {len(shown_before_dump)}, "
          f"in the dump {len(hands)}; ledger rows live {len(live_ledger)}, dumped {len(ledger)}")
