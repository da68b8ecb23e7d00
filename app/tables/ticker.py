"""The one sleep of the shell: `tick_forever` posts a `Tick` to a table actor when its next
deadline comes, outside the game logic (the actor compares deadlines with its clock on each
tick, and never sleeps itself)."""

from __future__ import annotations

import asyncio
from typing import Protocol

from app.tables.clock import Clock
from app.tables.messages import Inbound, Tick


class Ticked(Protocol):
    """What the ticker needs of a table actor (`app.tables.actor.TableActor`)."""

    @property
    def clock(self) -> Clock: ...

    @property
    def wake(self) -> asyncio.Event:
        """Set when the next deadline may have moved."""

    wake_seen: float | None
    """The deadline the ticker last slept on."""

    def next_wake(self) -> float | None: ...

    def submit(self, msg: Inbound) -> None: ...


async def tick_forever(table: Ticked, longest: float = 5.0, gap: float = 0.25) -> None:
    """Post a `Tick` to the table when its next deadline comes (`TableActor.next_wake`), and at
    least every `longest` seconds: the only sleep of the shell, outside the game logic (the
    actor compares deadlines with its clock on each tick). A table whose seats think, or
    that waits for a player, costs nothing meanwhile; `TableActor.wake` is set when the deadline
    may have moved (a message handled, a seat taken), which makes this look again. Ticks
    are at least `gap` apart: a table of bots with no ready time deals at most four hands
    a second, and a deadline that stays in the past cannot make a table spin."""
    last = -gap
    while True:
        table.wake.clear()
        due = table.next_wake()
        table.wake_seen = due
        now = table.clock.now()
        delay = longest if due is None else min(longest, max(due, last + gap) - now)
        if delay > 0:
            try:
                async with asyncio.timeout(delay):
                    await table.wake.wait()
                continue  # the deadline may have moved: look again
            except TimeoutError:
                pass
        last = table.clock.now()
        table.submit(Tick())
        await table.wake.wait()  # set once the Tick is handled
