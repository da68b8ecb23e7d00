"""Shared fixtures: a migrated database on every configured backend, and an API client.

SQLite (a temporary file) always; PostgreSQL too when TEST_DATABASE_URL is set. A set
TEST_DATABASE_URL that cannot be reached fails the run: it never silently skips.

Every test gets a database as a fresh migration leaves it, but the migrations run once per
session and backend: SQLite's migrated file is copied for each test, and PostgreSQL's
tables are emptied (their ids restarted) as long as the schema is still the one the
migrations left (a test that drops or downgrades it gets a fresh migration after it).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from pathlib import Path

import asyncpg
import httpx
import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine
from sqlalchemy.pool import NullPool

from app.settings import Settings
from app.store import migrate
from app.store.db import Database, async_url
from tests.api.helpers import app_client
from tests.live import UNBARRED_SIGNUPS


def _own_databases_per_worker() -> None:
    """Under pytest-xdist (``-n``), each worker process gets its own PostgreSQL database
    (``<name>_gw0``, made if missing, on the server of TEST_DATABASE_URL) and its own Redis
    database (the index of TEST_REDIS_URL + 1 + the worker's number, modulo 16): the tests
    reset their database's schema and share no state across processes. The variables are
    rewritten here, before any test module reads them, and the node processes of
    tests/cluster inherit them."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    number = int(worker.removeprefix("gw"))
    if url := os.environ.get("TEST_DATABASE_URL"):
        parsed = make_url(url)
        name = f"{parsed.database}_{worker}"
        asyncio.run(_create_database(url, name))
        os.environ["TEST_DATABASE_URL"] = parsed.set(database=name).render_as_string(
            hide_password=False
        )
    if url := os.environ.get("TEST_REDIS_URL"):
        base, _, index = url.rstrip("/").rpartition("/")
        if not index.isdigit():
            base, index = url.rstrip("/"), "0"
        # Redis has 16 databases unless configured otherwise: wrap around
        os.environ["TEST_REDIS_URL"] = f"{base}/{(int(index) + 1 + number) % 16}"


async def _create_database(url: str, name: str) -> None:
    try:
        conn = await asyncpg.connect(url)
    except Exception:  # noqa: BLE001 - unreachable: pytest_sessionstart says so, loudly
        return
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


_own_databases_per_worker()
# bots and 托管 play at once in tests (the server's default is a human pace, BOT_DELAY_MS):
# every Settings made here, and every server process started from this environment, reads it
os.environ.setdefault("BOT_DELAY_MS", "0")
# no shedding (app/ops/pressure.py): the suite runs dozens of servers on a few cores, so a
# node here is late by the machine's doing, not its tables'; the tests of shedding set
# their limits themselves (tests/api/test_shedding.py, tests/ops/test_pressure.py)
os.environ.setdefault("SHED_LAG", "0")
os.environ.setdefault("SHED_SETTLE_AGE", "0")

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if POSTGRES_URL else [])


async def _reset_postgres(url: str) -> None:
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
        except Exception as exc:  # any failure to reach it is fatal
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


# PostgreSQL's schema as the migrations left it: (table, column) pairs and the Alembic
# version; None until migrated in this session
_postgres_at_head: tuple[frozenset[tuple[str, str]], tuple[str, ...]] | None = None

_SCHEMA = text(
    "SELECT table_name, column_name FROM information_schema.columns "
    "WHERE table_schema = 'public'"
)


async def _postgres_schema(
    conn: AsyncConnection,
) -> tuple[frozenset[tuple[str, str]], tuple[str, ...]]:
    columns = frozenset((str(t), str(c)) for t, c in (await conn.execute(_SCHEMA)).all())
    version: tuple[str, ...] = ()
    if ("alembic_version", "version_num") in columns:
        rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
        version = tuple(sorted(str(v) for v in rows.scalars()))
    return columns, version


async def _empty_postgres_at_head(url: str) -> bool:
    """Empty every table (ids restart at 1) if the schema is still the migrated one."""
    engine = create_async_engine(async_url(url), poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            if _postgres_at_head is None or await _postgres_schema(conn) != _postgres_at_head:
                return False
            tables = sorted({t for t, _ in _postgres_at_head[0]} - {"alembic_version"})
            names = ", ".join(f'"{t}"' for t in tables)
            await conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
            return True
    finally:
        await engine.dispose()


async def _remember_postgres_schema(url: str) -> None:
    global _postgres_at_head
    engine = create_async_engine(async_url(url), poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            _postgres_at_head = await _postgres_schema(conn)
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def _sqlite_at_head(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head, to copy."""
    path = tmp_path_factory.mktemp("schema") / "head.db"
    migrate.upgrade(f"sqlite:///{path}")
    return path


def migrated_database_url(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, name: str = "test.db"
) -> str:
    """A database of `backend` migrated to head, with nothing in it: a copy of the
    session's migrated SQLite file (named `name`), or PostgreSQL's tables emptied (migrated
    again only when a test changed the schema)."""
    if backend == "sqlite":
        path = tmp_path / name
        head: Path = request.getfixturevalue("_sqlite_at_head")
        with closing(sqlite3.connect(head)) as source, closing(sqlite3.connect(path)) as copy:
            source.backup(copy)  # the whole database, whatever its journal holds
        return f"sqlite:///{path}"
    assert POSTGRES_URL is not None
    if not asyncio.run(_empty_postgres_at_head(POSTGRES_URL)):
        url = empty_database_url(backend, tmp_path)
        migrate.upgrade(url)
        asyncio.run(_remember_postgres_schema(url))
    return POSTGRES_URL


@pytest.fixture
def database_url(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A database of `backend` migrated to head, with nothing in it."""
    yield migrated_database_url(backend, tmp_path, request)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database.connect(database_url)
    yield database
    await database.close()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url, jwt_secret="test-secret-" + "x" * 32, **UNBARRED_SIGNUPS
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings) as http:
        yield http
