"""A running server collects its young objects on a clock (app/ops/memory.py), whatever
CPython's own count says."""

from __future__ import annotations

import asyncio
import gc

from fastapi import FastAPI

from app.ops import memory


async def test_the_server_collects_its_young_objects_on_a_clock(app: FastAPI) -> None:
    assert gc.get_threshold()[2] == memory.NEVER  # the whole heap only on the clock
    old = [[i] for i in range(30_000)]
    gc.collect()
    fresh = []
    for _ in range(30_000):  # CPython's count stays low: nothing of its own would walk these
        fresh.append([0])
        old.pop()
    assert len(gc.get_objects(0)) >= 30_000

    await asyncio.sleep(3 * memory.DEFAULT_EVERY)
    assert len(gc.get_objects(0)) + len(gc.get_objects(1)) < 5_000
