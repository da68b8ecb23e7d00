"""Waiting in tests for something to become true, with a time limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Return once `condition()` is true; fail naming `what` after `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            while not condition():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None
