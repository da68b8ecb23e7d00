"""The settlement-failure alert goes off for real: a real Prometheus (Debian's binary, a
second's scrape and evaluation) scrapes two live nodes of a cluster over one PostgreSQL
database of this test's own; a player plays a hand with the house's bots on node A; the
database refuses connections while the hand ends, so its settlement fails; Prometheus reads
the failure on A's /metrics and MahjongSettlementFailing (deploy/prometheus/rules.yml) goes
to firing for A alone. When the database is back the hand is stored and shown. A's log names
the table and the hand on the line that says the store failed.

Needs TEST_DATABASE_URL, TEST_REDIS_URL and TEST_PROMETHEUS. Slow: about 20 s."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import make_url

from app.loadtest.servers import UNBARRED_SIGNUPS
from app.store import migrate
from app.store.db import Database
from tests.api.helpers import fund_house
from tests.cluster.processes import ROOT, Node, open_table, play, register, two_nodes
from tests.conftest import POSTGRES_URL
from tests.outage import refusing_connections
from tests.prometheus import prometheus, prometheus_path
from tests.waits import until

REDIS_URL = os.environ.get("TEST_REDIS_URL")
pytestmark = pytest.mark.skipif(
    POSTGRES_URL is None or REDIS_URL is None, reason="needs TEST_DATABASE_URL and TEST_REDIS_URL"
)
ALERT = "MahjongSettlementFailing"


@pytest.fixture
def own_database() -> Iterator[str]:
    """A database of this test alone on TEST_DATABASE_URL's server, migrated, the house
    funded; dropped afterwards. The outage below is of this database only. (Prometheus is
    looked for first: without it the test skips, or fails, before anything starts.)"""
    prometheus_path()
    assert POSTGRES_URL is not None
    server = make_url(POSTGRES_URL)
    name = f"{server.database}_alerts_{secrets.token_hex(4)}"
    admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
    asyncio.run(_admin(admin, f'CREATE DATABASE "{name}"'))
    url = server.set(database=name).render_as_string(hide_password=False)
    try:
        migrate.upgrade(url)
        asyncio.run(_fund(url))
        yield url
    finally:
        asyncio.run(_admin(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _admin(url: str, statement: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def _fund(url: str) -> None:
    db = Database.connect(url)
    try:
        await fund_house(db)
    finally:
        await db.close()


@pytest.fixture
def prefix() -> Iterator[str]:
    """This test's Redis key prefix; its keys are deleted afterwards."""
    prefix = f"test-alerts-{secrets.token_hex(4)}:"
    yield prefix
    asyncio.run(_delete_prefix(prefix))


async def _delete_prefix(prefix: str) -> None:
    assert REDIS_URL is not None
    redis = Redis.from_url(REDIS_URL)
    try:
        async for key in redis.scan_iter(match=f"{prefix}*", count=500):
            await redis.delete(key)
    finally:
        await redis.aclose()


@pytest.fixture
def nodes(own_database: str, prefix: str, tmp_path: Path) -> Iterator[tuple[Node, Node]]:
    """Nodes a and b on the test's database and Redis; the house's bots take a tenth of a
    second a move, so that a hand lasts a few seconds."""
    assert REDIS_URL is not None
    env = dict(os.environ) | {
        "DATABASE_URL": own_database, "REDIS_URL": REDIS_URL, "REDIS_PREFIX": prefix,
        "JWT_SECRET": "alerts-test-secret-" + "x" * 32, "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_KIB": "1024", "ARGON2_PARALLELISM": "1", "BOT_DELAY_MS": "100",
        "PYTHONPATH": str(ROOT),
    } | UNBARRED_SIGNUPS
    with two_nodes(env, tmp_path) as pair:
        yield pair


async def _query(prom: httpx.AsyncClient, path: str, **params: str) -> Any:
    answer = await prom.get(path, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


async def _firing(prom: httpx.AsyncClient) -> list[dict[str, Any]]:
    alerts = (await _query(prom, "/api/v1/alerts"))["alerts"]
    return [a for a in alerts if a["labels"]["alertname"] == ALERT and a["state"] == "firing"]


async def _failed_series(prom: httpx.AsyncClient) -> dict[str, str]:
    """Each scraped node's failed settlements, as Prometheus has them now."""
    found = await _query(prom, "/api/v1/query", query='mahjong_settlements_total{outcome="failed"}')
    return {r["metric"]["instance"]: r["value"][1] for r in found["result"]}


async def test_the_settlement_failure_alert_fires_for_the_node_that_failed(
    nodes: tuple[Node, Node], own_database: str, tmp_path: Path
) -> None:
    a, b = nodes
    with prometheus([a.address, b.address], tmp_path) as url:
        async with (
            asyncio.timeout(60),
            httpx.AsyncClient(base_url=f"http://{a.address}") as http,
            httpx.AsyncClient(base_url=url) as prom,
        ):
            player = await register(http, "watched", a.address)
            player.table_id = await open_table(http, player)
            assert (await http.post(f"/tables/{player.table_id}/sit",
                                    headers=player.headers)).status_code == 200
            stop_playing = asyncio.Event()
            playing = asyncio.create_task(play(player, b.address, stop_playing))
            try:
                filled = await http.post(f"/tables/{player.table_id}/fill-bots",
                                         headers=player.headers)
                assert filled.status_code == 200, filled.text
                # both nodes scraped, the series there at 0 before anything failed
                while await _failed_series(prom) != {a.address: "0", b.address: "0"}:
                    await asyncio.sleep(0.2)
                await until(lambda: player.seen, 20, "the first hand to be dealt")
                assert await _firing(prom) == []
                async with refusing_connections(own_database):
                    # a hand ends: its result waits, unstored and not shown
                    await until(lambda: player.over - set(player.ended), 30, "a hand to end")
                    while not (firing := await _firing(prom)):
                        await asyncio.sleep(0.2)
                    (hand_id,) = player.over - set(player.ended)
                # the database is back: the hand is stored, then shown
                await until(lambda: hand_id in player.ended, 20, "the hand to be shown")
            finally:
                stop_playing.set()
                playing.cancel()
                await asyncio.gather(playing, return_exceptions=True)

    assert [(f["labels"]["instance"], f["labels"]["severity"]) for f in firing] == [
        (a.address, "critical")
    ]
    assert firing[0]["annotations"]["runbook_url"] == "docs/operating.md#alert-settlement-failures"
    failed = [line for line in a.log.read_text().splitlines() if "storing hand" in line]
    assert failed and all(f"table_id={player.table_id}" in line and f"hand_id={hand_id}" in line
                          and " node=a " in line for line in failed), failed
    assert "storing hand" not in b.log.read_text()
