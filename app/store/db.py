"""The database engine and sessions: SQLite (WAL, busy timeout) by default, PostgreSQL when
the URL says so. Both through SQLAlchemy's asyncio layer.

SQLite has one writer at a time, and every transaction here takes the write lock at its
start, so the engine keeps one connection and the sessions wait for it in the order they
asked. With several connections each waiter polled SQLite's busy handler, which favours
whoever asks at the right moment: under a stream of hand settlements a sign-up or a table
creation waited past the 10 s busy timeout now and then (the API answered `busy`).

Text with a NUL character (U+0000) is refused before any statement runs (`NulCharacter`), on
every backend alike: PostgreSQL cannot store or even compare one (its driver fails), while
SQLite would take it. The API answers it as `validation_error`.

A SQLite database file is made readable and writable by its owner only (mode 0600) before
SQLite opens it (`private_sqlite_file`): it holds the accounts' password hashes, and
SQLite would make it with the process's umask, readable by every user of the machine as a
rule. Its -wal and -shm files take the database file's mode (SQLite's own rule)."""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def async_url(url: str) -> str:
    """The asyncio driver URL for a plain one: sqlite:// -> sqlite+aiosqlite://,
    postgresql:// -> postgresql+asyncpg://."""
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url.removeprefix("sqlite://")
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url.removeprefix(prefix)
    return url


log = logging.getLogger(__name__)


def private_sqlite_file(url: str) -> None:
    """Make the SQLite database file of `url` with mode 0600 when it does not exist yet
    (the module's docstring). Nothing for another database, an in-memory one, a URI
    filename, or a folder that does not exist (SQLite then says so itself). An existing
    file readable by others is left as the operator made it, with a warning."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return
    if database.startswith("file:"):
        return
    try:
        fd = os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = os.stat(database).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("the database %s (password hashes included) can be read by other "
                        "users of this machine: chmod 600 %s", database, database)
        return
    except FileNotFoundError:
        return
    os.close(fd)  # an empty file is an empty SQLite database


def sync_url(url: str) -> str:
    """The URL Alembic's offline tools and plain scripts understand (same driver family)."""
    return async_url(url)


class NulCharacter(ValueError):
    """A statement's parameter is text with a NUL character."""


def _has_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, (list, tuple)):
        return any(_has_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nul(item) for item in value.values())
    return False


def _refuse_nul(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _before(
        _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        if _has_nul(parameters):
            raise NulCharacter("text may not contain the NUL character (U+0000)")


def _sqlite_pragmas(engine: AsyncEngine) -> None:
    """WAL, a busy timeout and foreign keys on every connection; write transactions take
    the lock at BEGIN (BEGIN IMMEDIATE) so that two writers queue instead of deadlocking."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # let SQLAlchemy's BEGIN below run
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    engine.sync_engine.dialect.do_terminate = _close_at_once  # type: ignore[method-assign]


def _close_at_once(dbapi_connection: Any) -> None:
    """Close a connection SQLAlchemy gives up on (a statement cancelled in the driver) on its
    own thread, without waiting. SQLAlchemy's way for aiosqlite, a graceful close in a task of
    its own and a forced one if its caller is cancelled meanwhile, left that task waiting
    for a thread the forced close had ended: forever, and one cancel did not end it, so an
    event loop closing waited for it for good (tests/store/test_cancel_sqlite.py). A
    file's connection has nothing to say goodbye to: SQLite rolls back what was not
    committed when it closes."""
    dbapi_connection._terminate_force_close()


IDLE_PING_SECONDS = 5.0


def _ping_when_idle(engine: AsyncEngine) -> None:
    """Check a pooled connection before use if it sat unused for `IDLE_PING_SECONDS`: a
    database restarted meanwhile would otherwise fail its next statement. SQLAlchemy's own
    `pool_pre_ping` pings at every checkout, three round trips on asyncpg (a transaction
    around the ping), which doubled a short read's cost in a burst of hand endings; a
    connection handed back moments ago is as alive as the ping would say. One that fails
    the ping is replaced (`DisconnectionError`: the pool opens a new one)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connected(_dbapi_connection: Any, record: Any) -> None:
        record.info["returned"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info["returned"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("returned", 0.0) < IDLE_PING_SECONDS:
            return
        try:
            dbapi_connection.ping()
        except Exception as error:
            raise DisconnectionError("the pooled connection is gone") from error


@dataclass
class Database:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    @classmethod
    def connect(cls, url: str) -> Database:
        private_sqlite_file(url)
        url = async_url(url)
        kwargs: dict[str, Any] = {}
        if url.startswith("postgresql"):
            kwargs.update(pool_size=20, max_overflow=20)
        elif url.startswith("sqlite"):
            # every transaction takes the file's write lock (BEGIN IMMEDIATE): one connection,
            # whose waiters queue in order, instead of several polling SQLite's busy handler
            kwargs.update(pool_size=1, max_overflow=0)
        engine = create_async_engine(url, **kwargs)
        _refuse_nul(engine)
        if engine.dialect.name == "sqlite":
            _sqlite_pragmas(engine)
        else:
            _ping_when_idle(engine)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False))

    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session:
            yield session

    async def close(self) -> None:
        await self.engine.dispose()
