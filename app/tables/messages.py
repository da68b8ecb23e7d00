"""The values that go into a table's inbox and out to its seats, in the rules core's own
types (the wire protocol translates to and from these at the edge).

Inbox: everything that may change a table is one of these, handled one at a time.
Outbox: `send(seat, item)` delivers one of the `Outbound` values to one seat; events are
already redacted for that seat (`Event.for_seat`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from app.rules.actions import Action
from app.rules.events import Event, SeatPenalty
from app.rules.hints import ReadyDiscard
from app.rules.state import Preset
from app.tables.settlement.record import Silver

# --- inbox ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerAction:
    """A seat's answer to its prompt; `last_seq` is the last event seq the client saw;
    `received`: when its frame arrived (`time.perf_counter()`, for the action latency
    metric; 0: not stamped)."""

    seat: int
    action: Action
    last_seq: int
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class Resume:
    """A (re)connecting client: resend what it missed after `last_seq`, or a snapshot."""

    seat: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class Autoplay:
    """The player switches 托管 on or off; on, at the level they chose (standard or
    expert)."""

    seat: int
    on: bool
    level: str = "standard"


@dataclass(frozen=True, slots=True)
class Ready:
    """准备: the seat's player is ready for the next hand."""

    seat: int


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The seat's connection dropped (not an escape: its timers run and 托管 plays it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Connected:
    """The seat's player has a connection again (before any ``resume``): no longer away."""

    seat: int


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the table: an escape (逃跑) during a hand, leaving the seat between hands.
    `account`: only if that account still sits there (a leave asked from outside, which
    may arrive after the seat changed hands)."""

    seat: int
    account: int | None = None


@dataclass(frozen=True, slots=True)
class Sit:
    """Seat `account` at `seat` (None: the first empty one); a `bot` seat is a house bot's,
    on 托管 for good. `done` gets the seat taken, or the `TableError` that refused it."""

    account: int
    seat: int | None
    bot: bool
    done: asyncio.Future[int]


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock moved: expired deadlines are acted on."""


@dataclass(frozen=True, slots=True)
class AdminPause:
    """Freeze the table: deadlines stop with their remaining time kept; actions refused."""


@dataclass(frozen=True, slots=True)
class AdminResume:
    """Unfreeze the table: deadlines run again from their remaining time."""


@dataclass(frozen=True, slots=True)
class AdminPreset:
    """Admin test mode: the next hand is dealt from this prepared wall, not the seed."""

    preset: Preset


@dataclass(frozen=True, slots=True)
class Stop:
    """End the actor's loop."""


@dataclass(frozen=True, slots=True)
class AdminDissolve:
    """Dissolve the table (解散): the hand in play is voided (no silver moves) and every
    seat is freed. `done` gets the voided hand's id, or None when no hand was in play."""

    done: asyncio.Future[str | None]


@dataclass(frozen=True, slots=True)
class CloseIdle:
    """Free every seat if no person sits at the table (nobody, or house bots only) and no
    hand is in play or being stored; `done` gets True when the seats were freed (the caller
    then closes the table), False when the table is not idle after all."""

    done: asyncio.Future[bool]


@dataclass(frozen=True, slots=True)
class Settled:
    """Hand `hand_id` is stored, and each seat's balance moved by `silver` (None: another
    process owns the table now and reports the hand)."""

    hand_id: str
    silver: Silver | None
    penalties: tuple[SeatPenalty, ...] = ()  # charged apart from the transfers (a disconnect's)


@dataclass(frozen=True, slots=True)
class Flush:
    """Answered (`done`) once every message submitted before it has been handled."""

    done: asyncio.Future[None]


Inbound = (
    PlayerAction | Resume | Autoplay | Ready | Connected | Disconnected | Leave | Sit | Tick
    | AdminPause | AdminResume | AdminPreset | AdminDissolve | CloseIdle | Settled | Flush | Stop
)

# --- outbox ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventOut:
    """One event of the hand, as this seat may see it; every seat gets the same `seq`."""

    seq: int
    hand_id: str
    event: Event


@dataclass(frozen=True, slots=True)
class PromptOut:
    """The seat must decide: exactly its legal actions, and until when (clock seconds)."""

    seq: int
    hand_id: str
    legal: list[Action]
    deadline: float
    remaining: float
    ready: tuple[ReadyDiscard, ...] = ()  # the turn's readiness hints (`Prompt.ready`)
    dead_ends: tuple[Action, ...] = ()  # 上海 claims that close every shape (`Prompt.dead_ends`)


@dataclass(frozen=True, slots=True)
class SnapshotOut:
    """The seat's whole view (`seat_view`) as of `seq`, for a client that missed too much;
    `remaining` is the time left on its prompt, None when it has nothing to decide."""

    seq: int
    hand_id: str
    view: dict[str, Any]
    remaining: float | None


@dataclass(frozen=True, slots=True)
class ErrorOut:
    """A refused message; nothing changed. `ref_seq`: the seq the refused message carried
    (None for what answers no message of the seat's, such as ``hand_voided``)."""

    code: str
    message: str
    ref_seq: int | None


@dataclass(frozen=True, slots=True)
class SeatedOut:
    """The seat's player sits at `seat` now (丽水 redraws the seats after a 版): sent in
    order with the events, after the last hand's ``hand_ended`` and before the next deal."""

    seat: int


Outbound = EventOut | PromptOut | SnapshotOut | ErrorOut | SeatedOut
