"""A hand as its table hands it over to be settled: everything needed to store a replayable
record and move its silver (`HandRecordData`), and what each seat's balance moved by once it
is stored (`Silver`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.actions import Action
from app.rules.context import Settlement, TableContext
from app.rules.events import Event, SeatPenalty
from app.rules.state import HandState, Preset

Silver = tuple[int, int, int, int]
"""Per seat, the silver its balance moved by with a hand, as the ledger stored it."""


@dataclass(frozen=True, slots=True)
class Paid:
    """A hand stored: what each seat's balance moved by with its settlement, and the
    penalties charged with it apart (a disconnect's), to show with its result."""

    silver: Silver
    penalties: tuple[SeatPenalty, ...] = ()


@dataclass(frozen=True, slots=True)
class Reseat:
    """The seats redrawn after a 版 (丽水, RULES.md 2): `order[new_seat]` is the seat its
    player held before; drawn with `random.Random(seed)` (`draw_seats`)."""

    seed: int
    order: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class HandRecordData:
    """Everything the caller needs to settle silver and store a replayable record:
    `replay(ruleset, seed, ctx, actions, preset)` gives `events` again. A voided hand (the
    actor could not restore it) has no settlement and moves no silver."""

    table_id: str
    hand_id: str
    variant: str
    seed: bytes
    ctx: TableContext
    seats: tuple[int | None, ...]
    actions: list[Action]
    events: list[Event]
    settlement: Settlement | None
    state: HandState | None
    preset: Preset | None = None
    voided: bool = False
    away: tuple[int, ...] = ()  # seats disconnected at the end: they leave the table
    reseat: Reseat | None = None  # this hand ended a 版 and the seats were redrawn
    round_end: bool = False  # this hand ended a 圈 (the deal passed a fourth time)
    session_end: bool = False  # this hand ended a 版 (four 圈), redrawn or not
    options: Any = None  # the variant's options dataclass when not its defaults
