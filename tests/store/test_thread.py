"""The database's own loop (app/store/thread.py): the hands' results are stored there, so a
statement's answer is read while the tables' loop is busy, even while it cannot run at all."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.store.models import Account
from app.store.thread import DatabaseThread


async def test_a_store_goes_on_while_the_callers_loop_is_blocked(database_url: str) -> None:
    thread = DatabaseThread(database_url, pool=1)
    await thread.start()
    answered = threading.Event()
    where: list[str] = []

    async def count_accounts(sessions: async_sessionmaker[AsyncSession]) -> int:
        async with sessions() as session:
            n = (await session.execute(select(func.count()).select_from(Account))).scalar_one()
        where.append(threading.current_thread().name)
        answered.set()
        return int(n)

    try:
        counted = asyncio.ensure_future(thread.run(count_accounts))
        await asyncio.sleep(0)  # handed to the thread
        # the caller's loop is stopped here, as a loop busy with thousands of tables is:
        # the statement is sent, answered and read all the same
        assert answered.wait(timeout=30)
        assert await counted == 0
        assert where == ["database"]
    finally:
        await thread.stop()


async def test_what_the_work_raises_reaches_the_caller(database_url: str) -> None:
    thread = DatabaseThread(database_url, pool=1)
    await thread.start()

    async def fails(_sessions: async_sessionmaker[AsyncSession]) -> None:
        raise LookupError("no such hand")

    try:
        with pytest.raises(LookupError, match="no such hand"):
            await thread.run(fails)
    finally:
        await thread.stop()


async def test_cancelling_the_caller_cancels_the_work(database_url: str) -> None:
    thread = DatabaseThread(database_url, pool=1)
    await thread.start()
    began, cancelled = threading.Event(), threading.Event()

    async def waits(_sessions: async_sessionmaker[AsyncSession]) -> None:
        began.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    try:
        caller = asyncio.ensure_future(thread.run(waits))
        await asyncio.to_thread(began.wait, 30)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        assert await asyncio.to_thread(cancelled.wait, 30)
    finally:
        await thread.stop()


async def test_a_thread_not_started_refuses_work(database_url: str) -> None:
    thread = DatabaseThread(database_url, pool=1)

    async def nothing(_sessions: async_sessionmaker[AsyncSession]) -> None:
        return None

    with pytest.raises(RuntimeError, match="not started"):
        await thread.run(nothing)
    await thread.stop()  # nothing to stop: no error
