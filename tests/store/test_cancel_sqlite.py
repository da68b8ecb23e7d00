"""A SQLite transaction cancelled while it waits for the write lock leaves nothing behind.

SQLAlchemy answers a statement cancelled in the driver by closing its connection: for
aiosqlite, a graceful close in a task of its own, and a forced close when the caller is
cancelled meanwhile. The graceful task then waited for the connection's thread, which the
forced close had ended: a task that never finished, and one cancel did not end it. The
suite's event loop, closing, waited for it for good (two tests hung CI for 300 s each:
a table stopped while its settlement waited for BEGIN IMMEDIATE); a server stopping would
have too. The engine closes such a connection at once, on its thread (`app/store/db.py`).
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import suppress
from pathlib import Path

from sqlalchemy import text

from app.store.db import Database


async def test_a_transaction_cancelled_waiting_for_the_lock_leaves_no_task_behind(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cancel.db"
    db = Database.connect(f"sqlite:///{path}")
    async with db.sessions() as s, s.begin():
        await s.execute(text("CREATE TABLE t (x INTEGER)"))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock: our BEGIN waits

    async def write() -> None:
        async with db.sessions() as s, s.begin():
            await s.execute(text("INSERT INTO t VALUES (1)"))

    before = asyncio.all_tasks()
    writer = asyncio.create_task(write())
    await asyncio.sleep(0.3)  # waiting in BEGIN IMMEDIATE (the busy timeout is 10 s)
    writer.cancel()
    await asyncio.sleep(0.3)  # still waiting: the driver's thread cannot be interrupted
    writer.cancel()  # cancelled again, as `cancel_and_wait` does after a second
    with suppress(asyncio.CancelledError):
        await writer
    holder.rollback()
    holder.close()

    async with db.sessions() as s, s.begin():  # the engine goes on with a new connection
        await s.execute(text("INSERT INTO t VALUES (2)"))
        assert (await s.execute(text("SELECT x FROM t"))).scalars().all() == [2]
    await db.close()

    left = asyncio.all_tasks() - before
    for task in left:
        task.cancel()  # as an event loop closing does, once
    if left:
        _, pending = await asyncio.wait(left, timeout=3)
        assert not pending, [task.get_coro() for task in pending]
