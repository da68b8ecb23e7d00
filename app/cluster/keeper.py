"""Lease renewal off the event loop: a thread of the node renews every lease it holds each
third of the TTL, with a Redis connection of its own, while the node's event loop shows
progress (a beat it sets every third of the TTL) within `stall_seconds`.

Why a thread: a renewal queued behind game work comes late on a busy node (a burst of
hand endings holds the loop for seconds), the leases expire and the node's tables move to
another node mid-hand, which is worse for everyone than the busy node going on. A dead
process still loses its leases after the TTL (its thread dies with it); a process whose
loop stopped making progress (stuck) loses them once its beat is `stall_seconds` old.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator

from redis import Redis as SyncRedis
from redis.exceptions import RedisError

from app.cluster.lease import RENEW_MANY, Lease, Leases
from app.ops import metrics
from app.ops.tasks import cancel_and_wait

log = logging.getLogger(__name__)


class LeaseKeeper:
    """`held()` is read from the thread (a list copied in one C call: safe under the GIL);
    `lost(lease)` runs on the loop for each lease Redis no longer holds for us."""

    def __init__(
        self,
        url: str,
        leases: Leases,
        held: Callable[[], list[Lease]],
        lost: Callable[[Lease], None],
        stall_seconds: float,
    ) -> None:
        self._url = url
        self._leases = leases
        self._held = held
        self._lost = lost
        self._stall = stall_seconds
        self._interval = leases.ttl_ms / 3000
        self._beat = time.monotonic()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._beats: asyncio.Task[None] | None = None
        self.renewals = 0  # rounds that reached Redis (for tests and operators)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._beat = time.monotonic()
        self._beats = asyncio.create_task(self._beat_forever(), name="cluster-beat")
        self._thread = threading.Thread(
            target=self._run, args=(loop,), name="cluster-leases", daemon=True
        )
        self._thread.start()

    async def stop(self) -> None:
        self._stopping.set()
        if self._beats is not None:
            await cancel_and_wait([self._beats])
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)
            self._thread = None

    async def _beat_forever(self) -> None:
        while True:
            self._beat = time.monotonic()
            await asyncio.sleep(self._interval)

    def _rounds(self) -> Iterator[None]:
        """One item per renewal round, every third of the TTL until stopped. The rounds keep
        a cadence: a slow one (the GIL shared with a busy loop, a collection) does not push
        the next one later by its own length, and one that is late runs at once."""
        due = time.monotonic()
        while True:
            due = max(due + self._interval, time.monotonic())
            if self._stopping.wait(due - time.monotonic()):
                return
            yield

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        redis = SyncRedis.from_url(self._url)
        renew = redis.register_script(RENEW_MANY)
        stalled = False
        try:
            for _ in self._rounds():
                if loop.is_closed():  # the node was never stopped: nothing to renew for
                    return
                behind = time.monotonic() - self._beat
                if behind > self._stall:
                    if not stalled:
                        log.error("the event loop made no progress for %.1f s: leases are "
                                  "no longer renewed", behind)
                    stalled = True
                    continue
                stalled = False
                held = self._held()
                try:
                    for batch, keys, args in self._leases.renew_calls(held):
                        for lease, ok in zip(batch, renew(keys=keys, args=args)):
                            if not ok:
                                loop.call_soon_threadsafe(self._lost, lease)
                    self.renewals += 1
                except (RedisError, OSError) as exc:  # Redis away: again next time
                    metrics.redis_error("leases")
                    log.warning("renewing leases failed: %s", exc)
                except RuntimeError:  # the loop closed under us: the node is gone
                    return
        finally:
            redis.close()
