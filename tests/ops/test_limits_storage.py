"""The rate-limit counters kept in memory survive a key cleared while the library's expiry
task walks the keys: a good login clears its attempts, and under the black-box run that
raised KeyError in the task, logged at ERROR ("Task exception was never retrieved")."""

from __future__ import annotations

import asyncio

import pytest
from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from app.ops.limits_storage import SafeMemoryStorage

ITEM = RateLimitItemPerSecond(5, 300, "login-pair")


async def _clear_while_expiring(storage: MemoryStorage) -> BaseException | None:
    """Attempts for two pairs; the expiry task starts on the first key and, while it waits
    for its thread, a good login clears the second: what the task ended with."""
    window = MovingWindowRateLimiter(storage)
    for user in ("alice", "bob"):
        assert await window.hit(ITEM, "127.0.0.1", user)
    timer = storage.timer  # the library's one expiry task, started by the first hit
    assert timer is not None and not timer.done()
    await asyncio.sleep(0)  # it walks the keys: in the first key's thread now
    await window.clear(ITEM, "127.0.0.1", "bob")
    await asyncio.wait([timer])
    return timer.exception()


async def test_the_librarys_own_storage_fails_so() -> None:
    """The defect itself, so that this test notices when the library fixes it."""
    with pytest.raises(KeyError):
        error = await _clear_while_expiring(MemoryStorage())
        if error is not None:
            raise error


async def test_a_key_cleared_while_the_keys_expire_breaks_nothing() -> None:
    storage = SafeMemoryStorage()
    assert await _clear_while_expiring(storage) is None
    window = MovingWindowRateLimiter(storage)
    stats = await window.get_window_stats(ITEM, "127.0.0.1", "bob")
    assert stats.remaining == 5  # cleared: every attempt back
    stats = await window.get_window_stats(ITEM, "127.0.0.1", "alice")
    assert stats.remaining == 4  # the other pair's attempt still counted
