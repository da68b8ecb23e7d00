"""What the table knows of each seat besides the hand: who sits there, whether the player
is connected, whether the server plays for them (托管, autoplay), and whether the account
was banned while seated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.tables.errors import TableError
from app.tables.levels import DEFAULT_AUTOPLAY_LEVEL, AutoplayLevel

AUTOPLAY_AFTER_TIMEOUTS = 2
"""Two consecutive timeouts switch a seat to 托管 until the player acts (RULES.md 1)."""


@dataclass(slots=True)
class SeatState:
    account: int | None
    connected: bool = True
    autoplay: bool = False  # 托管: the server answers every prompt (at `BotPace`)
    # the 托管 level the player chose at this table (kept when 托管 ends: a later 托管,
    # also one two timeouts switch on, plays at it); standard until they choose
    autoplay_level: AutoplayLevel = DEFAULT_AUTOPLAY_LEVEL
    # a house bot account (the lobby's "fill with bots"): the full greedy bot plays it,
    # claims included; a player's seat on 托管 never claims (RULES.md 1)
    house_bot: bool = False
    timeouts: int = 0  # consecutive timeouts; an action of the player resets it
    banned: bool = False  # the account was banned: its actions are refused, its seat escapes

    def timed_out(self) -> None:
        """Count one timeout; the second in a row switches the seat to 托管."""
        self.timeouts += 1
        if self.timeouts >= AUTOPLAY_AFTER_TIMEOUTS:
            self.autoplay = True

    def acted(self) -> None:
        """The player acted: 托管 ends (not a house bot's: it plays for good) and the
        timeout count starts again."""
        self.autoplay = self.house_bot
        self.timeouts = 0


def seat_to_take(seats: Sequence[SeatState], account: int, seat: int | None) -> int:
    """The seat `account` takes: `seat`, or the first empty one. TableError when it sits
    here already, the seat is not one or is taken, or every seat is."""
    if any(s.account == account for s in seats):
        raise TableError("already_seated", "you already sit at this table")
    if seat is None:
        free = [n for n, s in enumerate(seats) if s.account is None]
        if not free:
            raise TableError("table_full", "every seat is taken")
        return free[0]
    if not 0 <= seat < len(seats):
        raise TableError("validation_error", f"no seat {seat!r}")
    if seats[seat].account is not None:
        raise TableError("seat_taken", f"seat {seat} is taken")
    return seat
