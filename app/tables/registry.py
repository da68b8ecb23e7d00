"""The tables of this node: an index (DESIGN.md, "One owner per thing"). It opens a table
(`create`: a `LiveTable` with its actor, run at once as an asyncio task with the real
clock and a tick task), finds it (`get`, `require`), routes to it what the lobby and the
cluster ask, and closes it (`_close`: dissolved, idle) or drops it (another node owns it
now). What a table is, sends and owns is its host's (app/tables/host.py); who sits where
on this node and the seat claims are `Seating`'s; a socket's coming and going is
`Connections`'; a hand's road to the ledger is the settlement's (app/tables/settlement);
idle tables close by `IdleTables`; an administrator's pause, resume and kick are
app/tables/admin.py's, a ban's reach app/tables/bans.py's.

- sitting, leaving, bans, kicks and dissolving are asked of the table through its inbox,
  and answered (app/tables/host.py); the actor reports its seats after every message it
  handled (`_seats_changed`): every seat is told (``table_state``), newcomers first get
  ``seated``, and those who left give their seat claims back;
- 湖州 (`POINTS_VARIANTS`): each hand's context gets the four seated accounts' stored 积分
  when it is dealt (`TableActor.seat_points`, read from `variant_stats` by
  `ProfileReads.points`, so after the last hand's settlement and with a new occupant's own
  points);
- a hand stored (`_hand_settled`, the settlement's fact): the table's copy of the names
  and silver, a private room's session count (before any deal), the cluster's journal.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.ops import metrics
from app.ops.pressure import NEVER_BUSY, Pressure
from app.rules.context import TableContext
from app.rules.state import Preset
from app.rules.variants import get_ruleset
from app.tables.actor import TableActor, tick_forever
from app.tables.announce import ProfileReads
from app.tables.clock import Clock, MonotonicClock
from app.tables.connections import Connections
from app.tables.errors import TableError, busy, seated_elsewhere
from app.tables.host import STOP_GRACE, Lifetime, LiveTable, TableParts, stop_tables
from app.tables.idle import IdleTables
from app.tables.lane import ENDINGS_PER_PASS, Lane
from app.tables.levels import BOT_LEVELS, DEFAULT_BOT_LEVEL
from app.tables.network import Network
from app.tables.seating import Seating
from app.tables.settlement.penalties import DEFAULT_POLICY, DisconnectPolicy
from app.tables.settlement.service import HandSettled, Settlement
from app.tables.sockets import Sink, Sockets
from app.tables.timers import BotPace, Timers
from app.tables.watchers import ChatLimits

log = logging.getLogger(__name__)

MIN_BALANCE_PER_STAKE = 100
"""To sit at a table a player needs at least 100 x its stake in silver (银两)."""

POINTS_VARIANTS = frozenset({"huzhou"})
"""Variants whose hand base comes from the seats' 积分 (湖州, RULES.md 4: the base of the
lowest-level player), read from the store at each deal."""
MAX_SPECTATORS = 50  # per table (the setting max_spectators_per_table)
CHAT_BURST = 3  # quick chat: phrases at once (chat_burst) ...
CHAT_REFILL_SECONDS = 3.0  # ... then one more every this many seconds (chat_refill_seconds)

__all__ = ["LiveTable", "Sink", "TableRegistry"]


class RoomHooks(Protocol):
    """What the registry tells the private rooms (app.rooms.service)."""

    async def hand_stored(self, live: LiveTable) -> None:
        """A hand of the room's table is stored: count the session, end it when due."""

    def served(self, live: LiveTable) -> None:
        """This node serves the room's table now (made, or taken over from another node)."""

    def closed(self, live: LiveTable) -> None:
        """The room's table was closed here (dissolved, or idle): the room ends with it."""


class TournamentHooks(Protocol):
    """What the registry tells the tournaments (app.tournaments.director)."""

    def forfeited(self, live: LiveTable, account: int) -> None:
        """A player left a tournament's table: the rest of their event is played by 托管."""


class TableRegistry:
    """The index of this node's tables. `stop` at shutdown."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        disconnect_policy: DisconnectPolicy = DEFAULT_POLICY,
        bot_pace: BotPace | None = None,
        idle_close_seconds: float = 0.0,
        clock: Clock | None = None,
        max_spectators: int = MAX_SPECTATORS,
        chat_burst: int = CHAT_BURST,
        chat_refill_seconds: float = CHAT_REFILL_SECONDS,
        store_concurrency: int = 2,
        store_batch: int = 32,
        endings_per_pass: int = ENDINGS_PER_PASS,
    ) -> None:
        # ended hands are stored in batches, `store_concurrency` batches at once
        self.settlement = Settlement(
            sessions, policy=disconnect_policy, wall_clock=wall_clock, batch=store_batch,
            runners=store_concurrency,
        )
        self.settlement.subscribe(self._hand_settled)
        self.endings = Lane(endings_per_pass)  # the hands' endings, a few per pass
        self.bot_pace = bot_pace or BotPace()  # how fast bots and 托管 play (settings)
        self.clock: Clock = clock or MonotonicClock()
        self.sockets = Sockets()
        self.parts = TableParts(
            self.sockets, self.clock, ChatLimits(chat_burst, chat_refill_seconds),
            ProfileReads(sessions), max_spectators, self.settlement,
        )
        self._tables: dict[str, LiveTable] = {}
        # a table where no person sits closes after `idle_close_seconds` (0: never)
        self.idle = IdleTables(
            idle_close_seconds, self.clock, self._tables.values,
            lambda: self.network.directory, self._close,
        )
        self.seating = Seating(self._tables.get)
        # an account's socket opening and closing, to the seats it holds here
        self.connections = Connections(
            self.sockets, self.seating, self._tables.values, self._tables.get
        )
        self._network = Network()
        # this node's load: new work is refused while it sheds (set by the app)
        self.pressure: Pressure = NEVER_BUSY
        # private rooms' sessions (app.rooms.service.Rooms), set by the app
        self.rooms: RoomHooks | None = None
        # tournaments (app.tournaments.director.Tournaments), set by the app
        self.tournaments: TournamentHooks | None = None

    @property
    def network(self) -> Network:
        """The network this node belongs to (app/tables/network.py): the cluster's parts
        (app.cluster.node.RedisNetwork.parts), or this node's alone."""
        return self._network

    @network.setter
    def network(self, network: Network) -> None:
        """Each part to what uses it: the sockets' delivery, the seats' claims, the
        settlement's fence (the directory: whose hands are stored here)."""
        self._network = network
        self.sockets.delivery = network.delivery
        self.seating.claims = network.claims
        self.settlement.fence = network.directory

    # --- the index --------------------------------------------------------------------------

    def create(
        self,
        variant: str,
        stake: int,
        *,
        timers: Timers | None = None,
        preset: Preset | None = None,
        ctx: TableContext | None = None,
        table_id: str | None = None,
        options: Mapping[str, object] | None = None,
        room: str | None = None,
        one_hand: bool = False,
        bot_level: str = DEFAULT_BOT_LEVEL,
        tournament: int | None = None,
    ) -> LiveTable:
        """A new empty table of `variant` at `stake` silver per point, running at once. A
        `preset` (admin test mode) deals the first hand from that wall, with `ctx`'s dealer.
        A private `room` (its code) plays by `options` (the variant's, changed by the room's
        owner; checked by the caller) and deals only while its session runs; a `one_hand`
        table (the guided hand, app/api/practice.py) deals its first hand and no other.
        `bot_level`: who plays its house bots' seats (app/tables/levels.py). A room's
        `tournament` table keeps its seats for the event (a player away plays on 托管,
        leaving forfeits)."""
        ruleset = get_ruleset(variant)  # ValueError for an unknown variant
        if options:
            ruleset = replace(ruleset, options=replace(ruleset.options, **options))
        if stake < 0:
            raise ValueError("the stake is not below 0")
        if bot_level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {bot_level!r}")
        table_id = table_id or secrets.token_hex(6)
        chosen = timers or Timers()
        table = TableActor(
            table_id, ruleset, [None] * 4, MonotonicClock(),
            lambda seat, item: live.outbox.send(seat, item),
            lambda record: live.settle(record),
            timers=chosen, preset=preset, ctx=ctx,
            on_seats_changed=lambda: self._seats_changed(live),
            bot_pace=self.bot_pace, lane=self.endings, bot_level=bot_level,
        )
        live = LiveTable(table_id, variant, stake, chosen, table, self.parts, room=room,
                         tournament=tournament)
        table.observer = self.network.directory.observer()
        table.on_shown = live.announce  # the table is no longer settling: new balances
        if variant in POINTS_VARIANTS:
            table.seat_points = lambda accounts: self.parts.reads.points(variant, accounts)
        if room is not None:
            table.may_deal = lambda: live.session_over is False
            if self.rooms is not None:
                self.rooms.served(live)
        elif one_hand:
            table.may_deal = lambda: table.hand_id == ""
        if tournament is not None:
            table.keeps_seats = True
            table.on_forfeit = lambda account: self._forfeited(live, account)
        live.tasks = [
            asyncio.create_task(table.run(), name=f"table-{table_id}"),
            asyncio.create_task(tick_forever(table), name=f"tick-{table_id}"),
        ]
        live.move(Lifetime.LIVE)
        self._tables[table_id] = live
        self.seating.hold(table_id, frozenset())
        self.idle.note(live)
        self.idle.start()
        return live

    def get(self, table_id: str) -> LiveTable | None:
        return self._tables.get(table_id)

    def all(self) -> list[LiveTable]:
        return list(self._tables.values())

    def require(self, table_id: str) -> LiveTable:
        """The live table `table_id` (TableError `not_found` when this node has none)."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("not_found", f"no table {table_id!r}")
        return live

    async def dissolve(self, table_id: str) -> str | None:
        """Dissolve the table (解散): its hand in play is voided (no silver moves, a voided
        record is stored), every seat is freed and the table stops. The voided hand's id."""
        live = self.require(table_id)
        voided = await live.dissolve()
        await self._close(live)
        return voided

    async def _close(self, live: LiveTable) -> None:
        """Stop a table whose seats are free and forget it here and in the cluster."""
        if not live.move(Lifetime.CLOSING):
            return  # closing or gone already
        await stop_tables([live])
        live.watchers.close()
        self._tables.pop(live.table_id, None)
        self.seating.release(live.table_id)  # (the seats were freed already)
        self.network.directory.closed(live.table_id)
        live.move(Lifetime.CLOSED)
        if live.room is not None and self.rooms is not None:
            self.rooms.closed(live)

    async def drop(self, table_id: str) -> None:
        """Stop serving a table without ending its hand (another node owns it now)."""
        live = self._tables.pop(table_id, None)
        self.seating.hold(table_id, None)  # the seats stay claimed: the new owner holds them
        if live is not None and live.move(Lifetime.HANDED_OVER):
            await stop_tables([live])
            live.move(Lifetime.CLOSED)

    async def stop(self) -> None:
        """Stop every table's actor and ticker. A hand being stored is given `STOP_GRACE`
        seconds, then given up: its result was never shown, and with a cluster its journal
        keeps the hand for the node that takes the table over."""
        await self.idle.stop()
        tables = list(self._tables.values())
        await stop_tables(tables)
        await self.settlement.stop(STOP_GRACE)
        for live in tables:
            live.move(Lifetime.CLOSED)
        self._tables.clear()

    # --- seats ------------------------------------------------------------------------------

    async def sit(
        self, table_id: str, account_id: int, seat: int | None = None, *, bot: bool = False
    ) -> int:
        """Seat `account_id` (at `seat`, or the first empty one); the seat taken. The caller
        checks the account's standing (banned, balance) first. A `bot` seat is on 托管 for
        good: the full greedy bot (claims included) answers its prompts inside the actor, with
        no socket."""
        live = self.require(table_id)
        elsewhere = self.seating.table_of(account_id)
        if elsewhere is not None and elsewhere != table_id:
            raise seated_elsewhere(elsewhere)
        return await live.sit(account_id, seat, bot)

    async def take_seat(
        self, table_id: str, account_id: int, seat: int | None = None, *, bot: bool = False
    ) -> int:
        """`sit` for the lobby: the account's one seat in the whole server is claimed first
        (`Seating.take`); refused `busy` while this node sheds."""
        self.refuse_if_busy("sit")
        return await self.seating.take(self.require(table_id), account_id, seat, bot)

    def refuse_if_busy(self, what: str) -> None:
        """New work (`what`: a table, a room, a sit, a quick-match group) is refused while
        this node sheds (app/ops/pressure.py): `busy`, with the seconds to wait."""
        if self.pressure.busy:
            metrics.shed(what)
            raise busy(self.pressure.retry_after())

    def _seats_changed(self, live: LiveTable) -> None:
        """The actor changed a seat: every seat is told; newcomers are owed `seated`; those
        who left give up their seat claim; between hands the cluster's directory learns the
        new seats."""
        if self._tables.get(live.table_id) is not live:
            return
        live.announce()
        self.idle.note(live)
        before, now = live.seats_moved()
        if now == before:
            return
        self.seating.moved(live.table_id, before, now)
        if live.table.hand is None:
            self.network.directory.changed(live)

    def _forfeited(self, live: LiveTable, account: int) -> None:
        if self.tournaments is not None:
            self.tournaments.forfeited(live, account)

    def hold_seats(self, live: LiveTable) -> None:
        """The table's seats as they are are claimed already (a table taken over from its
        journal): whoever leaves later gives the claim back."""
        self.seating.hold(live.table_id, live.hold_seats())

    def seated_accounts(self) -> set[int]:
        """Every account sitting at a table of this process."""
        return {a for live in self._tables.values() for a in live.accounts() if a is not None}

    # --- the end of a hand ----------------------------------------------------------------

    async def _hand_settled(self, settled: HandSettled) -> None:
        """A hand of this node is stored: the names and silver table_state shows next (once
        the table shows the result and is no longer settling), without reading them again;
        a private room counts its session (before any deal); the cluster's journal."""
        table_id = settled.record.table_id
        live = self._tables.get(table_id)
        if live is not None:
            live.announcer.stored(
                {a: (p.name, p.balance) for a, p in settled.stored.profiles.items()}
            )
            if live.room is not None and self.rooms is not None:
                await self.rooms.hand_stored(live)
        try:
            await self.network.directory.hand_stored(live, settled.record)
        except Exception:  # the journal keeps the hand: a new owner stores it again, a no-op
            log.exception("table %s: clearing hand %s from the journal failed",
                          table_id, settled.record.hand_id)
