"""The matcher: forms quick-match tables from the queues (app/tables/matching.py), on every
node of a cluster at once.

Every `TICK_SECONDS`, and at once when a player joins on this node, each queue with players
waiting is looked at (`MatchQueue.look`) and `choose` says what to form: the first four
players with a table socket open, or, once the first of them has waited
`quick_match_fill_seconds`, all of them (one to three) with house bots in the other seats.
The group is then taken out of its queue in one atomic step (`take`: with several nodes,
only one node gets each group) and seated here, exactly as the lobby seats players:

1. each player is checked again: an account that is banned, whose silver fell below the
   level's minimum, or that sits at another table (its cluster-wide seat claim is made
   now, naming the new table, `Network.claim_seat`) cannot sit; if one cannot, nobody
   sits: they are dropped with the reason and the others go back to their places (`settle`);
2. bots (a group of fewer than four): the lobby's fill path and its limits: the first
   player's hourly bot seats (`too_many_bots`), the house's funds (`house_funds_low`) and
   its pool (`no_bots_free`); refused, the group goes back to its places, told why
   (`reason` in GET /quick-match), and the queue's bot fill is tried again after
   `BOTS_RETRY_SECONDS`;
3. the table is made on this node (the variant, the level's stake and bot level, the house timers),
   listed and leased like a lobby table, and each player sits (`TableRegistry.take_seat`:
   `seated` and `table_state` over the WebSocket, whichever node holds the socket), then
   the bots; the first hand is dealt at the next tick;
4. the players' quick match says `seated` with the table.

Anything unexpected puts the group back in its places and is logged; the next look tries
again. Levels are read from the database at most every `LEVELS_SECONDS` (at once after an
administrator's change on this node); a queue whose level is closed or gone is emptied,
its players told `level_closed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.api.errors import ApiError
from app.api.house_bots import filling_lock, house_bots  # the lobby's bot fill: one path, one lock
from app.api.ratelimit import MemoryQuota
from app.ops.tasks import cancel_and_wait
from app.rules.variants import VARIANTS
from app.settings import Settings
from app.store import levels as store_levels
from app.store.levels import Level
from app.store.models import Account
from app.tables.errors import RemoteRefused, TableError
from app.tables.levels import bot_level
from app.tables.matching import (
    QUEUE_REASONS,
    SEATS,
    Choice,
    MatchQueue,
    Waiter,
    choose,
    settle,
    split_name,
)
from app.tables.registry import MIN_BALANCE_PER_STAKE, TableRegistry

log = logging.getLogger(__name__)

TICK_SECONDS = 0.5  # how often the queues are looked at (and at once after a join here)
LEVELS_SECONDS = 2.0  # how long the levels read from the database are used
BOTS_RETRY_SECONDS = 5.0  # after a refused bot fill, the queue's next bot fill waits this


class Matcher:
    def __init__(
        self,
        registry: TableRegistry,
        sessions: async_sessionmaker[AsyncSession],
        settings: Settings,
        queue: MatchQueue,
        bot_quota: MemoryQuota,
    ) -> None:
        self.registry = registry
        self.queue = queue
        self._sessions = sessions
        self._settings = settings
        self._quota = bot_quota
        self.fill_after_ms = round(settings.quick_match_fill_seconds * 1000)
        self.grace_ms = round(settings.quick_match_grace_seconds * 1000)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._levels: dict[str, Level] | None = None
        self._levels_at = 0.0
        self._bots_wait: dict[str, float] = {}  # queue -> no bot fill before (monotonic)

    # --- running ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="quick-match")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])
            self._task = None

    def wake(self) -> None:
        """Look at the queues now (a player joined)."""
        self._wake.set()

    def forget_levels(self) -> None:
        """The levels changed: read them again at the next look."""
        self._levels = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK_SECONDS)
            self._wake.clear()
            try:
                await self.run_once()
            except Exception:
                log.exception("quick match: looking at the queues failed")

    async def levels(self) -> dict[str, Level]:
        """The open levels by key (read again every `LEVELS_SECONDS`)."""
        if self._levels is None or time.monotonic() - self._levels_at > LEVELS_SECONDS:
            async with self._sessions() as session, session.begin():
                self._levels = {
                    level.key: level for level in await store_levels.open_levels(session)
                }
            self._levels_at = time.monotonic()
        return self._levels

    async def run_once(self) -> list[str]:
        """Look at every queue with players waiting; the tables formed (none while this
        node sheds new work: another node's matcher forms them, or this one once calm)."""
        if self.registry.pressure.busy:
            return []
        counts = await self.queue.counts()
        if not counts:
            return []
        levels = await self.levels()
        formed: list[str] = []
        for name in sorted(counts):
            formed += await self._serve(name, levels)
        return formed

    async def _serve(self, name: str, levels: dict[str, Level]) -> list[str]:
        variant, key = split_name(name)
        waiters = await self.queue.look(name)
        level = levels.get(key)
        if level is None or variant not in VARIANTS:
            await self.queue.remove(name, waiters, "level_closed")
            return []
        formed: list[str] = []
        while True:
            now = await self.queue.now()
            choice = choose(waiters, now, self.fill_after_ms, self.grace_ms)
            if choice.gone:
                await self.queue.remove(name, choice.gone, "disconnected")
            if not choice.group:
                return formed
            if choice.fill and time.monotonic() < self._bots_wait.get(name, 0.0):
                return formed
            if not await self.queue.take(name, choice.group):
                return formed  # another node took (some of) them first
            table_id = await self._form(name, variant, level, choice)
            if table_id is None:
                return formed
            formed.append(table_id)
            waiters = await self.queue.look(name)

    # --- forming one table ------------------------------------------------------------------

    async def _form(self, name: str, variant: str, level: Level, choice: Choice) -> str | None:
        """Seat a group taken from its queue at a new table; its id, or None (the group was
        put back, less those who cannot sit)."""
        group = choice.group
        table_id = secrets.token_hex(6)
        claimed: list[int] = []
        try:
            refused = await self._refusals(group, level)
            for waiter in group:
                if waiter.account in refused:
                    continue
                claimed.append(waiter.account)
                if await self.registry.network.claims.claim_seat(waiter.account, table_id) != table_id:
                    refused[waiter.account] = "seated_elsewhere"
            settled = settle(group, refused)
            if settled.dropped:
                self._release(claimed, table_id)
                for waiter, reason in settled.dropped:
                    await self.queue.finish([waiter.account], reason=reason)
                    log.info("quick match %s: account %d dropped (%s)", name, waiter.account,
                             reason)
                await self.queue.put_back(name, settled.back)
                return None
            if not choice.fill:
                return await self._seat(name, variant, level, table_id, group, [])
            async with filling_lock(self.registry):  # the lobby's lock: a bot for one table
                bots = await self._bots(name, level, table_id, group)
                if bots is None:
                    self._release(claimed, table_id)
                    return None
                return await self._seat(name, variant, level, table_id, group, bots)
        except Exception:
            log.exception("quick match %s: forming a table failed; the group goes back", name)
            self._release(claimed, table_id)
            await self._undo(table_id)
            await self.queue.put_back(name, group)
            return None

    async def _refusals(self, group: Sequence[Waiter], level: Level) -> dict[int, str]:
        """Who of the group cannot sit now, and why: banned (or gone), silver below the
        level's minimum, seated at a table of this node."""
        accounts = [w.account for w in group]
        async with self._sessions() as session, session.begin():
            rows = await session.execute(
                select(Account.id, Account.balance, Account.banned).where(
                    Account.id.in_(accounts)
                )
            )
            found = {row.id: (row.balance, row.banned) for row in rows}
        seated = self.registry.seated_accounts()
        refused: dict[int, str] = {}
        for account in accounts:
            balance, banned = found.get(account, (0, True))
            if banned:
                refused[account] = "banned"
            elif balance < level.min_balance:
                refused[account] = "insufficient_balance"
            elif account in seated:
                refused[account] = "seated_elsewhere"
        return refused

    async def _bots(
        self, name: str, level: Level, table_id: str, group: Sequence[Waiter]
    ) -> list[int] | None:
        """House bots for the empty seats, funded to the table's minimum; None: refused (the
        group is back in its places, told why)."""
        needed = SEATS - len(group)
        first = str(group[0].account)
        wait = self._quota.retry_after(first, needed)
        reason: str | None = None
        bots: list[int] = []
        if wait is not None:
            reason = "too_many_bots"
        else:
            try:
                async with self._sessions() as session:
                    bots = await house_bots(
                        session, self._settings, self.registry, needed,
                        MIN_BALANCE_PER_STAKE * level.stake, table_id,
                    )
            except ApiError as refused:
                reason = refused.code if refused.code in QUEUE_REASONS else None
                if reason is None:
                    raise
        if reason is None:
            return bots
        self._bots_wait[name] = time.monotonic() + BOTS_RETRY_SECONDS
        await self.queue.put_back(name, group, reason)
        log.info("quick match %s: no bots for the group of %s (%s)", name, first, reason)
        return None

    async def _seat(
        self,
        name: str,
        variant: str,
        level: Level,
        table_id: str,
        group: Sequence[Waiter],
        bots: Sequence[int],
    ) -> str:
        """Make the table and seat the group, then the bots, as the lobby does."""
        registry = self.registry
        live = registry.create(variant, level.stake, table_id=table_id,
                               bot_level=bot_level(level.bot_level))
        await registry.network.directory.opened(live)
        for waiter in group:
            await registry.take_seat(table_id, waiter.account)
        for bot in bots:
            await registry.take_seat(table_id, bot, bot=True)
        if bots:
            self._quota.spend(str(group[0].account), len(bots))
            self._bots_wait.pop(name, None)
        await self.queue.finish([w.account for w in group], table_id=table_id)
        log.info("quick match %s: table %s formed for %s with %d bots", name, table_id,
                 [w.account for w in group], len(bots))
        return table_id

    def _release(self, accounts: Sequence[int], table_id: str) -> None:
        """Give back the seat claims made for a table that is not formed."""
        for account in accounts:
            self.registry.network.claims.release_seat(account, table_id)

    async def _undo(self, table_id: str) -> None:
        """Close a table that was made but could not be filled (nothing was dealt there)."""
        if self.registry.get(table_id) is None:
            return
        try:
            await self.registry.dissolve(table_id)
        except (TableError, RemoteRefused, TimeoutError):
            log.exception("quick match: closing the unfilled table %s failed", table_id)
