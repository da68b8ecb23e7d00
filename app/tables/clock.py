"""The one clock a table reads its timers from.

The actor never sleeps: it compares deadlines with `clock.now()` whenever a `Tick` arrives.
Production uses the monotonic clock (wall-clock jumps must not fire or freeze timers);
tests use `FakeClock` and move time by hand.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a clock that never goes backwards."""
        ...


class MonotonicClock:
    """The real clock: `time.monotonic()`."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to: `advance(seconds)`."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        self._now += seconds
