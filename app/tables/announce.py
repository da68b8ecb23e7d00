"""A table's ``table_state`` (names, titles, balances, connected, ready, 托管), and ``seated``.

- ``table_state`` goes to every connected seat whenever a seat changes: sit, leave,
  connect, disconnect, 托管 on or off, kick, a reseat, and once a stored hand's result is
  shown (new balances); announced to every seat it goes to the spectators too;
- a seat that sits, connects or resumes gets ``seated`` first (`announce(seated=...)`):
  the seat's outbox holds what the table sends it until both are out (app/tables/outbox.py);
- one sender task per table, so the last message a seat gets is the table as it is:
  several announcements before the sender runs make one message per seat;
- names and silver are read from the store when sent (`ProfileReads`: a few reads at once
  per process), unless the table's copy is younger than `PROFILES_FRESH` and has every
  seat: a hand's store answers its seats' names and silver afterwards
  (`Announcer.stored`), and that is the copy then; with the database away, the last copy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.protocol import MutedMessage, SeatedMessage, SeatInfo, TableStateMessage
from app.protocol.encode import Encoded, message_text
from app.protocol.vocabulary import as_variant
from app.store import ranks
from app.store.models import Account
from app.tables.clock import Clock
from app.tables.levels import bot_level
from app.tables.outbox import Outbox
from app.tables.seats import SeatState
from app.tables.sockets import Sockets

log = logging.getLogger(__name__)

# seconds the names and silver table_state shows are used again before being read again:
# the table's own hands update them as they are stored; this bounds how late a change
# made elsewhere (an operator's adjustment, a top-up of the house's bots) shows
PROFILES_FRESH = 300.0
PROFILE_READS = 16  # table_state reads of names and silver at once per process
ALL_SEATS = range(4)

Profiles = dict[int, tuple[str, int]]
"""Account -> its name and silver."""


class ProfileReads:
    """Each account's name and silver, as the store has them now: a few reads at once per
    process, like the stores (a burst of endings changes many tables' seats together)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._gate = asyncio.Semaphore(PROFILE_READS)

    async def __call__(self, accounts: set[int]) -> Profiles:
        async with self._gate, self._sessions() as session, session.begin():
            rows = await session.execute(
                select(Account.id, Account.username, Account.balance).where(
                    Account.id.in_(sorted(accounts))
                )
            )
            return {account_id: (name, balance) for account_id, name, balance in rows.all()}

    async def points(
        self, variant: str, accounts: tuple[int, int, int, int]
    ) -> tuple[int, int, int, int]:
        """The seated accounts' stored 积分 in `variant`, in seat order (湖州's hand base:
        `TableActor.seat_points`)."""
        async with self._sessions() as session:
            points = await ranks.points_of(session, variant, accounts)
        a, b, c, d = (points[account] for account in accounts)
        return a, b, c, d


class AnnouncedTable(Protocol):
    """What the announcer needs of its table."""

    table_id: str
    variant: str
    stake: int

    @property
    def seats(self) -> list[SeatState]: ...

    @property
    def bots(self) -> set[int]: ...

    @property
    def bot_level(self) -> str: ...

    def table_facts(self) -> TableFacts: ...

    def spectators_count(self) -> int: ...

    def muted_message(self, account_id: int) -> MutedMessage | None: ...

    def to_spectators(self, encoded: Encoded) -> None: ...


class TableFacts(Protocol):
    """The hand's side of ``table_state``: the table actor's."""

    @property
    def dealer(self) -> int: ...

    @property
    def hand_id(self) -> str: ...

    @property
    def hand(self) -> object | None: ...

    @property
    def ready_seats(self) -> frozenset[int]: ...

    @property
    def settling(self) -> bool: ...

    @property
    def next_deal_in(self) -> float | None: ...


class Announcer:
    """The ``table_state`` and ``seated`` of one table (the module's rules)."""

    def __init__(
        self, table: AnnouncedTable, outbox: Outbox, sockets: Sockets, reads: ProfileReads,
        clock: Clock,
    ) -> None:
        self._table = table
        self._outbox = outbox
        self._sockets = sockets
        self._reads = reads
        self._clock = clock
        self._owed: set[int] | None = None  # the seats owed a table_state
        self._owed_seated: set[int] = set()  # ... and `seated` first
        self._owed_watchers = False  # the spectators are owed one
        self._sender: asyncio.Task[None] | None = None
        # each seated account's name and silver as last read (or as the last hand's store
        # left them), and when (the clock)
        self.profiles: Profiles = {}
        self.profiles_at = float("-inf")

    def announce(
        self, seats: Iterable[int] = ALL_SEATS, *, seated: bool = False, new_connection: bool = True
    ) -> None:
        """Send ``table_state`` to `seats` (connected ones) soon, ``seated`` first when asked
        (what the table sends them waits behind it; `new_connection`: see `Outbox.hold`).
        Announced to every seat (the default), it goes to the spectators too."""
        chosen = set(seats)
        if seats is ALL_SEATS:
            self._owed_watchers = True
        self._owed = (self._owed or set()) | chosen
        if seated:
            self._owed_seated |= chosen
            for seat in chosen:
                self._outbox.hold(seat, new_connection=new_connection)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(
                self._send(), name=f"table-state-{self._table.table_id}"
            )

    def stored(self, profiles: Profiles) -> None:
        """A hand's store read the seats' names and silver: the copy table_state shows."""
        self.profiles = profiles
        self.profiles_at = self._clock.now()

    async def sent(self) -> None:
        """Return once what is owed now is out."""
        sender = self._sender
        if sender is not None and not sender.done():
            await asyncio.shield(sender)

    def stop(self) -> None:
        if self._sender is not None:
            self._sender.cancel()

    async def _send(self) -> None:
        table = self._table
        while (seats := self._owed) is not None:
            self._owed = None
            seated, self._owed_seated = self._owed_seated, set()
            try:
                message = self.message(await self._profiles())
                for seat in sorted(seats):
                    if seat in self._owed_seated and seat not in seated:
                        continue  # sat meanwhile: `seated` first, in the next round
                    account = table.seats[seat].account
                    if account is None:
                        continue
                    if seat in seated:
                        self._sockets.send_message(account, SeatedMessage(
                            table_id=table.table_id, seat=seat, variant=as_variant(table.variant),
                            stake=table.stake,
                        ))
                    self._sockets.send_message(account, message)
                    muted = table.muted_message(account) if seat in seated else None
                    if muted is not None:
                        self._sockets.send_message(account, muted)
                if self._owed_watchers:
                    self._owed_watchers = False
                    table.to_spectators(message_text(message))
            except Exception:
                log.exception("table %s: cannot send table_state", table.table_id)
            finally:
                for seat in seated:
                    if seat not in self._owed_seated:  # no other `seated` owed meanwhile
                        self._outbox.release(seat)

    async def _profiles(self) -> Profiles:
        """The names and silver as the last store or read left them, if recent; else read."""
        fresh = self._clock.now() - self.profiles_at < PROFILES_FRESH
        profiles = self.profiles if fresh else {}
        for _ in range(3):  # a seat may change while the profiles are read
            wanted = {s.account for s in self._table.seats if s.account is not None}
            if wanted <= profiles.keys():
                break
            try:
                profiles = self.profiles = await self._reads(wanted)
                self.profiles_at = self._clock.now()
            except (SQLAlchemyError, OSError):  # the database away: the last read
                log.warning("table %s: profiles unreadable; sending the last known",
                            self._table.table_id)
                profiles = self.profiles
                break
        return profiles

    def message(self, profiles: Profiles) -> TableStateMessage:
        """The table as every seat may see it: no tile, only who sits where and how."""
        table = self._table
        facts = table.table_facts()
        bots = table.bots
        between_hands = facts.hand is None
        ready = facts.ready_seats
        seats = []
        for number, seat in enumerate(table.seats):
            account = seat.account
            if account is None:
                seats.append(SeatInfo(seat=number, name=None, title=None, balance=None,
                                      connected=False, ready=False, autoplay=False))
                continue
            name, balance = profiles.get(account, (None, None))
            # a bot is always there; a player is there with a socket and not marked away
            connected = account in bots or (seat.connected and self._sockets.present(account))
            seats.append(SeatInfo(
                seat=number,
                name=name,
                title=None if balance is None else ranks.title_of(balance),
                balance=balance,
                connected=connected,
                # between hands: said ready (准备) for the next one; during one: there
                ready=connected and (number in ready or account in bots or not between_hands),
                autoplay=seat.autoplay,
                autoplay_level=seat.autoplay_level,
            ))
        wait = facts.next_deal_in
        return TableStateMessage(
            table_id=table.table_id,
            variant=as_variant(table.variant),
            dealer=facts.dealer,
            hand_id=facts.hand_id if facts.hand is not None else None,
            seats=seats,
            settling=facts.settling,
            next_hand_ms=None if wait is None else round(wait * 1000),
            spectators=table.spectators_count(),
            bot_level=bot_level(table.bot_level),
        )
