"""Is this node too busy to take new work? (docs/architecture.md, "Overload sheds")

A node whose event loop cannot keep up makes every table on it slower together; nothing
refuses the next table, so the next one makes it worse. So the node watches itself and,
while it is too busy, takes no new work: no new table, room, sit or quick-match group
(503 `busy` with Retry-After; the lobby says so, and another node of the cluster takes
them), while the tables already playing keep the loop to themselves. It takes work again
by itself once it has been calm for a while.

Signals, read every `PERIOD` over the last `window` seconds:

- **loop lag**: how late the sampler's timers fire, on average over the time (each
  lateness weighted by the time since the reading before it, so that a loop stalled one
  second of two reads about half a second, not one late timer among forty); a quiet loop
  reads well under a millisecond, a loop that cannot keep up what every callback waits;
- **settlement age**: how long the oldest ended hand has waited to be stored (a
  database that cannot keep up: results a player waits for);
- **CPU**: the share of a core this process used. Reported, and a limit only when set
  (`shed_cpu`): a worker's CPU says how much it works, not how late its tables are; on a
  machine shared with other work it falls while its tables get later.

Busy when any signal is over its limit; calm again when every signal has stayed under half
its limit for `calm` seconds (so a node does not flap at its edge). `judge` is the
decision, pure; `Pressure` the sampler around it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from app.ops import metrics
from app.ops.tasks import running

PERIOD = 0.05  # seconds between the sampler's readings


@dataclass(frozen=True)
class Limits:
    """When a node sheds (settings `shed_*`); a limit of 0 is not used."""

    lag: float = 0.03  # seconds: the loop's mean lateness over the window
    settle_age: float = 5.0  # seconds: the oldest ended hand waiting to be stored
    cpu: float = 0.0  # share of one core over the window
    window: float = 2.0  # seconds the readings are taken over
    calm: float = 5.0  # seconds under half of every limit before new work is taken again


@dataclass(frozen=True)
class Reading:
    lag: float
    settle_age: float
    cpu: float


@dataclass(frozen=True)
class State:
    busy: bool = False
    calm_since: float | None = None  # while busy: when every signal fell under half
    why: tuple[str, ...] = ()  # the signals over their limit when it became busy


def over(reading: Reading, limits: Limits, share: float = 1.0) -> tuple[str, ...]:
    """The signals over `share` of their limit."""
    pairs = (("lag", reading.lag, limits.lag), ("settle_age", reading.settle_age,
             limits.settle_age), ("cpu", reading.cpu, limits.cpu))
    return tuple(name for name, value, limit in pairs if limit > 0 and value > share * limit)


def judge(state: State, reading: Reading, limits: Limits, now: float) -> State:
    """The node's state after `reading` at `now`."""
    hot = over(reading, limits)
    if hot:
        return State(True, None, hot if not state.busy else state.why)
    if not state.busy:
        return state
    if over(reading, limits, 0.5):
        return State(True, None, state.why)
    calm_since = state.calm_since if state.calm_since is not None else now
    if now - calm_since >= limits.calm:
        return State()
    return State(True, calm_since, state.why)


class Pressure:
    """This node's load, sampled by `running`; `busy` says whether to take new work."""

    def __init__(
        self, limits: Limits, settle_age: Callable[[], float] = lambda: 0.0,
        clock: Callable[[], float] = time.monotonic,
        cpu_clock: Callable[[], float] = time.process_time,
    ) -> None:
        self.limits = limits
        self._settle_age = settle_age
        self._clock = clock
        self._cpu_clock = cpu_clock
        self.state = State()
        self.reading = Reading(0.0, 0.0, 0.0)
        self._lags: deque[tuple[float, float, float]] = deque()  # (when, lateness, span)
        self._cpu: deque[tuple[float, float]] = deque()  # (when, process CPU seconds)

    @property
    def busy(self) -> bool:
        return self.state.busy

    def retry_after(self) -> int:
        """Seconds a refused caller should wait: at least the calm time still to come."""
        left = self.limits.calm
        if self.state.calm_since is not None:
            left -= self._clock() - self.state.calm_since
        return max(1, math.ceil(left))

    def note(self, lateness: float) -> None:
        """One timer of the sampler fired `lateness` seconds late: read the signals over
        the window and judge."""
        now = self._clock()
        start = now - self.limits.window
        late = max(0.0, lateness)
        span = now - self._lags[-1][0] if self._lags else late
        self._lags.append((now, late, span))
        self._cpu.append((now, self._cpu_clock()))
        while self._lags[0][0] < start:
            self._lags.popleft()
        while len(self._cpu) > 1 and self._cpu[0][0] < start:
            self._cpu.popleft()
        spans = sum(span for _, _, span in self._lags)
        lag = sum(late * span for _, late, span in self._lags) / spans if spans > 0 else late
        (first, cpu_first), (last, cpu_last) = self._cpu[0], self._cpu[-1]
        cpu = (cpu_last - cpu_first) / (last - first) if last > first else 0.0
        self.reading = Reading(lag, self._settle_age(), cpu)
        was = self.state.busy
        self.state = judge(self.state, self.reading, self.limits, now)
        metrics.pressure(lag, cpu, self.reading.settle_age, self.state.busy,
                         became_busy=self.state.busy and not was)

    async def sample_forever(self, period: float = PERIOD) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + period
            await asyncio.sleep(period)
            self.note(loop.time() - due)

    def running(self, period: float = PERIOD) -> contextlib.AbstractAsyncContextManager[None]:
        """The sampler in a task for the duration of the block."""
        return running(self.sample_forever(period), "pressure")


NEVER_BUSY = Pressure(Limits(lag=0.0, settle_age=0.0, cpu=0.0))
"""A node that never sheds (the registry's until the app gives it its own)."""
