"""Stopping background tasks (app/ops/tasks.py): a stop that returns, even when a task lost
its cancellation."""

from __future__ import annotations

import asyncio

import pytest

from app.ops.tasks import cancel_and_wait


async def _swallows_one_cancellation(cleaned_up: asyncio.Event) -> None:
    """Like a loop whose library call caught the CancelledError meant for it."""
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        cleaned_up.set()  # and, wrongly, no raise
    while True:
        await asyncio.sleep(30)


async def test_a_task_that_lost_its_cancellation_is_cancelled_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    cleaned_up = asyncio.Event()
    stubborn = asyncio.create_task(_swallows_one_cancellation(cleaned_up), name="stubborn")
    plain = asyncio.create_task(asyncio.sleep(30))
    await asyncio.sleep(0)
    async with asyncio.timeout(5):
        await cancel_and_wait([stubborn, plain], retry=0.05)
    assert cleaned_up.is_set()
    assert stubborn.cancelled() and plain.cancelled()
    assert "task stubborn went on after it was cancelled" in caplog.text


async def test_finished_and_failed_tasks_are_waited_for_quietly() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    failed = asyncio.create_task(fails())
    done = asyncio.create_task(asyncio.sleep(0))
    await asyncio.sleep(0.01)
    async with asyncio.timeout(5):
        await cancel_and_wait([failed, done])  # no raise: what they raised is dropped
    assert isinstance(failed.exception(), RuntimeError) and done.done()
