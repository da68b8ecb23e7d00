"""Shared fixtures: a migrated database on every configured backend, and an API client.

SQLite (a temporary file) always; PostgreSQL too when TEST_DATABASE_URL is set. A set
TEST_DATABASE_URL that cannot be reached fails the run: it never silently skips.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from app.store import migrate
from app.store.db import Database, async_url

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if POSTGRES_URL else [])


async def _reset_postgres(url: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


def pytest_sessionstart(session: pytest.Session) -> None:
    if POSTGRES_URL:
        try:
            asyncio.run(_reset_postgres(POSTGRES_URL))
        except Exception as exc:  # noqa: BLE001 - any failure to reach it is fatal
            raise pytest.UsageError(
                f"TEST_DATABASE_URL is set but PostgreSQL cannot be reached: {exc}"
            ) from exc


def empty_database_url(backend: str, tmp_path: Path) -> str:
    """A URL to an empty database of `backend` (PostgreSQL: the schema is dropped first)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'test.db'}"
    assert POSTGRES_URL is not None
    asyncio.run(_reset_postgres(POSTGRES_URL))
    return POSTGRES_URL


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database of `backend` migrated to head."""
    url = empty_database_url(backend, tmp_path)
    migrate.upgrade(url)
    yield url


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database.connect(database_url)
    yield database
    await database.close()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, jwt_secret="test-secret-" + "x" * 32)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http
