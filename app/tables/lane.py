"""The endings' lane: the work of a hand's ending, let through a few tables per pass of the
event loop (docs/architecture.md, "Settlement bursts").

An event loop runs, in each pass, every callback that was ready when the pass began. When
hundreds of hands end at once (a burst of escapes, a batch of stored results, the deals
after them), hundreds of table actors are ready in the same pass, each with a millisecond
or more of work (the hand's end, its events and `table_state` to four sockets), and an
action of any other table waits behind all of it: a second, for 625 escapes. No player's
turn waits for an ending, so the endings take turns: `Lane.turn` returns at once while
fewer than `per_pass` tables went through in this pass, and otherwise when a later pass
lets the caller through. Every pass then carries at most `per_pass` endings beside the
play, and the burst is spread over as many passes as it needs; a table that ends alone
never waits.

Not every ending is waited for alike (`Ending`): a stored result is what its four players
are staring at a finished hand for, so the waiting results go through first, then the
escapes, then the deals; each kind in the order it came.
"""

from __future__ import annotations

import asyncio
from collections import deque
from enum import IntEnum

ENDINGS_PER_PASS = 2
"""Tables whose ending runs in one pass of the loop: an ending costs about a millisecond
of a node's CPU with its messages, so a pass carries a few milliseconds of them at most."""


class Ending(IntEnum):
    """What an ending waiting in the lane is, the first let through first."""

    RESULT = 0  # a stored hand's result, to be shown
    ESCAPE = 1  # 逃跑: a leave during a hand, which ends it
    DEAL = 2  # the next hand, to be dealt


def _queues() -> tuple[deque[asyncio.Future[None]], ...]:
    return tuple(deque() for _ in Ending)


class Lane:
    def __init__(self, per_pass: int = ENDINGS_PER_PASS) -> None:
        self.per_pass = per_pass  # 0: no limit, every ending runs when it comes
        self._waiting = _queues()  # by `Ending`
        self._through = 0  # callers let through in the current pass
        self._ticking = False  # `_pass` is scheduled for the next pass
        self._loop: asyncio.AbstractEventLoop | None = None  # where `_pass` is scheduled

    async def turn(self, kind: Ending) -> None:
        """Return once the caller may run its ending: now, or in a later pass of the loop."""
        if self.per_pass <= 0:
            return
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop (a restarted app): nothing of the old one
            self._loop, self._waiting, self._through, self._ticking = loop, _queues(), 0, False
        if not any(self._waiting) and self._through < self.per_pass:
            self._through += 1
            self._tick()
            return
        future = loop.create_future()
        self._waiting[kind].append(future)
        self._tick()
        await future  # a caller cancelled meanwhile is skipped by `_pass`

    def _tick(self) -> None:
        if not self._ticking:
            assert self._loop is not None  # set by `turn`, the only way here
            self._ticking = True
            self._loop.call_soon(self._pass)

    def _pass(self) -> None:
        """Once per pass while anything waits or went through: a new pass's share."""
        self._through = 0
        for waiting in self._waiting:
            while waiting and self._through < self.per_pass:
                future = waiting.popleft()
                if not future.done():
                    future.set_result(None)
                    self._through += 1
        self._ticking = False
        if any(self._waiting) or self._through:
            self._tick()
