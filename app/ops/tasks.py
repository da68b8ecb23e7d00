"""Background tasks: run for the duration of a block, and stopped for good."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Collection, Coroutine
from typing import Any

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0


async def cancel_and_wait(
    tasks: Collection[asyncio.Task[Any]], retry: float = RETRY_SECONDS
) -> None:
    """Cancel `tasks` and wait until every one has ended; what they raised is dropped.

    A cancellation can be lost in library code that catches `CancelledError` (while it
    cleans up a connection, say): a node's leaderboard loop was found asleep in its next
    round after `stop()` had cancelled it, and `stop()` waited for it forever (with
    PostgreSQL and Redis, about once in a few dozen starts and stops). So a task still
    running `retry` seconds after its cancellation is cancelled again, with a warning,
    until it ends.
    """
    pending = {task for task in tasks if not task.done()}
    for task in pending:
        task.cancel()
    while pending:
        _, pending = await asyncio.wait(pending, timeout=retry)
        for task in pending:
            log.warning("task %s went on after it was cancelled: cancelled again", task.get_name())
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)  # retrieves every outcome


@contextlib.asynccontextmanager
async def running(work: Coroutine[Any, Any, None], name: str) -> AsyncIterator[None]:
    """`work` in a task of its own for the duration of the block, then stopped."""
    task = asyncio.create_task(work, name=name)
    try:
        yield
    finally:
        await cancel_and_wait([task])
