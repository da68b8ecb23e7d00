"""The live tables of this process, and the wiring between them, the sockets and the store.

- `create` makes a `Table` actor with four empty seats and runs it as an asyncio task with
  the real (monotonic) clock and a tick task; the first hand is dealt on the first tick
  once four players sit.
- Sitting and leaving between hands change the actor's seats directly: the registry and
  the actor share one event loop and the actor only reads its seats between awaits, so no
  message is needed. Leaving during a hand is an escape (逃跑, RULES.md 1) and goes through
  the inbox; the seat is freed once that hand has ended.
- Outbound items become the wire messages of `app.protocol` (`app.tables.wire`) and go to
  the one connection of the account sitting at that seat (none connected: dropped;
  `resume` catches up).
- administration (`pause`, `resume`, `kick`, `dissolve`) goes through the inbox and waits
  for the actor (`Flush`), so that the caller sees the table after the command;
- `on_hand_end` is the one place money moves: it stores the hand (`results.store_hands`,
  through the `Settler`'s batches: its `HandRecord` and silver in one transaction, with
  the other hands ending then, and the disconnects of seats still away, charging the
  third in 24 hours on the injectable `wall_clock`), retrying with backoff until the
  database has it. The actor shows the result (``hand_ended``) and deals
  on only after that (results are written before they are shown, DESIGN.md);
- ``table_state`` (names, titles, balances, connected, ready, 托管) goes to every connected
  seat whenever a seat changes: sit, leave, connect, disconnect, 托管 on or off, kick, a
  reseat, and after each settlement (new balances); a seat that connects, resumes or sits
  gets ``seated`` and ``table_state``. Profiles are read from the store when sent (one
  sender task per table, so the last message a seat gets is the table as it is), unless
  the table's copy is younger than `PROFILES_FRESH` and has every seat: a hand's store
  answers its seats' names and silver afterwards, and that is the copy then;
- a kicked account is told (``error`` code ``kicked``) and, sitting nowhere else, its
  socket is closed with `CLOSE_KICKED`;
- one seat per account in the whole server (`take_seat`): sitting while seated at another
  table is refused (`seated_elsewhere`, naming that table). In this process the check
  and the seating are one synchronous step; across a cluster the account's seat is
  claimed first (`Network.claim_seat`, atomic in Redis), one sit per account at a time
  in this process, and the claim is given back whenever the seat is freed
  (`_seats_moved`: sit, leave, a kick, an escape's end, an absent player's seat, a ban,
  a dissolved table);
- 湖州 (`POINTS_VARIANTS`): each hand's context gets the four seated accounts' stored 积分
  when it is dealt (`Table.seat_points`, read from `variant_stats`, so after the last
  hand's settlement and with a new occupant's own points);
- a ban (`ban`, 封号) reaches the live session on every node: the account's socket closes
  with `CLOSE_BANNED`, its seat escapes during a hand (逃跑, as `kick`) or is freed between
  hands, and no action of that seat is applied from then on (`SeatState.banned`);
- spectators (旁观, `watch`): anyone not seated at a table may watch it, at most
  `max_spectators` per table (`spectators_full`); a private room (`LiveTable.room`,
  `LiveTable.spectators_allowed`, set by whoever makes the room) asks its code and its
  owner's leave. A spectator gets ``watching``, a snapshot of the observer's view and then
  every event as an observer sees it (`Event.for_seat(None)`: no concealed tile, no prompt,
  no claim offer), and ``table_state`` (with the number of spectators) whenever it
  changes. What it is sent is queued as watched (`watchers.watched_sender`): the table
  never waits, and a socket that does not read is dropped by its own bound (app/api/ws.py).
  A spectator's socket on another node is sent one message per node (`Network.
  deliver_watched`). Sitting down at the table, unwatching, or the socket closing ends a
  watch; a table that closes tells its spectators (``no_table``);
- quick chat (快捷语, `chat`): a seated player's phrase of the fixed list goes to every
  seated player (bots excepted) and every spectator, the sender included, except those
  who muted the sender (`mute`: by account, held while the muter sits at or watches the
  table); each account may send `chat_burst` at once, then one more every
  `chat_refill_seconds` (`chat_limited`);
- idle tables close (`close_idle`): a table of this node where no person has sat (every
  seat empty or a house bot's) for `idle_close_seconds` on the registry's `clock` is
  closed between hands, as a dissolve closes it (its bots sit nowhere then, free for the
  next fill; its claims, lease and lobby line go), once this node is still its owner (the
  fence, `Network.may_write`). A sweeper task looks every few seconds.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.ops import metrics
from app.ops.tasks import cancel_and_wait
from app.protocol import (
    ChatMessage,
    ErrorMessage,
    MutedMessage,
    SeatedMessage,
    SeatInfo,
    ServerMessage,
    SnapshotMessage,
    TableStateMessage,
    WatchingMessage,
    view_model,
)
from app.protocol.encode import Encoded, event_text, message_text
from app.protocol.vocabulary import as_variant
from app.rules.events import Event
from app.rules.hand import Preset
from app.rules.variants import get_ruleset
from app.rules.variants.base import TableContext
from app.store import ranks
from app.store.models import Account
from app.tables.actor import Table, tick_forever
from app.tables.clock import Clock, MonotonicClock
from app.tables.lane import ENDINGS_PER_PASS, Lane
from app.tables.messages import (
    AdminDissolve,
    AdminPause,
    AdminResume,
    CloseIdle,
    Connected,
    EventOut,
    Flush,
    HandRecordData,
    Inbound,
    Leave,
    Outbound,
    Silver,
    Stop,
)
from app.tables.network import LocalNetwork, Network, RemoteRefused
from app.tables.penalties import DEFAULT_POLICY, DisconnectPolicy
from app.tables.results import Job, Stored, store_hands
from app.tables.seats import SeatState
from app.tables.settler import Settler
from app.tables.timers import BotPace, Timers
from app.tables.watchers import ChatLimits, Spectator
from app.tables.wire import encoded_message, wire_message

log = logging.getLogger(__name__)

MIN_BALANCE_PER_STAKE = 100
"""To sit at a table a player needs at least 100 x its stake in silver (银两)."""

STORE_RETRY_FIRST = 0.2  # seconds before storing a hand is tried again, doubling each time
STORE_RETRY_MAX = 5.0  # up to this many seconds between tries
STOP_GRACE = 2.0  # seconds a stopping actor has to finish storing a hand
# seconds the names and silver table_state shows are used again before being read again:
# the table's own hands update them as they are stored; this bounds how late a change
# made elsewhere (an operator's adjustment, a top-up of the house's bots) shows
PROFILES_FRESH = 300.0
PROFILE_READS = 16  # table_state reads of names and silver at once per process
CLOSE_KICKED = 4003  # the WebSocket close code of a kicked account that sits nowhere else
CLOSE_BANNED = 4004  # the WebSocket close code of a banned account's sockets, at once
POINTS_VARIANTS = frozenset({"huzhou"})
"""Variants whose hand base comes from the seats' 积分 (湖州, RULES.md 4: the base of the
lowest-level player), read from the store at each deal."""
ADMIN_WAIT_SECONDS = 10.0  # how long an admin command waits for the actor to handle it
IDLE_SWEEP_SECONDS = 5.0  # how often idle tables are looked for (at most)
MAX_SPECTATORS = 50  # per table (the setting max_spectators_per_table)
CHAT_BURST = 3  # quick chat: phrases at once (chat_burst) ...
CHAT_REFILL_SECONDS = 3.0  # ... then one more every this many seconds (chat_refill_seconds)
_ALL_SEATS = range(4)

Status = Literal["waiting", "playing"]


class Sink(Protocol):
    """One client connection as the registry sees it."""

    def deliver(self, message: ServerMessage) -> None:
        """Queue `message` for the client; never blocks the actor."""
        ...

    # A sink may also have `deliver_encoded(encoded: Encoded) -> None` (the socket's
    # `Connection` has): it is then given events and prompts as their JSON text; and
    # `deliver_watched(encoded: Encoded) -> None` for what a table it watches sends (held
    # to the spectators' bound), with `closing` true once it is closed.

    def close(self, code: int) -> None:
        """Close the connection with this WebSocket close code."""
        ...


class TableError(Exception):
    """A lobby request refused: `code` is the API error code, `details` its details."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def seated_elsewhere(table_id: str) -> TableError:
    """The refusal of a sit by an account that holds a seat at `table_id`."""
    return TableError(
        "seated_elsewhere", f"you already sit at table {table_id}", {"table_id": table_id}
    )


class RoomHooks(Protocol):
    """What the registry tells the private rooms (app.rooms.service)."""

    async def hand_stored(self, live: LiveTable) -> None:
        """A hand of the room's table is stored: count the session, end it when due."""

    def served(self, live: LiveTable) -> None:
        """This node serves the room's table now (made, or taken over from another node)."""

    def closed(self, live: LiveTable) -> None:
        """The room's table was closed here (dissolved, or idle): the room ends with it."""


@dataclass(slots=True)
class LiveTable:
    """One table of this process: its actor, its stake (silver per point) and its tasks."""

    table_id: str
    variant: str
    stake: int
    timers: Timers
    table: Table
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    bots: set[int] = field(default_factory=set)  # accounts the greedy bot plays for good
    creator: int | None = None  # the account that opened it in the lobby (its table limit)
    # the last event sent and its text, shared by the seats that see the same copy
    last_event: tuple[int, Event, Encoded] | None = None
    # each seated account's name and silver as last read for table_state (or as the last
    # hand's store left them), and when (the registry's clock)
    profiles: dict[int, tuple[str, int]] = field(default_factory=dict)
    profiles_at: float = float("-inf")
    # since when (the registry's clock) no person sits here (empty or bots); None: one does
    idle_since: float | None = None
    # a private room's code (好友房, app/api/rooms.py): not listed in the lobby, seated only
    # through the room; None: a public table
    room: str | None = None
    # a private room's session: None while not known (no hand is dealt), then whether it
    # is over (no more hands)
    session_over: bool | None = None

    @property
    def options(self) -> dict[str, object] | None:
        """The variant's options when a private room changed them, as stored (JSON)."""
        options = self.table.ruleset.options
        return None if options == self.table.ruleset.default_options() else asdict(options)
    # spectators (旁观): account -> where its socket is
    spectators: dict[int, Spectator] = field(default_factory=dict)
    # whether a private room's owner lets people with the code watch (a public table: yes)
    spectators_allowed: bool = True
    # quick chat mutes: account -> the accounts whose chat it is not sent at this table
    mutes: dict[int, set[int]] = field(default_factory=dict)

    def accounts(self) -> list[int | None]:
        return [seat.account for seat in self.table.seats]

    def seat_of(self, account_id: int) -> int | None:
        for seat, state in enumerate(self.table.seats):
            if state.account == account_id:
                return seat
        return None

    def nobody_plays(self) -> bool:
        """No person sits here: every seat is empty or a house bot's."""
        return all(seat.account is None or seat.house_bot for seat in self.table.seats)

    @property
    def status(self) -> Status:
        return "playing" if self.table.hand is not None else "waiting"


class TableRegistry:
    """Owns every live table of this process. `start` with the app, `stop` at shutdown."""

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
        self._sessions = sessions
        # ended hands are stored in batches, `store_concurrency` batches at once (`_store`);
        # table_state reads a few at a time (`_profiles`): the others wait their turn
        self._settler = Settler(self._store_many, batch=store_batch, runners=store_concurrency)
        self._profiles_gate = asyncio.Semaphore(PROFILE_READS)
        self.endings = Lane(endings_per_pass)  # the hands' endings, a few per pass
        self.max_spectators = max_spectators  # per table
        self._chat = ChatLimits(chat_burst, chat_refill_seconds)
        self.bot_pace = bot_pace or BotPace()  # how fast bots and 托管 play (settings)
        # a table where no person sits closes after this long (0: never), on this clock
        self.idle_close_seconds = idle_close_seconds
        self.clock: Clock = clock or MonotonicClock()
        self._sweeper: asyncio.Task[None] | None = None
        self._tables: dict[str, LiveTable] = {}
        self._connections: dict[int, Sink] = {}  # account id -> its one connection
        self._wall_clock = wall_clock  # when a disconnect happened (the 24-hour window)
        self._disconnect_policy = disconnect_policy
        # table_state: the seats owed one (and `seated` first), one sender task per table
        self._owed: dict[str, set[int]] = {}
        self._owed_seated: dict[str, set[int]] = {}
        self._owed_watchers: set[str] = set()  # tables whose spectators are owed one
        self._senders: dict[str, asyncio.Task[None]] = {}
        # seats owed a `seated` (and its table_state) that is not out yet, and what the
        # table sent them meanwhile: held until it is (`_send`, `_release`)
        self._seating: dict[str, set[int]] = {}
        self._behind: dict[tuple[str, int], list[Outbound]] = {}
        # (table, seat) -> the first event seq the table sent it that reached no socket:
        # its next connection gets the hand from there (`connect`)
        self._lost: dict[tuple[str, int], int] = {}
        # table -> the accounts seated there as last seen: their seat claims (`_seats_moved`),
        # and its inverse, account -> those tables (`_hold`). A seat is taken only by `sit`
        # (or `hold_seats`), which updates both at once; a seat the actor frees is in them
        # until the registry is told, so a lookup checks the table itself (`_tables_of`)
        self._held: dict[str, frozenset[int]] = {}
        self._holding: dict[int, set[str]] = {}
        self._sitting: dict[int, tuple[asyncio.Lock, int]] = {}  # account -> its sits' lock
        # the cluster (app.cluster.node.RedisNetwork), or this process alone
        self.network: Network = LocalNetwork()
        # private rooms' sessions (app.rooms.service.Rooms), set by the app
        self.rooms: RoomHooks | None = None

    # --- tables ---------------------------------------------------------------------------

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
    ) -> LiveTable:
        """A new empty table of `variant` at `stake` silver per point, running at once. A
        `preset` (admin test mode) deals the first hand from that wall, with `ctx`'s dealer.
        A private `room` (its code) plays by `options` (the variant's, changed by the room's
        owner; checked by the caller) and deals only while its session runs."""
        ruleset = get_ruleset(variant)  # ValueError for an unknown variant
        if options:
            ruleset = replace(ruleset, options=replace(ruleset.options, **options))
        if stake < 0:
            raise ValueError("the stake is not below 0")
        table_id = table_id or secrets.token_hex(6)
        chosen = timers or Timers()
        table = Table(
            table_id,
            ruleset,
            [None] * 4,
            MonotonicClock(),
            lambda seat, item: self._send(table_id, seat, item),
            self._on_hand_end,
            timers=chosen,
            preset=preset,
            ctx=ctx,
            on_seats_changed=lambda: self._seats_changed(table_id),
            bot_pace=self.bot_pace,
            lane=self.endings,
        )
        table.observer = self.network.observer()
        if variant in POINTS_VARIANTS:
            table.seat_points = lambda accounts: self._seat_points(variant, accounts)
        live = LiveTable(table_id, variant, stake, chosen, table, room=room)
        if room is not None:
            table.may_deal = lambda: live.session_over is False
            if self.rooms is not None:
                self.rooms.served(live)
        live.tasks = [
            asyncio.create_task(table.run(), name=f"table-{table_id}"),
            asyncio.create_task(tick_forever(table), name=f"tick-{table_id}"),
        ]
        self._tables[table_id] = live
        self._hold(table_id, frozenset())
        self._note_idle(live)
        if self.idle_close_seconds > 0 and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="idle-tables")
        return live

    def get(self, table_id: str) -> LiveTable | None:
        return self._tables.get(table_id)

    def all(self) -> list[LiveTable]:
        return list(self._tables.values())

    def sit(
        self, table_id: str, account_id: int, seat: int | None = None, *, bot: bool = False
    ) -> int:
        """Seat `account_id` (at `seat`, or the first empty one); the seat taken. The caller
        checks the account's standing (banned, balance) first. A `bot` seat is on 托管 for
        good: the full greedy bot (claims included) answers its prompts inside the actor, with
        no socket."""
        live = self.require(table_id)
        if live.seat_of(account_id) is not None:
            raise TableError("already_seated", "you already sit at this table")
        elsewhere = self._table_of(account_id)
        if elsewhere is not None:
            raise seated_elsewhere(elsewhere)
        accounts = live.accounts()
        if seat is None:
            seat = next((s for s, a in enumerate(accounts) if a is None), None)
            if seat is None:
                raise TableError("table_full", "every seat is taken")
        elif accounts[seat] is not None:
            raise TableError("seat_taken", f"seat {seat} is taken")
        live.table.seats[seat] = SeatState(account_id, autoplay=bot, house_bot=bot)
        live.table.poke()  # four seated: the ready timer may deal
        if live.spectators.pop(account_id, None) is not None:  # watched, plays now
            self._spectators_changed(live)
        self._lost.pop((table_id, seat), None)  # what the seat's last holder missed
        if bot:
            live.bots.add(account_id)
        self.announce(table_id)
        self.announce(table_id, [seat], seated=True)
        self._seats_moved(table_id)
        return seat

    async def take_seat(
        self, table_id: str, account_id: int, seat: int | None = None, *, bot: bool = False
    ) -> int:
        """`sit` for the lobby: the account's one seat in the whole server is claimed first
        (`seated_elsewhere` when it holds one at another table, on any node). Sits of one
        account run one at a time here; the claim is atomic across the cluster."""
        self.require(table_id)
        async with self._one_sit_at_a_time(account_id):
            elsewhere = self._table_of(account_id)
            if elsewhere is not None and elsewhere != table_id:
                raise seated_elsewhere(elsewhere)
            try:
                claimed = await self.network.claim_seat(account_id, table_id)
            except RemoteRefused as refused:  # the claim could not be made
                raise TableError(refused.code, refused.message) from None
            if claimed != table_id:
                raise seated_elsewhere(claimed)
            try:
                return self.sit(table_id, account_id, seat, bot=bot)
            except TableError:
                live = self.get(table_id)
                if live is None or live.seat_of(account_id) is None:  # not seated here
                    self.network.release_seat(account_id, table_id)
                raise

    @asynccontextmanager
    async def _one_sit_at_a_time(self, account_id: int) -> AsyncIterator[None]:
        lock, users = self._sitting.get(account_id, (asyncio.Lock(), 0))
        self._sitting[account_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._sitting[account_id]
            if users <= 1:
                del self._sitting[account_id]
            else:
                self._sitting[account_id] = (lock, users - 1)

    def _table_of(self, account_id: int) -> str | None:
        """The table of this process the account sits at, if any."""
        return next((live.table_id for live, _ in self._tables_of(account_id)), None)

    def _tables_of(self, account_id: int) -> list[tuple[LiveTable, int]]:
        """The tables of this process the account sits at, with its seat at each (looked
        up in `_holding`, not over every table: a sit or a connection at 2,500 tables)."""
        found = []
        for table_id in sorted(self._holding.get(account_id, ())):
            live = self._tables.get(table_id)
            if live is not None and (seat := live.seat_of(account_id)) is not None:
                found.append((live, seat))
        return found

    def _hold(self, table_id: str, accounts: frozenset[int] | None) -> None:
        """`_held[table_id]` becomes `accounts` (None: the table is gone), and `_holding`
        with it."""
        before = self._held.pop(table_id, frozenset())
        if accounts is not None:
            self._held[table_id] = accounts
        now = accounts or frozenset()
        for account in before - now:
            tables = self._holding.get(account)
            if tables is not None:
                tables.discard(table_id)
                if not tables:
                    del self._holding[account]
        for account in now - before:
            self._holding.setdefault(account, set()).add(table_id)

    def _seats_changed(self, table_id: str) -> None:
        """The actor changed a seat (`on_seats_changed`): tell the seats, and settle who
        holds a seat there."""
        self.announce(table_id)
        self._seats_moved(table_id)

    def _seats_moved(self, table_id: str) -> None:
        """Accounts that left the table give up their seat claim; between hands the
        cluster's directory learns the new seats."""
        live = self._tables.get(table_id)
        if live is None:
            return
        self._note_idle(live)
        now = frozenset(a for a in live.accounts() if a is not None)
        before = self._held.get(table_id, frozenset())
        if now == before:
            return
        self._hold(table_id, now)
        for account in sorted(before - now):
            self.network.release_seat(account, table_id)
            if account not in live.spectators:
                live.mutes.pop(account, None)
        if live.table.hand is None:
            self.network.changed(live)

    def hold_seats(self, live: LiveTable) -> None:
        """The table's seats as they are are claimed already (a table taken over from its
        journal): whoever leaves later gives the claim back."""
        self._hold(live.table_id, frozenset(a for a in live.accounts() if a is not None))

    async def _seat_points(
        self, variant: str, accounts: tuple[int, int, int, int]
    ) -> tuple[int, int, int, int]:
        """The seated accounts' stored 积分 in `variant`, in seat order (`Table.seat_points`)."""
        async with self._sessions() as session:
            points = await ranks.points_of(session, variant, accounts)
        a, b, c, d = (points[account] for account in accounts)
        return a, b, c, d

    def seated_accounts(self) -> set[int]:
        """Every account sitting at a table of this process."""
        return {a for live in self._tables.values() for a in live.accounts() if a is not None}

    def leave(self, table_id: str, account_id: int) -> None:
        """Free the account's seat; during a hand this is an escape and the seat is freed
        as that hand ends, before it is stored (the leaver may sit again meanwhile)."""
        live = self.require(table_id)
        seat = live.seat_of(account_id)
        if seat is None:
            raise TableError("wrong_table", "you do not sit at this table")
        if live.table.hand is None:
            live.table.seats[seat] = SeatState(None)
            live.table.poke()
            self.announce(table_id)
            self._seats_moved(table_id)
            return
        live.table.submit(Leave(seat))  # the hand ends, and the seat is freed with it

    def submit(self, table_id: str, msg: Inbound) -> None:
        self.require(table_id).table.submit(msg)

    # --- administration ---------------------------------------------------------------------

    async def flush(self, table_id: str) -> None:
        """Return once the table's actor has handled every message submitted so far, and
        the `table_state` (and `seated`) owed then is out, with what waited behind it."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.require(table_id).table.submit(Flush(done))
        await asyncio.wait_for(done, ADMIN_WAIT_SECONDS)
        sender = self._senders.get(table_id)
        if sender is not None and not sender.done():
            await asyncio.wait_for(asyncio.shield(sender), ADMIN_WAIT_SECONDS)

    async def pause(self, table_id: str) -> None:
        """Freeze the table: deadlines keep their remaining time, actions are refused."""
        live = self.require(table_id)
        live.table.submit(AdminPause())
        await self.flush(table_id)
        self.network.pause_changed(live)

    async def resume(self, table_id: str) -> None:
        """Unfreeze the table: deadlines run again from their remaining time."""
        live = self.require(table_id)
        live.table.submit(AdminResume())
        await self.flush(table_id)
        self.network.pause_changed(live)

    async def kick(self, table_id: str, seat: int) -> int | None:
        """Remove whoever sits at `seat`: during a hand an escape (逃跑, RULES.md 1) that
        ends the hand and is settled as one, then the seat is freed. The account removed."""
        live = self.require(table_id)
        account = live.table.seats[seat].account
        if account is None:
            raise TableError("not_found", f"nobody sits at seat {seat}")
        live.table.submit(Leave(seat))  # as in `leave`
        await self.flush(table_id)
        self._tell_kicked(account, table_id)
        return account

    def _tell_kicked(self, account_id: int, table_id: str) -> None:
        """The kicked player learns it at once; sitting at no other table, its socket closes."""
        sink = self._connections.get(account_id)
        told = ErrorMessage(
            code="kicked", message=f"an administrator removed you from table {table_id}"
        )
        if sink is None:
            if self.network.remote:  # a socket on another node: told, left open
                self.network.deliver(account_id, told)
            return
        sink.deliver(told)
        if self._table_of(account_id) is None:
            sink.close(CLOSE_KICKED)

    async def ban(self, account_id: int) -> None:
        """A ban (封号) reaches the account's live session at once, on every node
        (`ban_here` here, `Network.banned` for the others)."""
        self.ban_here(account_id)
        await self.network.banned(account_id)

    def ban_here(self, account_id: int) -> None:
        """The banned account's socket on this node closes with `CLOSE_BANNED` and its seats
        at this node's tables are given up: during a hand an escape (逃跑, as `kick`, then
        freed), between hands freed at once. From now on no action of those seats is
        applied, also one already in the table's inbox."""
        sink = self._connections.pop(account_id, None)
        if sink is not None:
            self.network.disconnected(account_id, sink)
            sink.close(CLOSE_BANNED)
        for live in list(self._tables.values()):
            seat = live.seat_of(account_id)
            if seat is None:
                continue
            live.table.seats[seat].banned = True
            if live.table.hand is None:
                live.table.seats[seat] = SeatState(None)
                live.table.poke()
                self.announce(live.table_id)
                self._seats_moved(live.table_id)
            else:
                live.table.submit(Leave(seat))  # as `leave`: escape, the seat freed with it
            log.warning("table %s: banned account %d leaves seat %d", live.table_id,
                        account_id, seat)

    async def dissolve(self, table_id: str) -> str | None:
        """Dissolve the table (解散): its hand in play is voided (no silver moves, a voided
        record is stored), every seat is freed and the table stops. The voided hand's id."""
        live = self.require(table_id)
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        live.table.submit(AdminDissolve(done))
        voided = await asyncio.wait_for(done, ADMIN_WAIT_SECONDS)
        await self._close(live)
        return voided

    async def _close(self, live: LiveTable) -> None:
        """Stop a table whose seats are free and forget it here and in the cluster."""
        table_id = live.table_id
        await _stop_tables([live])
        closed = ErrorMessage(code="no_table", message=f"table {table_id} was closed")
        self._to_spectators(live, message_text(closed))
        live.spectators.clear()
        self._tables.pop(table_id, None)
        self._owed_watchers.discard(table_id)
        self._forget_seating(table_id)
        for account in sorted(self._held.get(table_id, frozenset())):
            self.network.release_seat(account, table_id)  # (the seats were freed already)
        self._hold(table_id, None)
        self._owed.pop(table_id, None)
        self._owed_seated.pop(table_id, None)
        self._senders.pop(table_id, None)  # it finds no table and ends
        self.network.closed(table_id)
        if live.room is not None and self.rooms is not None:
            self.rooms.closed(live)

    # --- idle tables ------------------------------------------------------------------------

    def _note_idle(self, live: LiveTable) -> None:
        """Start (or stop) the table's idle time as its seats are now."""
        if not live.nobody_plays():
            live.idle_since = None
        elif live.idle_since is None:
            live.idle_since = self.clock.now()

    async def close_idle(self) -> list[str]:
        """Close every table of this node where no person has sat for `idle_close_seconds`,
        between hands (a hand in play or being stored is let finish: the table closes at a
        later sweep), and only while this node may still write for it; the tables closed."""
        if self.idle_close_seconds <= 0:
            return []
        closed = []
        for live in list(self._tables.values()):
            self._note_idle(live)
            since = live.idle_since
            if since is None or self.clock.now() - since < self.idle_close_seconds:
                continue
            if live.table.hand is not None or live.table.settling:
                continue
            try:
                if not (await self.network.may_write([live.table_id]))[0]:
                    continue  # another node owns it now: its owner decides
                done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
                live.table.submit(CloseIdle(done))
                if not await asyncio.wait_for(done, ADMIN_WAIT_SECONDS):
                    continue  # somebody sat down, or a hand was dealt, meanwhile
                if self._tables.get(live.table_id) is not live:
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
        interval = min(IDLE_SWEEP_SECONDS, max(0.05, self.idle_close_seconds / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.close_idle()
            except Exception:
                log.exception("looking for idle tables failed")

    def require(self, table_id: str) -> LiveTable:
        """The live table `table_id` (TableError `not_found` when this node has none)."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("not_found", f"no table {table_id!r}")
        return live

    async def drop(self, table_id: str) -> None:
        """Stop serving a table without ending its hand (another node owns it now)."""
        live = self._tables.pop(table_id, None)
        self._forget_seating(table_id)
        self._hold(table_id, None)  # the seats stay claimed: the new owner holds them
        if live is not None:
            await _stop_tables([live])

    async def stop(self) -> None:
        """Stop every table's actor and ticker. An actor still storing a hand's result is
        given `STOP_GRACE` seconds, then cancelled: that result was never shown, and with a
        cluster its journal keeps the hand for the node that takes the table over."""
        if self._sweeper is not None:
            await cancel_and_wait([self._sweeper])
            self._sweeper = None
        for sender in self._senders.values():
            sender.cancel()
        await _stop_tables(list(self._tables.values()))
        await self._settler.stop(STOP_GRACE)
        await asyncio.gather(*self._senders.values(), return_exceptions=True)
        self._tables.clear()

    # --- connections ----------------------------------------------------------------------

    def connect(self, account_id: int, sink: Sink) -> Sink | None:
        """Route this account's seats to `sink`; the connection it replaces, if any."""
        old = self._connections.get(account_id)
        self._connections[account_id] = sink
        for live in self._tables.values():
            spectator = live.spectators.get(account_id)
            if spectator is not None and spectator.sink is None:  # that socket is replaced
                del live.spectators[account_id]
                self._spectators_changed(live)
        for live, seat in self._tables_of(account_id):
            live.table.submit(Connected(seat))  # after any Disconnected of the old one
            self.announce(live.table_id)
            self.announce(live.table_id, [seat], seated=True)
            # what the table sent that reached no socket (it sat before this socket
            # was connected, or while it was away), cut now: nothing lost or repeated
            lost = self._lost.pop((live.table_id, seat), None)
            if lost is not None:
                for item in live.table.catch_up(seat, lost):
                    self._send(live.table_id, seat, item)
        self.network.connected(account_id, sink)
        return old

    def has_socket(self, account_id: int) -> bool:
        """A table socket of the account is open on this node (quick match seats only
        players who have one, app/tables/matching.py)."""
        return account_id in self._connections

    def disconnect(self, account_id: int, sink: Sink) -> list[tuple[str, int]]:
        """Forget `sink` (unless a newer connection replaced it); the (table, seat) pairs
        the account holds, so that the caller can tell their actors."""
        for live in self._tables.values():  # its watches end with it
            spectator = live.spectators.get(account_id)
            if spectator is not None and spectator.sink is sink:
                self.unwatch(live.table_id, account_id)
        if self._connections.get(account_id) is not sink:
            return []
        del self._connections[account_id]
        self.network.disconnected(account_id, sink)
        held = [(live.table_id, seat) for live, seat in self._tables_of(account_id)]
        for table_id, _ in held:
            self.announce(table_id)
        return held

    def _send(self, table_id: str, seat: int, item: Outbound) -> None:
        """Send a table's item to a seat: after the seat's `seated` and `table_state` when
        those are owed (a seat learns its seat before any event of a hand it is in)."""
        if seat in self._seating.get(table_id, ()):
            self._behind.setdefault((table_id, seat), []).append(item)
            return
        self._send_now(table_id, seat, item)

    def _release(self, table_id: str, seat: int) -> None:
        """The seat's `seated` and `table_state` are out: send what waited behind them."""
        if seat in self._owed_seated.get(table_id, ()):
            return  # another `seated` is owed: hold on until that one is out
        seating = self._seating.get(table_id)
        if seating is not None:
            seating.discard(seat)
        for item in self._behind.pop((table_id, seat), []):
            self._send_now(table_id, seat, item)

    def _forget_seating(self, table_id: str) -> None:
        self._seating.pop(table_id, None)
        for seat in range(4):
            self._behind.pop((table_id, seat), None)
            self._lost.pop((table_id, seat), None)

    def _send_now(self, table_id: str, seat: int, item: Outbound) -> None:
        live = self._tables.get(table_id)
        if live is None:
            return
        account = live.table.seats[seat].account
        sink = self._connections.get(account) if account is not None else None
        try:
            if sink is None:
                if account is not None and self.network.remote:  # a socket on another node
                    self.network.deliver_encoded(account, encoded_message(live, seat, item))
                elif account is not None:  # kept for the seat's next connection
                    lost = item.seq if isinstance(item, EventOut) else live.table.seq + 1
                    self._lost.setdefault((table_id, seat), lost)
                return
            deliver_encoded = getattr(sink, "deliver_encoded", None)
            if deliver_encoded is None:
                sink.deliver(wire_message(live, seat, item))
            else:
                deliver_encoded(encoded_message(live, seat, item))
        except Exception:  # a bad conversion must not reach the actor
            log.exception("table %s: cannot send %r to seat %d", table_id, item, seat)

    # --- table_state ----------------------------------------------------------------------

    def announce(self, table_id: str, seats: Iterable[int] = _ALL_SEATS, *,
                 seated: bool = False) -> None:
        """Send ``table_state`` to `seats` (connected ones) soon, ``seated`` first when asked;
        several calls before the sender runs make one message per seat. Announced to every
        seat (the default), it goes to the spectators too."""
        if table_id not in self._tables:
            return
        chosen = set(seats)
        if seats is _ALL_SEATS:
            self._owed_watchers.add(table_id)
        self._owed.setdefault(table_id, set()).update(chosen)
        if seated:
            self._owed_seated.setdefault(table_id, set()).update(chosen)
            self._seating.setdefault(table_id, set()).update(chosen)
        sender = self._senders.get(table_id)
        if sender is None or sender.done():
            self._senders[table_id] = asyncio.create_task(
                self._send_table_state(table_id), name=f"table-state-{table_id}"
            )

    async def _send_table_state(self, table_id: str) -> None:
        while (seats := self._owed.pop(table_id, None)) is not None:
            seated = self._owed_seated.pop(table_id, set())
            try:
                live = self._tables.get(table_id)
                if live is None:
                    self._forget_seating(table_id)
                    return
                # the names and silver as the last store or read left them, if recent
                fresh = self.clock.now() - live.profiles_at < PROFILES_FRESH
                profiles = live.profiles if fresh else {}
                for _ in range(3):  # a seat may change while the profiles are read
                    wanted = {a for a in live.accounts() if a is not None}
                    if wanted <= profiles.keys():
                        break
                    try:
                        profiles = live.profiles = await self._profiles(wanted)
                        live.profiles_at = self.clock.now()
                    except (SQLAlchemyError, OSError):  # the database away: the last read
                        log.warning("table %s: profiles unreadable; sending the last known",
                                    table_id)
                        profiles = live.profiles
                        break
                message = self.table_state(live, profiles)
                owed_seated = self._owed_seated.get(table_id, set())
                for seat in sorted(seats):
                    if seat in owed_seated and seat not in seated:
                        continue  # sat meanwhile: `seated` first, in the next round
                    if seat in seated:
                        self._deliver(live, seat, SeatedMessage(
                            table_id=table_id, seat=seat, variant=as_variant(live.variant), stake=live.stake
                        ))
                    self._deliver(live, seat, message)
                    account = live.table.seats[seat].account
                    if seat in seated and account is not None and live.mutes.get(account):
                        self._deliver(live, seat, self.muted_message(live, account))
                if table_id in self._owed_watchers:
                    self._owed_watchers.discard(table_id)
                    self._to_spectators(live, message_text(message))
            except Exception:
                log.exception("table %s: cannot send table_state", table_id)
            finally:
                for seat in seated:
                    self._release(table_id, seat)

    async def _profiles(self, accounts: set[int]) -> dict[int, tuple[str, int]]:
        """Each account's name and silver, as the store has them now (a few reads at once,
        like the stores: a burst of endings changes many tables' seats together)."""
        async with self._profiles_gate, self._sessions() as session, session.begin():
            rows = await session.execute(
                select(Account.id, Account.username, Account.balance).where(
                    Account.id.in_(sorted(accounts))
                )
            )
            return {account_id: (name, balance) for account_id, name, balance in rows.all()}

    def table_state(
        self, live: LiveTable, profiles: dict[int, tuple[str, int]]
    ) -> TableStateMessage:
        """The table as every seat may see it: no tile, only who sits where and how."""
        seats = []
        between_hands = live.table.hand is None
        ready = live.table.ready_seats
        for number, seat in enumerate(live.table.seats):
            account = seat.account
            if account is None:
                seats.append(SeatInfo(seat=number, name=None, title=None, balance=None,
                                      connected=False, ready=False, autoplay=False))
                continue
            name, balance = profiles.get(account, (None, None))
            # a bot is always there; a player is there with a socket and not marked away
            connected = account in live.bots or (
                seat.connected and (account in self._connections or self.network.remote)
            )
            seats.append(SeatInfo(
                seat=number,
                name=name,
                title=None if balance is None else ranks.title_of(balance),
                balance=balance,
                connected=connected,
                # between hands: said ready (准备) for the next one; during one: there
                ready=connected and (number in ready or account in live.bots or not between_hands),
                autoplay=seat.autoplay,
            ))
        table = live.table
        return TableStateMessage(
            table_id=live.table_id,
            variant=as_variant(live.variant),
            dealer=table.dealer,
            hand_id=table.hand_id if table.hand is not None else None,
            seats=seats,
            settling=table.settling,
            next_hand_ms=None if (wait := table.next_deal_in) is None else round(wait * 1000),
            spectators=len(live.spectators),
        )

    def _deliver(self, live: LiveTable, seat: int, message: ServerMessage) -> None:
        account = live.table.seats[seat].account
        if account is not None:
            self.tell(account, message)

    def tell(self, account: int, message: ServerMessage) -> None:
        """Send `message` to the account's socket: here, or on another node of the cluster."""
        sink = self._connections.get(account)
        if sink is not None:
            sink.deliver(message)
        elif self.network.remote:  # a socket on another node, if any
            self.network.deliver(account, message)

    # --- spectators (旁观) ------------------------------------------------------------------

    def watch(
        self, table_id: str, account_id: int, code: str | None = None, node: str | None = None
    ) -> None:
        """`account_id` watches the table from now on (again: a fresh start), through its
        socket here, or (`node`) through the node of the cluster that holds it. It is sent
        ``watching``, the observer's snapshot of the hand (if the table has dealt), then
        every event as an observer sees it; ``table_state`` follows. TableError: `no_table`,
        `seated_here`, `wrong_room_code`, `spectators_not_allowed`, `spectators_full`."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        if live.seat_of(account_id) is not None:
            raise TableError("seated_here", "you sit at this table: your seat shows it")
        if live.room is not None and code != live.room:
            raise TableError("wrong_room_code", "this private room is watched with its code")
        if not live.spectators_allowed:
            raise TableError("spectators_not_allowed", "this room's owner allows no spectators")
        if account_id not in live.spectators and len(live.spectators) >= self.max_spectators:
            raise TableError(
                "spectators_full", f"this table has {self.max_spectators} spectators already"
            )
        sink = None if node is not None else self._connections.get(account_id)
        if sink is None and node is None:
            return  # the socket closed meanwhile
        spectator = Spectator(account_id, sink, node)
        live.spectators[account_id] = spectator
        table = live.table
        snapshot = table.public_snapshot()
        watching = WatchingMessage(
            table_id=table_id, variant=as_variant(live.variant), stake=live.stake,
            seq=table.shown_seq, spectators=len(live.spectators),
        )
        self._to_spectators(live, message_text(watching), [spectator])
        if snapshot is not None:
            view = SnapshotMessage(
                table_id=table_id, hand_id=snapshot.hand_id, seq=snapshot.seq,
                view=view_model(snapshot.view), deadline_ms=None,
            )
            self._to_spectators(live, message_text(view), [spectator])
        if live.mutes.get(account_id):
            self._to_spectators(
                live, message_text(self.muted_message(live, account_id)), [spectator]
            )
        self._spectators_changed(live)

    def unwatch(self, table_id: str, account_id: int) -> None:
        """The account watches the table no longer (nothing when it did not)."""
        live = self._tables.get(table_id)
        if live is None or live.spectators.pop(account_id, None) is None:
            return
        if live.seat_of(account_id) is None:
            live.mutes.pop(account_id, None)
        self._spectators_changed(live)

    def drop_spectators(self, table_id: str) -> None:
        """End every watch of the table (a private room's owner turned spectators off); each
        spectator is told (``spectators_not_allowed``)."""
        live = self._tables.get(table_id)
        if live is None or not live.spectators:
            return
        told = ErrorMessage(code="spectators_not_allowed",
                            message="this room's owner allows no spectators now")
        self._to_spectators(live, message_text(told))
        for account in list(live.spectators):
            self.unwatch(table_id, account)

    def _spectators_changed(self, live: LiveTable) -> None:
        """The spectators came or went: the table sends them its events while there are
        any, and every seat and spectator is told how many there are."""
        table_id = live.table_id
        live.table.public = (
            (lambda item: self._send_public(table_id, item)) if live.spectators else None
        )
        self.announce(table_id)

    def _send_public(self, table_id: str, item: EventOut) -> None:
        """The observers' copy of one event, written once for every spectator."""
        live = self._tables.get(table_id)
        if live is None or not live.spectators:
            return
        try:
            self._to_spectators(live, event_text(table_id, item.hand_id, item.seq, item.event))
        except Exception:  # a bad conversion must not reach the actor
            log.exception("table %s: cannot send event %d to its spectators", table_id, item.seq)

    def _to_spectators(
        self, live: LiveTable, encoded: Encoded, chosen: Iterable[Spectator] | None = None
    ) -> None:
        """Queue `encoded` for the spectators (`chosen`, or all): a socket here as watched
        text, those of another node in one message per node. A socket that was closed, or
        is closed now because it let too much wait, is no longer a spectator."""
        remote: dict[str, list[int]] = {}
        gone = []
        for spectator in list(live.spectators.values()) if chosen is None else chosen:
            send = spectator.send
            if send is None:
                if spectator.node is not None:
                    remote.setdefault(spectator.node, []).append(spectator.account)
                continue
            send(encoded)  # a closed socket takes nothing
            if spectator.gone:
                gone.append(spectator.account)
        for node, accounts in remote.items():
            self.network.deliver_watched(node, accounts, encoded)
        if gone:
            for account in gone:
                live.spectators.pop(account, None)
                if live.seat_of(account) is None:
                    live.mutes.pop(account, None)
            self._spectators_changed(live)

    def remote_spectators(self) -> list[tuple[str, int, str]]:
        """(table, account, node) of every spectator whose socket is on another node (the
        cluster checks they are still there)."""
        return [
            (live.table_id, s.account, s.node)
            for live in self._tables.values() for s in live.spectators.values()
            if s.sink is None and s.node is not None
        ]

    # --- quick chat (快捷语) -----------------------------------------------------------------

    def chat(self, table_id: str, account_id: int, phrase: str) -> None:
        """A seated player says `phrase` (of the fixed list, checked at the edge): every
        player at the table and every spectator is sent ``chat``, except those who muted
        the player. TableError: `no_table`, `wrong_table` (not seated: spectators do not
        chat), `chat_limited`."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        seat = live.seat_of(account_id)
        if seat is None:
            raise TableError("wrong_table", "only a player seated at the table chats there")
        if not self._chat.take(account_id, self.clock.now()):
            raise TableError(
                "chat_limited",
                f"at most {self._chat.burst} phrases at once, then one every "
                f"{self._chat.refill:g} s",
            )
        said = ChatMessage(table_id=table_id, seat=seat, phrase=phrase)  # type: ignore[arg-type]
        for number, account in enumerate(live.accounts()):
            if account is None or account in live.bots:
                continue
            if account_id not in live.mutes.get(account, ()):
                self._deliver(live, number, said)
        listening = [
            s for a, s in live.spectators.items() if account_id not in live.mutes.get(a, ())
        ]
        if listening:
            self._to_spectators(live, message_text(said), listening)

    def mute(self, table_id: str, account_id: int, seat: int, on: bool) -> MutedMessage:
        """The account (seated at or watching the table) stops (or starts again) receiving
        the chat of the player at `seat`; its mutes as they are now. TableError:
        `no_table`, `wrong_table` (neither seated nor watching), `bad_seat` (empty, or its
        own)."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        if live.seat_of(account_id) is None and account_id not in live.spectators:
            raise TableError("wrong_table", "you neither sit at nor watch this table")
        target = live.accounts()[seat]
        if target is None or target == account_id:
            raise TableError("bad_seat", f"nobody else sits at seat {seat}")
        muted = live.mutes.setdefault(account_id, set())
        if on:
            muted.add(target)
        else:
            muted.discard(target)
            if not muted:
                del live.mutes[account_id]
        return self.muted_message(live, account_id)

    def muted_message(self, live: LiveTable, account_id: int) -> MutedMessage:
        """The seats whose players `account_id` has muted at the table, as they sit now."""
        muted = live.mutes.get(account_id, set())
        return MutedMessage(
            table_id=live.table_id,
            seats=[n for n, a in enumerate(live.accounts()) if a is not None and a in muted],
        )

    # --- the end of a hand ----------------------------------------------------------------

    async def _on_hand_end(self, record: HandRecordData) -> Silver | None:
        """Store the hand (`results.store_hand`: record, silver, stats, disconnects), retrying
        with backoff until the database has it; once stored, what each seat's balance moved
        by, and only then does the table show its result and deal on (`settling` meanwhile,
        in ``table_state``). None: a newer owner of the table exists, and stores the hand
        from the journal itself."""
        live = self._tables.get(record.table_id)
        stake = live.stake if live is not None else 0
        ended_at = self._wall_clock()  # the disconnects' time, the same in every attempt
        ended = time.perf_counter()
        delay = STORE_RETRY_FIRST
        failures = 0
        while True:
            try:
                stored = await self._store(record, stake, ended_at)
                if stored is None:
                    log.warning("table %s: a newer owner exists; hand %s not stored here",
                                record.table_id, record.hand_id)
                    return None
                break
            except Exception:
                failures += 1
                metrics.settled("failed")
                if failures == 1:
                    log.exception("table %s: storing hand %s failed; retrying until stored",
                                  record.table_id, record.hand_id)
                    self.announce(record.table_id)  # settling, and for how long it takes
                else:
                    log.warning("table %s: storing hand %s failed %d times; retrying",
                                record.table_id, record.hand_id, failures)
                await asyncio.sleep(delay)
                delay = min(2 * delay, STORE_RETRY_MAX)
        metrics.hand_stored(time.perf_counter() - ended)
        if record.state is not None and not record.voided:
            metrics.settled(record.state.outcome)
        if live is not None:  # what table_state shows next, without reading it again
            live.profiles = {a: (p.name, p.balance) for a, p in stored.profiles.items()}
            live.profiles_at = self.clock.now()
        if live is not None and live.room is not None and self.rooms is not None:
            await self.rooms.hand_stored(live)  # the session's progress, before any deal
        # new balances and titles (after a reseat the actor tells each seat its new seat,
        # in order with the events: `SeatedOut`)
        self.announce(record.table_id)
        try:
            await self.network.hand_stored(live, record, stored)
        except Exception:  # the journal keeps the hand: a new owner stores it again, a no-op
            log.exception("table %s: clearing hand %s from the journal failed",
                          record.table_id, record.hand_id)
        return stored.silver

    async def _store(
        self, record: HandRecordData, stake: int, ended_at: datetime
    ) -> Stored | None:
        """One attempt at storing a hand, with the others waiting then: a burst of endings
        is stored a batch at a time (`Settler`), so that it keeps a bounded share of the
        event loop and every other table's actions go on meanwhile (docs/architecture.md,
        "Settlement bursts"). None: a newer owner of the table exists (the fence)."""
        return await self._settler.store(Job(record, stake, ended_at))

    async def _store_many(self, jobs: Sequence[Job]) -> list[Stored | None | Exception]:
        """The batch's fence (every table's lease, in one read), then its store. A fence
        that cannot be read (Redis away) fails each hand: its caller retries, as a store
        that failed."""
        try:
            ours = await self.network.may_write([job.record.table_id for job in jobs])
        except Exception as error:  # noqa: BLE001 - each hand fails, its caller retries
            return [error] * len(jobs)
        mine = [job for job, may in zip(jobs, ours, strict=True) if may]
        stored = iter(await store_hands(self._sessions, mine, self._disconnect_policy))
        return [next(stored) if may else None for may in ours]


async def _stop_tables(tables: Sequence[LiveTable]) -> None:
    for live in tables:
        live.table.submit(Stop())
        live.tasks[1].cancel()
    tasks = [task for live in tables for task in live.tasks]
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=STOP_GRACE)
    await cancel_and_wait(pending)
    await asyncio.gather(*tasks, return_exceptions=True)  # retrieves every outcome
