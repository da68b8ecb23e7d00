"""The collector tuning `python -m app` applies before it serves (app/ops/memory.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from app.ops import memory
from app.settings import Settings


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_freezes_what_exists_and_sets_the_thresholds(restore_gc: None) -> None:
    memory.tune((12_345, 7, 9))
    assert gc.get_threshold() == (12_345, 7, 9)
    assert gc.get_freeze_count() > 10_000  # the test process's modules and objects
    assert gc.get_count()[0] < 100  # a fresh young generation


def test_the_thresholds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().gc_thresholds == memory.DEFAULT_THRESHOLDS
    monkeypatch.setenv("GC_THRESHOLDS", "[2000, 10, 20]")
    assert Settings().gc_thresholds == (2000, 10, 20)
