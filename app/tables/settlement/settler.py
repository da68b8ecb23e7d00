"""Hands waiting to be stored, stored together: the registry's queue of ended hands
(docs/architecture.md, "Settlement bursts").

A hand handed to `Settler.store` waits for a free runner; a runner takes every hand waiting
then (at most `batch`) and stores them in one call (`results.store_hands`: one transaction
for most of them). At most `runners` batches are stored at once, each when the event loop has
room for it (`loop_room`: the tables' own work first), for at most `DEFER_SECONDS` counted
from when its oldest hand came (a hand that waited that long for a runner is not deferred
again). One hand ending alone is stored at
once, alone; a burst of endings is stored a batch at a time, in a few statements
per batch instead of per hand, so it costs the event loop and the database a fraction and
every other table's actions go on between its steps.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence

from app.ops import metrics
from app.ops.tasks import cancel_and_wait
from app.tables.settlement.results import Job, Stored

log = logging.getLogger(__name__)

StoreMany = Callable[[Sequence[Job]], Awaitable[list[Stored | None | Exception]]]


BUSY_SECONDS = 0.005
"""A pass of the event loop longer than this means the loop has more to do than it can do
at once (a quiet node's pass takes well under a millisecond)."""
DEFER_SECONDS = 0.5
"""The longest a hand waits, from its end, before its batch no longer waits for the loop to
have room (a loop never idle stores all the same). Counted per batch from when it began to
wait, a burst's last hands waited it once per batch ahead of them: seconds."""


async def loop_room(busy: float = BUSY_SECONDS, defer: float = DEFER_SECONDS) -> None:
    """Wait, up to `defer` seconds, until a pass of the event loop takes less than `busy`:
    the tables' actions first, then the hands waiting to be stored. When thousands of hands
    end at once, their tables' own work (the escapes, the messages) fills the loop for a
    moment; a batch stored in that moment would make it longer, and every other table's
    action waits behind all of it."""
    loop = asyncio.get_running_loop()
    until = loop.time() + defer
    while True:
        started = loop.time()
        await asyncio.sleep(0)  # the end of the queue: back after one pass of the loop
        now = loop.time()
        if now - started < busy or now >= until:
            return
        await asyncio.sleep(min(busy, until - now))


class Settler:
    def __init__(
        self, store: StoreMany, *, batch: int = 32, runners: int = 2,
        loop_room: Callable[[float], Awaitable[None]] = lambda defer: loop_room(defer=defer),
        defer: float = DEFER_SECONDS,
    ) -> None:
        self._store = store
        self.batch = batch
        self.runners = runners
        self._loop_room = loop_room  # given the seconds it may wait at most
        self.defer = defer
        # each waiting hand, its caller's future and when it came
        self._waiting: deque[tuple[Job, asyncio.Future[Stored | None], float]] = deque()
        self._running: set[asyncio.Task[None]] = set()

    async def store(self, job: Job) -> Stored | None:
        """Store `job`'s hand with whatever else waits: its outcome (None: the store
        function declined it), or raise what failed it. Cancelling the caller leaves the
        hand in its batch (stored all the same: the store is idempotent, whoever stores
        the hand again)."""
        future: asyncio.Future[Stored | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((job, future, time.monotonic()))
        metrics.settle_queued(len(self._waiting))
        if len(self._running) < self.runners:
            task = asyncio.create_task(self._run(), name="settler")
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return await future

    async def _run(self) -> None:
        while self._waiting:
            waited = time.perf_counter()
            await self._loop_room(max(0.0, self.defer - self.oldest_wait()))
            if not self._waiting:
                return
            taken = [self._waiting.popleft() for _ in range(min(self.batch, len(self._waiting)))]
            metrics.settle_queued(len(self._waiting))
            started = time.perf_counter()
            try:
                outcomes: Sequence[Stored | None | Exception] = await self._store(
                    [job for job, _, _ in taken]
                )
            except Exception as error:  # store_hands answers per hand; this is a bug
                log.exception("storing a batch of %d hands failed", len(taken))
                outcomes = [error] * len(taken)
            metrics.settle_batch(len(taken), started - waited, time.perf_counter() - started)
            for (_, future, _), outcome in zip(taken, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, Exception):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)

    def oldest_wait(self) -> float:
        """Seconds the first hand waiting for its turn has waited (0: none waits)."""
        return time.monotonic() - self._waiting[0][2] if self._waiting else 0.0

    async def stop(self, grace: float) -> None:
        """Let the batches being stored (and those waiting) finish for up to `grace`
        seconds, then cancel them: a hand not stored then was never shown as settled."""
        running = set(self._running)
        if not running:
            return
        _, pending = await asyncio.wait(running, timeout=grace)
        await cancel_and_wait(pending)
