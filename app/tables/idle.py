"""Idle tables close: a table of this node where no person has sat (every seat empty or a
house bot's) for `seconds` on the node's `clock` is closed between hands, as a dissolve
closes it (its bots sit nowhere then, free for the next fill; its claims, lease and lobby
line go), once this node is still its owner (the fence, `Directory.may_write`). A sweeper
task looks every few seconds (`IDLE_SWEEP_SECONDS` at most).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from app.ops.tasks import cancel_and_wait
from app.tables.clock import Clock
from app.tables.directory import Directory
from app.tables.host import Lifetime, LiveTable

log = logging.getLogger(__name__)

IDLE_SWEEP_SECONDS = 5.0  # how often idle tables are looked for (at most)


class IdleTables:
    """The idle time of this node's tables (`tables`), and the sweeper that closes them
    (`close`: the registry's close) once it is over (the module's rules). `seconds` 0:
    tables never close as idle."""

    def __init__(
        self,
        seconds: float,
        clock: Clock,
        tables: Callable[[], Iterable[LiveTable]],
        directory: Callable[[], Directory],
        close: Callable[[LiveTable], Awaitable[None]],
    ) -> None:
        # a table where no person sits closes after this long (0: never), on this clock
        self.seconds = seconds
        self.clock = clock
        self._tables = tables
        self._directory = directory
        self._close = close
        self._sweeper: asyncio.Task[None] | None = None

    def note(self, live: LiveTable) -> None:
        """Start (or stop) the table's idle time as its seats are now."""
        if not live.nobody_plays():
            live.idle_since = None
        elif live.idle_since is None:
            live.idle_since = self.clock.now()

    def start(self) -> None:
        """Start the sweeper, unless it runs already or tables never close as idle."""
        if self.seconds > 0 and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="idle-tables")

    async def stop(self) -> None:
        """Stop the sweeper."""
        if self._sweeper is not None:
            await cancel_and_wait([self._sweeper])
            self._sweeper = None

    async def close_idle(self) -> list[str]:
        """Close every table of this node where no person has sat for `seconds`, between
        hands (a hand in play or being stored is let finish: the table closes at a later
        sweep), and only while this node may still write for it; the tables closed."""
        if self.seconds <= 0:
            return []
        closed = []
        for live in list(self._tables()):
            self.note(live)
            since = live.idle_since
            if since is None or self.clock.now() - since < self.seconds:
                continue
            if live.table.hand is not None or live.table.settling:
                continue
            try:
                if not (await self._directory().may_write([live.table_id]))[0]:
                    continue  # another node owns it now: its owner decides
                if not await live.close_if_idle():
                    continue  # somebody sat down, or a hand was dealt, meanwhile
                if live.lifetime is not Lifetime.LIVE:
                    continue  # dropped or dissolved meanwhile
                await self._close(live)
            except Exception:
                log.exception("table %s: closing it as idle failed", live.table_id)
                continue
            log.info("table %s closed: no player sat there for %.0f s",
                     live.table_id, self.clock.now() - since)
            closed.append(live.table_id)
        return closed

    async def _sweep_forever(self) -> None:
        interval = min(IDLE_SWEEP_SECONDS, max(0.05, self.seconds / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.close_idle()
            except Exception:
                log.exception("looking for idle tables failed")
