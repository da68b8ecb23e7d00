"""The cluster's tests run when TEST_REDIS_URL is set (and fail loudly when it is set but
Redis cannot be reached). Each test works under its own key prefix and deletes only the
keys under it: the Redis database may be shared (CI uses db 0)."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

REDIS_URL = os.environ.get("TEST_REDIS_URL")

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
