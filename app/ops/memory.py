"""The garbage collector, tuned for a server holding hundreds of live hands.

CPython's cyclic collector stops the event loop while it walks the tracked objects. With
the default thresholds (700, 10, 10) a node with 500 busy tables ran a full collection
every ~3 s, each over 60k-380k objects and 100-190 ms of CPU: every action in flight then
waited that long, which was the p99 of the action-to-broadcast latency. `tune` moves what
was allocated at start-up (imports, routes, the rule tables) out of the collector's sight
(`gc.freeze`) and makes the youngest generation larger, so that a hand's short-lived
objects die by reference counting before they are promoted, and older generations are
walked rarely (measured in bench/load.md).
"""

from __future__ import annotations

import gc

DEFAULT_THRESHOLDS = (50_000, 10, 10)


def tune(thresholds: tuple[int, int, int] = DEFAULT_THRESHOLDS) -> None:
    """Collect once, freeze what survives (start-up state) and set the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
