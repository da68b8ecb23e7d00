"""The garbage collector, tuned for a server holding thousands of live hands and sockets.

CPython's cyclic collector stops the event loop while it walks the tracked objects.
`tune` moves what was allocated at start-up (imports, routes, the rule tables) out of the
collector's sight (`gc.freeze`) and raises the thresholds, so that CPython's own trigger
rarely fires; `collect_on_a_clock` then collects the two younger generations every
`every` seconds and the whole heap every `full_every` seconds (settings `gc_every`,
`gc_full_every`, `gc_full_first`).

Why a clock and not CPython's thresholds: its young generation is collected when
allocations minus deallocations of tracked objects pass the first threshold, and a
deallocation of an old object counts too. In a steady server, new state is born as old
state dies (a hand's tiles, a socket's buffers), the count stays near zero, and the young
list grows without bound: at 10,000 clients a "young" collection walked hundreds of
thousands of objects, 60-270 ms with the loop stopped, and the middle generation's after
it 300-500 ms (measured in bench/load.md, "The collector on a clock"). On a clock the young
list holds what the last tenth of a second left alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import time
from collections.abc import Callable, Iterator

from app.ops import metrics
from app.ops.tasks import running
from app.settings import GC_EVERY, GC_FULL_EVERY, GC_FULL_GROWTH, GC_THRESHOLDS

DEFAULT_THRESHOLDS = GC_THRESHOLDS
DEFAULT_EVERY = GC_EVERY  # seconds between young collections
DEFAULT_FULL_EVERY = GC_FULL_EVERY  # seconds between looks at whether to collect the whole heap
DEFAULT_FULL_GROWTH = GC_FULL_GROWTH  # ... which it does when the process grew by this share
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
NEVER = 2**30  # a threshold no count reaches


def tune(thresholds: tuple[int, int, int] = DEFAULT_THRESHOLDS) -> None:
    """Collect once, freeze what survives (start-up state) and set the thresholds; every
    collection after it is timed (`mahjong_gc_pause_seconds`)."""
    gc.collect()
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)
    gc.freeze()
    gc.set_threshold(*thresholds)


_began = 0.0  # when the collection under way began (collections never overlap)


def _timed(phase: str, info: dict[str, int]) -> None:
    global _began
    if phase == "start":
        _began = time.perf_counter()
    else:
        metrics.gc_pause(info["generation"], time.perf_counter() - _began, info["collected"])


def resident_bytes() -> int | None:
    """This process's resident memory (Linux's /proc), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return None


async def collect_on_a_clock(
    every: float, full_every: float, first_full_after: float | None = None,
    growth: float = DEFAULT_FULL_GROWTH, size: Callable[[], int | None] = resident_bytes,
) -> None:
    """Every `every` seconds collect the two younger generations (what survives goes to
    the oldest); every `full_every` seconds, the first time after `first_full_after` (by
    default a random half to all of `full_every`: processes started together should not
    all stop at the same moment), look whether the process grew by `growth` since the last
    collection of the whole heap, and only then collect the whole heap (0, or a size that
    cannot be read: every time). Runs until cancelled. Meanwhile CPython's own trigger
    never collects the whole heap (with `full_every` 0 it alone does)."""
    if first_full_after is None:
        first_full_after = full_every * random.uniform(0.5, 1.0)
    full_at = time.monotonic() + first_full_after
    since = size()  # the size after the last whole-heap collection (start-up's, frozen)
    with _whole_heap_on_the_clock() if full_every else contextlib.nullcontext():
        while True:
            await asyncio.sleep(every)
            if full_every and time.monotonic() >= full_at:
                full_at = time.monotonic() + full_every
                now = size()
                if growth <= 0 or now is None or since is None or now >= since * (1 + growth):
                    gc.collect(2)
                    since = size()
                    continue
            gc.collect(1)


def clock_running(
    every: float, full_every: float, first_full_after: float | None = None,
    growth: float = DEFAULT_FULL_GROWTH,
) -> contextlib.AbstractAsyncContextManager[None]:
    """`collect_on_a_clock` in a task for the duration of the block."""
    return running(collect_on_a_clock(every, full_every, first_full_after, growth), "collector")


_clocks = 0  # clocks running in this process (tests run several apps in one)
_oldest = 0  # the oldest generation's threshold before the first of them started


@contextlib.contextmanager
def _whole_heap_on_the_clock() -> Iterator[None]:
    """CPython's trigger never collects the oldest generation while a clock runs."""
    global _clocks, _oldest
    if _clocks == 0:
        young, middle, _oldest = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)
    _clocks += 1
    try:
        yield
    finally:
        _clocks -= 1
        if _clocks == 0:
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, _oldest)
