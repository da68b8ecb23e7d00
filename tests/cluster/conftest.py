"""The cluster's tests run when TEST_REDIS_URL is set (and fail loudly when it is set but
Redis cannot be reached). Each test works under its own key prefix and deletes only the
keys under it: the Redis database may be shared (CI uses db 0)."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from app.loadtest.servers import UNTHROTTLED
from tests.cluster.processes import ROOT, Node, two_nodes
from tests.conftest import POSTGRES_URL, migrated_database_url

REDIS_URL = os.environ.get("TEST_REDIS_URL")
LEASE_MS = 1500  # the node processes' lease: a killed owner's tables move within ~2 s

pytestmark = pytest.mark.skipif(REDIS_URL is None, reason="TEST_REDIS_URL is not set")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if REDIS_URL is not None:
        return
    skip = pytest.mark.skip(reason="TEST_REDIS_URL is not set")
    for item in items:
        if "tests/cluster/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


async def delete_prefix(redis: Redis, prefix: str) -> None:
    async for key in redis.scan_iter(match=f"{prefix}*", count=500):
        await redis.delete(key)


@pytest.fixture
def redis_url() -> str:
    assert REDIS_URL is not None
    return REDIS_URL


@pytest.fixture
def prefix() -> str:
    return f"test-{secrets.token_hex(4)}:"


@pytest.fixture
async def redis(redis_url: str, prefix: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, decode_responses=True)
    try:
        await client.ping()
    except Exception as exc:  # noqa: BLE001 - set but unreachable: fail, never skip
        pytest.fail(f"TEST_REDIS_URL is set but Redis cannot be reached: {exc}")
    yield client
    await delete_prefix(client, prefix)
    await client.aclose()


@pytest.fixture
def cluster_database(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A migrated database the node processes share, with nothing in it: PostgreSQL when
    configured. Made as the other tests' databases are (tests/conftest.py): the migrations
    run once per session, not at each test (a few seconds each on PostgreSQL)."""
    backend = "postgresql" if POSTGRES_URL else "sqlite"
    return migrated_database_url(backend, tmp_path, request, name="cluster.db")


@pytest.fixture
def node_env() -> dict[str, str]:
    """Settings a test module gives its node processes besides the fixture's (a module
    overrides this fixture)."""
    return {}


@pytest.fixture
def nodes(
    cluster_database: str, redis_url: str, prefix: str, tmp_path: Path,
    node_env: dict[str, str],
) -> Iterator[tuple[Node, Node]]:
    """Nodes a and b: two server processes on one database and Redis. The request and
    connection limits are out of the way (as for the in-process servers, tests/live.py):
    every player is at 127.0.0.1, and a player whose node died reconnects every 0.1 s, so
    the default 60 sockets a minute ran out during an outage and left the address refused
    for the rest of the minute."""
    env = dict(os.environ) | {
        "DATABASE_URL": cluster_database,
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": prefix,
        "JWT_SECRET": "cluster-test-secret-" + "x" * 32,
        "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_PARALLELISM": "1",
        "LEASE_MS": str(LEASE_MS),
        "WATCH_INTERVAL_MS": "200",
        "PYTHONPATH": str(ROOT),
    } | UNTHROTTLED | node_env  # every player registers and connects from 127.0.0.1
    with two_nodes(env, tmp_path) as pair:
        yield pair
