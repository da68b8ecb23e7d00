"""What the table actor (`app.tables.actor.TableActor`) gives the parts it is made of: the cycle
of hands (`app.tables.cycle.HandCycle`), the hand in play (`app.tables.play.HandPlay`) and
what was shown (`app.tables.transcript.Transcript`).

They get the actor's fixed parts (its id, ruleset, clock, `send`) as constructor arguments.
What may change after construction they read through `TableSide` as it is now: the seats
(only the actor writes them; a part asks it with `free_seats` or `reseat`), the timers and
the bots' pace, and the hooks the caller sets once the table is made (`public`,
`seat_points`, `may_deal`, `on_shown`). The observer of the table (`HandObserver`, which
names the table) is told through `Journal`. This module imports none of them, so none of
them imports another backwards.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.rules.actions import Action
from app.rules.context import TableContext
from app.rules.hints import ReadyDiscard
from app.rules.state import Preset
from app.tables.messages import EventOut, Inbound, Outbound
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData, Paid
from app.tables.timers import BotPace, Timers

Send = Callable[[int, Outbound], None]
"""How the actor sends a seat one message (its outbox)."""
Public = Callable[[EventOut], None]
"""Where the observers' copy of each event goes (the spectators: `TableActor.public`)."""
# what each seat's balance moved by (with the penalties charged apart: `Paid`); None: another
# process stores and reports the hand
OnHandEnd = Callable[[HandRecordData], Awaitable[Paid | None]]
"""Stores a hand's record and its silver; what each seat's balance moved by, or None when
another process owns the table now and stores the hand itself."""
SeedSource = Callable[[], int | bytes]
"""A hand's seed (bytes; an int stands for its 8-byte form: `app.rules.wall.seed_bytes`)."""
SeatPoints = Callable[[tuple[int, int, int, int]], Awaitable[tuple[int, int, int, int]]]
"""The 积分 (points) the four seated accounts hold as stored, in seat order."""
Order = tuple[int, int, int, int]
"""A new seating: `order[new_seat] = old_seat`."""


class TableSide(Protocol):
    """The table actor as its parts see it: what they read of it as it is now, and the few
    changes they ask of it."""

    @property
    def seats(self) -> list[SeatState]: ...

    @property
    def timers(self) -> Timers: ...

    @property
    def bot_pace(self) -> BotPace: ...

    @property
    def bot_level(self) -> str:
        """The level of the table's house bots (app/tables/levels.py)."""

    @property
    def public(self) -> Public | None:
        """The spectators' copy of every event; None: nobody watches."""

    @property
    def seat_points(self) -> SeatPoints | None:
        """The seats' 积分 for the next hand's context (湖州); None: the context's own."""

    @property
    def may_deal(self) -> Callable[[], bool] | None:
        """Whether another hand may be dealt (a private room's session); None: always."""

    @property
    def on_shown(self) -> Callable[[], None] | None:
        """Told when a stored hand's result is shown (the seats' silver changed with it)."""

    def submit(self, msg: Inbound) -> None:
        """Post a message to the actor's inbox."""

    def free_seats(self, seats: Iterable[int]) -> None:
        """Free these seats: their players leave the table (a tournament's table keeps
        them, on 托管)."""

    def tell_seats(self) -> None:
        """Tell the caller the seats now, if they changed since it was last told."""

    def reseat(self, order: Order) -> None:
        """Move every player to their new seat (`order[new_seat] = old_seat`)."""


class Journal(Protocol):
    """Told of every hand dealt and every action applied, in order (the actor passes it on
    to its `HandObserver`, naming the table)."""

    def hand_started(
        self, hands: int, seed: bytes, ctx: TableContext, preset: Preset | None
    ) -> None: ...

    def action_applied(self, action: Action) -> None: ...


@dataclass(slots=True)
class Prompt:
    """A decision a seat owes: its legal actions as of event `seq`, due at `deadline`.
    While the table is paused `frozen` holds the time that was left. `bot_at`: when the
    server plays the seat itself (a bot or 托管 at `BotPace`), None when it does not. `ready`:
    on a turn of a seat a person holds, each discard that leaves the hand ready (听) and its
    waits (`app.rules.hints`), for the client's marks; empty otherwise."""

    seq: int
    legal: list[Action]
    deadline: float
    frozen: float | None = None
    bot_at: float | None = None
    ready: tuple[ReadyDiscard, ...] = ()  # on a person's turn: the discards that leave it 听
    # in a 上海 claim window of a person's seat: the claims that leave no winning shape
    dead_ends: tuple[Action, ...] = ()

    def remaining(self, now: float) -> float:
        if self.frozen is not None:
            return self.frozen
        return max(0.0, self.deadline - now)


@dataclass(frozen=True, slots=True)
class AdoptedHand:
    """A hand in play as another process journaled it (`TableActor.adopt`)."""

    hand_id: str
    hands: int
    seed: bytes
    ctx: TableContext
    preset: Preset | None
    first_seq: int
    actions: Sequence[Action]

