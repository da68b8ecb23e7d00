"""Login rate limiting (登录限流): at most `attempts` failed logins per key (a username, a
client address) within a sliding window of `window_seconds`; past that, logins with that key
are refused until the oldest failure leaves the window.

`AttemptLimiter` is the interface; `MemoryAttemptLimiter` keeps the failures in this process
(enough for one server). A Redis version (a sorted set per key) can replace it without
touching the login endpoint.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol


class AttemptLimiter(Protocol):
    async def retry_after(self, key: str) -> int | None:
        """Seconds until `key` may try again, or None when it may try now."""
        ...

    async def failed(self, key: str) -> None:
        """Record one failed attempt for `key`."""
        ...

    async def reset(self, key: str) -> None:
        """Forget the failures of `key` (after a good login)."""
        ...


class MemoryAttemptLimiter:
    """Failures per key as timestamps in a deque; old ones are dropped as they expire, and
    when more than `sweep_above` keys are kept, every expired key is dropped at once. No
    method awaits, so each runs whole on the event loop without a lock."""

    def __init__(
        self,
        attempts: int,
        window_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        sweep_above: int = 100_000,
    ) -> None:
        self.attempts = attempts
        self.window = window_seconds
        self.clock = clock
        self.sweep_above = sweep_above
        self._failures: dict[str, deque[float]] = {}

    def _live(self, key: str, now: float) -> deque[float]:
        failures = self._failures.get(key)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        if not failures:
            del self._failures[key]
        return failures

    async def retry_after(self, key: str) -> int | None:
        now = self.clock()
        failures = self._live(key, now)
        if len(failures) < self.attempts:
            return None
        oldest_counted = failures[len(failures) - self.attempts]
        return max(1, math.ceil(oldest_counted + self.window - now))

    async def failed(self, key: str) -> None:
        now = self.clock()
        if len(self._failures) > self.sweep_above:
            for stale in list(self._failures):
                self._live(stale, now)
        self._live(key, now)
        self._failures.setdefault(key, deque()).append(now)

    async def reset(self, key: str) -> None:
        self._failures.pop(key, None)


SWEEP_ABOVE = 100_000  # keys kept before every expired one is dropped at once


class MemoryQuota:
    """At most `limit` units per key within a sliding window of `window_seconds`, in this
    process (the lobby's bot seats per account and hour). `retry_after` asks whether `units`
    more fit; `spend` records them. No method awaits, so each runs whole on the event loop."""

    def __init__(
        self, limit: int, window_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window_seconds
        self.clock = clock
        self._spent: dict[str, deque[tuple[float, int]]] = {}

    def _live(self, key: str, now: float) -> deque[tuple[float, int]]:
        spent = self._spent.get(key)
        if spent is None:
            return deque()
        while spent and spent[0][0] <= now - self.window:
            spent.popleft()
        if not spent:
            del self._spent[key]
        return spent

    def used(self, key: str) -> int:
        return sum(units for _, units in self._live(key, self.clock()))

    def retry_after(self, key: str, units: int) -> int | None:
        """Seconds until `units` more fit for `key` (None: they fit now; never fitting, as
        more than `limit`: the whole window)."""
        now = self.clock()
        spent = self._live(key, now)
        over = sum(u for _, u in spent) + units - self.limit
        if over <= 0:
            return None
        for at, u in spent:
            over -= u
            if over <= 0:
                return max(1, math.ceil(at + self.window - now))
        return math.ceil(self.window)

    def spend(self, key: str, units: int) -> None:
        if units > 0:
            now = self.clock()
            if len(self._spent) > SWEEP_ABOVE:
                for stale in list(self._spent):
                    self._live(stale, now)
            self._live(key, now)
            self._spent.setdefault(key, deque()).append((now, units))
