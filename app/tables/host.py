"""One table of this node and everything that is its own (DESIGN.md, "One owner per thing"):
its actor (`app.tables.actor.TableActor`: the hand, the seats, the inbox), its outbox to the four
seats (`Outbox`), its ``table_state`` (`Announcer`), its spectators and chat (`Watchers`),
and its lifetime (`Lifetime`). The registry finds a table and routes to it; what changes
a table is asked of its host, and its seats only of its actor, through the inbox.

- a seat taken (`seats_moved`: the actor reports who sits where after every message) owes
  ``seated`` and ``table_state`` before anything else of the table, ends the account's
  watch and forgets what the seat's last holder missed;
- a new socket of a seated player (`greet`) connects the seat and gets ``seated`` and
  ``table_state``, then what the table sent while the player had no socket;
- the lifetime is one state (`Lifetime`) with its transitions in one place (`_move`):
  opening (made, not serving yet: taken over from a journal, or being listed), live,
  closing (dissolved or idle: its seats freed, being stopped), handed over (another node
  owns it now: stopped without ending its hand) and closed.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, TypeVar

from app.ops.tasks import cancel_and_wait
from app.protocol import MutedMessage
from app.protocol.encode import Encoded
from app.rules.events import Event
from app.rules.state import HandState
from app.tables.actor import TableActor
from app.tables.announce import ALL_SEATS, Announcer, ProfileReads
from app.tables.clock import Clock
from app.tables.errors import UNAVAILABLE, TableError
from app.tables.messages import (
    AdminDissolve,
    CloseIdle,
    Connected,
    Flush,
    Leave,
    Sit,
    Stop,
)
from app.tables.outbox import Outbox
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData, Paid
from app.tables.settlement.service import Settlement
from app.tables.sockets import Sockets
from app.tables.timers import Timers
from app.tables.watchers import ChatLimits, Watchers

log = logging.getLogger(__name__)

Status = Literal["waiting", "playing"]
ANSWER_SECONDS = 10.0  # how long a request waits for the table's actor to answer it
_T = TypeVar("_T")


class Lifetime(enum.Enum):
    OPENING = "opening"
    LIVE = "live"
    CLOSING = "closing"
    HANDED_OVER = "handed_over"
    CLOSED = "closed"


MOVES: dict[Lifetime, frozenset[Lifetime]] = {
    Lifetime.OPENING: frozenset({Lifetime.LIVE, Lifetime.HANDED_OVER, Lifetime.CLOSED}),
    Lifetime.LIVE: frozenset({Lifetime.CLOSING, Lifetime.HANDED_OVER, Lifetime.CLOSED}),
    Lifetime.CLOSING: frozenset({Lifetime.CLOSED}),
    Lifetime.HANDED_OVER: frozenset({Lifetime.CLOSED}),
    Lifetime.CLOSED: frozenset(),
}
"""The lifetime's transitions: from each state, the states it may move to."""


@dataclass(slots=True)
class TableParts:
    """What every table of this node shares: the sockets, the clock, the chat limits, the
    profile reads, the spectators' limit and the hands' settlement."""

    sockets: Sockets
    clock: Clock
    chat: ChatLimits
    reads: ProfileReads
    max_spectators: int
    settlement: Settlement


class LiveTable:
    """One table of this node (the module's rules): its actor, its stake (silver per
    point), its tasks, and what it sends its seats and spectators."""

    def __init__(
        self, table_id: str, variant: str, stake: int, timers: Timers, table: TableActor,
        parts: TableParts, *, room: str | None = None, tournament: int | None = None,
    ) -> None:
        self.table_id = table_id
        self.variant = variant
        self.stake = stake
        self.timers = timers
        self.table = table
        self.tasks: list[asyncio.Task[None]] = []
        self.creator: int | None = None  # who opened it in the lobby (its table limit)
        # the last event sent and its text, shared by the seats that see the same copy
        self.last_event: tuple[int, Event, Encoded] | None = None
        # since when (the clock) no person sits here (empty or bots); None: one does
        self.idle_since: float | None = None
        # a private room's code (好友房, app/api/rooms.py): not listed in the lobby, seated
        # only through the room; None: a public table
        self.room = room
        # the tournament whose round this room's table plays (app/tournaments): it keeps
        # its seats, never closes as idle, and a player's leaving forfeits
        self.tournament = tournament
        # a private room's session: None while not known (no hand is dealt), then whether
        # it is over (no more hands)
        self.session_over: bool | None = None
        self.lifetime = Lifetime.OPENING
        self._sockets = parts.sockets
        self._settlement = parts.settlement
        self.outbox = Outbox(self, parts.sockets)
        table.sent = self.outbox.sent  # a resume answers what its connection was not sent
        self.watchers = Watchers(self, table, parts.sockets, parts.chat, parts.clock,
                                 parts.max_spectators)
        self.announcer = Announcer(self, self.outbox, parts.sockets, parts.reads, parts.clock)
        self._held: frozenset[int] = frozenset()  # the accounts seated as last reported

    # --- lifetime ---------------------------------------------------------------------------

    def move(self, to: Lifetime) -> bool:
        """Move the lifetime to `to`; False (and nothing moved) when it may not go there
        from where it is (a table closed already, handed over twice)."""
        if to not in MOVES[self.lifetime]:
            return False
        log.debug("table %s: %s -> %s", self.table_id, self.lifetime.value, to.value)
        self.lifetime = to
        return True

    async def settle(self, record: HandRecordData) -> Paid | None:
        """The actor's ended hand, to its settlement (app/tables/settlement), which stores and
        pays it, retrying until the database has it (``table_state`` says `settling` from
        the first failure); what each seat's balance moved by, and only then does the
        table show its result and deal on. None: a newer owner of the table exists and
        stores the hand from the journal itself."""
        stored = await self._settlement.settle(record, self.stake, retrying=self.announce)
        return None if stored is None else stored.paid

    # --- who sits where (read; the actor writes) ------------------------------------------

    @property
    def seats(self) -> list[SeatState]:
        return self.table.seats

    def accounts(self) -> list[int | None]:
        return [seat.account for seat in self.table.seats]

    def account_at(self, seat: int) -> int | None:
        return self.table.seats[seat].account

    def seat_of(self, account_id: int) -> int | None:
        for seat, state in enumerate(self.table.seats):
            if state.account == account_id:
                return seat
        return None

    @property
    def bots(self) -> set[int]:
        """The seated house bots' accounts (the greedy bot plays them for good)."""
        return {s.account for s in self.table.seats if s.account is not None and s.house_bot}

    def nobody_plays(self) -> bool:
        """No person sits here: every seat is empty or a house bot's (a tournament's
        table is the event's, played whoever sits)."""
        return self.tournament is None and all(seat.account is None or seat.house_bot for seat in self.table.seats)

    @property
    def status(self) -> Status:
        return "playing" if self.table.hand is not None else "waiting"

    @property
    def hand(self) -> HandState | None:
        return self.table.hand

    @property
    def seq(self) -> int:
        return self.table.seq

    @property
    def bot_level(self) -> str:
        """Who plays its house bots' seats: beginner, standard or expert (levels.py)."""
        return self.table.bot_level

    @property
    def options(self) -> dict[str, object] | None:
        """The variant's options when a private room changed them, as stored (JSON)."""
        options = self.table.ruleset.options
        return None if options == self.table.ruleset.default_options() else asdict(options)

    # --- seats and sockets ------------------------------------------------------------------

    def seats_moved(self) -> tuple[frozenset[int], frozenset[int]]:
        """The actor reported its seats: every account new here is owed ``seated`` (its
        watch ends, and what the seat's last holder missed is forgotten); an account that
        left loses its mutes. The accounts seated before and now."""
        before = self._held
        now = frozenset(a for a in self.accounts() if a is not None)
        self._held = now
        for seat, account in enumerate(self.accounts()):
            if account is None or account in before:
                continue
            self.watchers.sat_down(account)
            self.outbox.forget_lost(seat)
            self.announcer.announce([seat], seated=True)
        for account in before - now:
            self.watchers.left(account)
        return before, now

    def hold_seats(self) -> frozenset[int]:
        """The seats as they are were taken before this node served the table (taken over
        from its journal): nobody is new at them. The accounts seated."""
        self._held = frozenset(a for a in self.accounts() if a is not None)
        return self._held

    def greet(self, seat: int, missed_from: int | None) -> None:
        """A new socket of the seat's account: the seat is connected, the socket gets
        ``seated`` and ``table_state`` and, held behind them, what the table sent from
        event `missed_from` on (None: nothing)."""
        self.table.submit(Connected(seat))  # after any Disconnected of the old one
        self.announce()
        self.announce([seat], seated=True)
        if missed_from is not None:
            for item in self.table.catch_up(seat, missed_from):
                self.outbox.send(seat, item)

    def announce(
        self, seats: Iterable[int] = ALL_SEATS, *, seated: bool = False,
        new_connection: bool = True,
    ) -> None:
        """``table_state`` to `seats` soon (`Announcer.announce`)."""
        self.announcer.announce(seats, seated=seated, new_connection=new_connection)

    # --- what the announcer asks ------------------------------------------------------------

    def table_facts(self) -> TableActor:
        return self.table

    def spectators_count(self) -> int:
        return len(self.watchers)

    def muted_message(self, account_id: int) -> MutedMessage | None:
        return self.watchers.muted_message(account_id) if self.watchers.mutes.get(account_id) \
            else None

    def to_spectators(self, encoded: Encoded) -> None:
        self.watchers.send(encoded)

    # --- what is asked of the table, through its inbox ---------------------------------

    async def sit(self, account_id: int, seat: int | None, bot: bool) -> int:
        """Seat `account_id` (at `seat`, or the first empty one): the table's answer, the
        seat taken (TableError: refused, or no answer in `ANSWER_SECONDS`)."""
        if self.lifetime is not Lifetime.LIVE:
            raise TableError("not_found", f"no table {self.table_id!r}")
        if self.seat_of(account_id) is not None:
            raise TableError("already_seated", "you already sit at this table")
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.table.submit(Sit(account_id, seat, bot, done))
        return await self._answer(done)

    async def leave(self, account_id: int) -> None:
        """Free the account's seat: between hands return once the table has done it; during
        a hand this is an escape and the seat is freed as that hand ends, before it is
        stored (the leaver may sit again meanwhile)."""
        seat = self.seat_of(account_id)
        if seat is None:
            raise TableError("wrong_table", "you do not sit at this table")
        self.table.submit(Leave(seat, account_id))
        if self.table.hand is None:
            await self.handled()

    async def handled(self) -> None:
        """Return once the actor has handled every message submitted so far."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.table.submit(Flush(done))
        await self._answer(done)

    async def flush(self) -> None:
        """Return once the actor has handled every message submitted so far, a hand it was
        storing then is stored and shown, and the `table_state` (and `seated`) owed then is
        out, with what waited behind it."""
        while True:
            await self.handled()
            storing = self.table.settling_task
            if storing is None:
                break
            try:  # its `Settled` is in the inbox once it is done: handled at the next turn
                await asyncio.wait_for(asyncio.shield(storing), ANSWER_SECONDS)
            except TimeoutError:
                raise TableError(UNAVAILABLE, f"table {self.table_id} is still storing a "
                                 "hand; try again") from None
        try:
            await asyncio.wait_for(self.announcer.sent(), ANSWER_SECONDS)
        except TimeoutError:
            raise TableError(UNAVAILABLE, f"table {self.table_id} did not answer") from None

    async def dissolve(self) -> str | None:
        """Void the hand in play (no silver moves, a voided record is stored) and free every
        seat; the voided hand's id. The caller closes the table."""
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.table.submit(AdminDissolve(done))
        return await self._answer(done)

    async def close_if_idle(self) -> bool:
        """Between hands, with no person seated, free every seat: whether it did (somebody
        may have sat down, or a hand been dealt, meanwhile)."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.table.submit(CloseIdle(done))
        return await self._answer(done)

    async def _answer(self, done: asyncio.Future[_T]) -> _T:
        """What the actor answered, within `ANSWER_SECONDS` (`table_unavailable` after)."""
        try:
            return await asyncio.wait_for(done, ANSWER_SECONDS)
        except TimeoutError:
            raise TableError(UNAVAILABLE, f"table {self.table_id} did not answer; "
                             "try again") from None

    # --- stopping ---------------------------------------------------------------------------

    def stopped(self) -> None:
        """The actor stopped: nothing more is sent from here."""
        self.announcer.stop()
        self.outbox.clear()


STOP_GRACE = 2.0  # seconds a stopping actor has to finish storing a hand


async def stop_tables(tables: Sequence[LiveTable]) -> None:
    """Stop each table's actor and ticker, giving a hand being stored (a voided hand's
    record, a result) `STOP_GRACE` seconds, then cancelling what is left."""
    for live in tables:
        live.table.submit(Stop())
        live.tasks[1].cancel()
    tasks = [task for live in tables for task in live.tasks]
    tasks += [t for live in tables if (t := live.table.settling_task) is not None]
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=STOP_GRACE)
        await cancel_and_wait(pending)
        await asyncio.gather(*tasks, return_exceptions=True)  # retrieves every outcome
    for live in tables:
        live.stopped()
