"""API fixtures: the app itself (so a test can reach its hasher and limiter), clients from
chosen addresses, cheap Argon2 parameters so that tests hash in a millisecond, and no
request limit in the way (tests/live.py UNTHROTTLED)."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from app.main import create_app
from app.settings import Settings
from tests.api.refusals import RESPONSE_HOOKS
from tests.live import UNTHROTTLED

REDIS_URL = os.environ.get("TEST_REDIS_URL")


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        jwt_secret="test-secret-" + "x" * 32,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
        **UNTHROTTLED,
    )


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


ClientFor = Callable[[str], httpx.AsyncClient]


@pytest.fixture
async def client_for(app: FastAPI) -> AsyncIterator[ClientFor]:
    """Clients of the same app calling from a given address (their refusals checked against
    the OpenAPI document, tests/api/refusals.py)."""
    made: list[httpx.AsyncClient] = []

    def make(address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        http = httpx.AsyncClient(
            transport=transport, base_url="http://test", event_hooks=RESPONSE_HOOKS
        )
        made.append(http)
        return http

    yield make
    for http in made:
        await http.aclose()


@pytest.fixture
async def client(client_for: ClientFor) -> httpx.AsyncClient:
    return client_for("127.0.0.1")


@pytest.fixture
async def redis_prefix() -> AsyncIterator[str]:
    """A key prefix of this test's own in TEST_REDIS_URL, deleted after it."""
    if REDIS_URL is None:
        pytest.skip("TEST_REDIS_URL is not set")
    redis = Redis.from_url(REDIS_URL)
    try:
        await redis.ping()
    except Exception as exc:  # noqa: BLE001 - set but unreachable: fail, never skip
        pytest.fail(f"TEST_REDIS_URL is set but Redis cannot be reached: {exc}")
    prefix = f"test-{secrets.token_hex(4)}:"
    yield prefix
    async for key in redis.scan_iter(match=f"{prefix}*", count=500):
        await redis.delete(key)
    await redis.aclose()
