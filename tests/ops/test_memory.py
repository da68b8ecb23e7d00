"""The collector tuning `python -m app` applies before it serves (app/ops/memory.py)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from app.ops import memory
from app.ops.tasks import cancel_and_wait
from app.settings import Settings


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    callbacks = list(gc.callbacks)
    yield
    gc.unfreeze()
    gc.set_threshold(*before)
    gc.callbacks[:] = callbacks


def test_every_collection_after_tune_is_timed(restore_gc: None) -> None:
    """An operator sees the collector's pauses in /metrics: a whole-heap collection stops
    the event loop for about a second at 5,000 sockets (bench/load.md)."""
    def whole_heap() -> float:
        return REGISTRY.get_sample_value(
            "mahjong_gc_pause_seconds_count", {"generation": "2"}) or 0.0

    memory.tune()
    before = whole_heap()
    gc.collect(2)
    gc.collect(2)
    assert whole_heap() == before + 2
    memory.tune()  # tuned again (its own collection counted): still one timer, not two
    gc.collect(2)
    assert whole_heap() == before + 4


def test_tune_freezes_what_exists_and_sets_the_thresholds(restore_gc: None) -> None:
    memory.tune((12_345, 7, 9))
    assert gc.get_threshold() == (12_345, 7, 9)
    assert gc.get_freeze_count() > 10_000  # the test process's modules and objects
    assert gc.get_count()[0] < 100  # a fresh young generation


def test_the_thresholds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().gc_thresholds == memory.DEFAULT_THRESHOLDS
    monkeypatch.setenv("GC_THRESHOLDS", "[2000, 10, 20]")
    assert Settings().gc_thresholds == (2000, 10, 20)


class Node:
    """A tracked object that can point at itself (a reference cycle)."""

    me: object = None


async def test_young_objects_are_collected_on_the_clock_when_old_ones_die_as_fast(
    restore_gc: None,
) -> None:
    gc.set_threshold(*memory.DEFAULT_THRESHOLDS)
    old = [[i] for i in range(30_000)]
    gc.collect()
    fresh = []
    for _ in range(30_000):  # new state born as old state dies: CPython's count stays low
        fresh.append([0])
        old.pop()
    assert gc.get_count()[0] < 1_000
    assert len(gc.get_objects(0)) >= 30_000  # and nothing walks the growing young list

    clock = asyncio.create_task(memory.collect_on_a_clock(0.01, 3600))
    await asyncio.sleep(0.05)
    assert gc.get_threshold()[2] == memory.NEVER  # the whole heap only on its own clock
    clock.cancel()
    assert len(gc.get_objects(0)) + len(gc.get_objects(1)) < 5_000  # moved to the oldest
    with contextlib.suppress(asyncio.CancelledError):
        await clock
    assert gc.get_threshold() == memory.DEFAULT_THRESHOLDS


def _old_cycle() -> weakref.ref[Node]:
    """A cycle nobody reaches, in the oldest generation: only a whole-heap collection
    frees it."""
    node = Node()
    node.me = node
    gone = weakref.ref(node)
    gc.collect(1)  # alive: it goes to the oldest generation
    del node
    return gone


async def _clock_for(seconds: float, *args: float, **options: object) -> None:
    clock = asyncio.create_task(memory.collect_on_a_clock(*args, **options))  # type: ignore[arg-type]
    await asyncio.sleep(seconds)
    await cancel_and_wait([clock])


async def test_the_whole_heap_is_collected_on_its_own_clock(restore_gc: None) -> None:
    gone = _old_cycle()
    await _clock_for(0.05, 0.01, 3600)
    assert gone() is not None  # the young collections do not reach it
    await _clock_for(0.1, 0.01, 0.02, growth=0)
    assert gone() is None


async def test_the_whole_heap_waits_until_the_process_grew(restore_gc: None) -> None:
    """A steady node never stops for a whole-heap collection (a second per 5,000
    sockets): at each look the process must have grown by `growth` since the last."""
    gone = _old_cycle()
    for grown, freed in ((1000, False), (1400, False), (1600, True)):
        sizes = iter([1000])  # at the clock's start; then `grown` at each look

        def size(grown: int = grown, sizes: Iterator[int] = sizes) -> int:
            return next(sizes, grown)

        await _clock_for(0.1, 0.01, 0.02, 0.0, growth=0.5, size=size)  # about five looks
        assert (gone() is None) == freed, grown  # freed once grown by half, not by 40 %


def test_the_process_size_is_read() -> None:
    size = memory.resident_bytes()
    assert size is not None and 10 * 2**20 < size < 2**40
