"""PostgreSQL connections in the pool: one that sat unused for a while is checked before
use, so a database restarted meanwhile costs no request an error; one handed back moments
ago is used at once (checking every checkout took three round trips on asyncpg and
doubled a short read's cost in a burst of hand endings)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection

from app.store import db as db_module
from app.store.db import Database
from tests.conftest import POSTGRES_URL

pytestmark = pytest.mark.skipif(POSTGRES_URL is None, reason="PostgreSQL only (TEST_DATABASE_URL)")


async def _backend(db: Database) -> int:
    async with db.sessions() as s, s.begin():
        return int((await s.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def test_a_connection_the_database_dropped_while_idle_is_replaced_unseen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert POSTGRES_URL is not None
    monkeypatch.setattr(db_module, "IDLE_PING_SECONDS", 0.0)  # idle long enough at once
    db, other = Database.connect(POSTGRES_URL), Database.connect(POSTGRES_URL)
    try:
        first = await _backend(db)
        async with other.sessions() as s, s.begin():  # as a restart would
            await s.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        assert await _backend(db) != first  # answered, on a new connection
    finally:
        await db.close()
        await other.close()


async def test_a_connection_handed_back_moments_ago_is_not_pinged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert POSTGRES_URL is not None
    pings = 0
    real = AsyncAdapt_asyncpg_connection.ping

    def counted(self: Any) -> None:
        nonlocal pings
        pings += 1
        real(self)

    monkeypatch.setattr(AsyncAdapt_asyncpg_connection, "ping", counted)
    db = Database.connect(POSTGRES_URL)
    try:
        backends = {await _backend(db) for _ in range(20)}
        assert len(backends) == 1 and pings == 0
        monkeypatch.setattr(db_module, "IDLE_PING_SECONDS", 0.0)
        await _backend(db)
        assert pings == 1
    finally:
        await db.close()
