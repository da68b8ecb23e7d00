"""The database's own event loop, in a thread of its own, with its own connections: where
the hands' results are stored on a busy node (`DatabaseThread`; docs/architecture.md,
"Settlement bursts").

A statement's answer is read by the event loop that sent it. On the tables' loop, when
thousands of hands end at once, every pass of that loop runs hundreds of other tables'
callbacks first: a batch of a few statements waited a pass for each answer, 0.5 s at the
median and 2.4 s at p99 while the loop was on its CPU 90 % of the time (bench/load.md,
"Issue 35"). On a loop of its own the answer is read as soon as the thread gets the
interpreter back: within CPython's switch interval (5 ms), however busy the tables' loop is.
The work itself (making up the rows, the ORM) still takes the interpreter's lock, and so a
share of the same CPU: what moves is the waiting, not the work.

Only for a database that takes several connections (PostgreSQL): SQLite has one writer and
the engine one connection (app/store/db.py); a second engine's writes would contend for its
write lock with the first's.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.db import Database

T = TypeVar("T")
Work = Callable[[async_sessionmaker[AsyncSession]], Coroutine[Any, Any, T]]


class DatabaseThread:
    """An event loop in a daemon thread holding a `Database` of `url` (`pool` connections
    kept, as many more at a peak): `run(work)` runs `work(sessions)` there and answers, on
    the caller's loop, what it answered or raised. Cancelling the caller cancels the work."""

    def __init__(self, url: str, pool: int, name: str = "database") -> None:
        self._url = url
        self._pool = pool
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._db: Database | None = None

    async def start(self) -> None:
        """Start the thread and connect its engine (on its own loop: a connection belongs
        to the loop that opened it)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=self._name,
                                        daemon=True)
        self._thread.start()
        self._db = await self._there(self._connect())

    async def _connect(self) -> Database:
        return Database.connect(self._url, self._pool)

    async def run(self, work: Work[T]) -> T:
        """`work(sessions)` on the thread's loop, with the thread's sessions."""
        if self._db is None:
            raise RuntimeError("the database thread is not started")
        return await self._there(work(self._db.sessions))

    async def stop(self) -> None:
        """Close the thread's connections, stop its loop and wait for the thread."""
        loop, thread, db = self._loop, self._thread, self._db
        self._loop = self._thread = self._db = None
        if loop is None or thread is None:
            return
        try:
            if db is not None:
                await self._there(db.close(), loop)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            await asyncio.to_thread(thread.join)
            loop.close()

    async def _there(
        self, coroutine: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop | None = None
    ) -> T:
        loop = loop or self._loop
        assert loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))
