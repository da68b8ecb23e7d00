"""What one seat may see of a hand, as a typed and frozen value a bot decides from.

`views.seat_view` is the same knowledge as a wire dictionary for a player's client; a bot
gets `SeatView`, made by `see(state, seat, legal)`: its own concealed tiles and drawn tile,
every seat's melds (another seat's 暗杠 face down: its tiles hidden), discards and flowers, the
number of tiles in each hand, the wild, how many tiles the wall still holds, whose turn it is,
the discard or added kong a claim is about, the decisions announced before the deal, and its
own legal actions. Never the wall's order or another seat's concealed tiles: two states that
differ only there give equal views (tests/rules/test_seen.py holds the expert bot to that).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.actions import Action
from app.rules.state import (
    HandRules,
    HandState,
    Meld,
    RiverTile,
    WildSetup,
    effective_counts,
    visible_counts,
)
from app.rules.tiles import Tile

HIDDEN: Tile = -1
"""`Meld.plays_as` of another seat's 暗杠: face down, its tiles are () too."""


@dataclass(frozen=True, slots=True)
class ClaimContext:
    """The tile a claim decision is about: a discard, or a 加杠 being robbed."""

    tile: Tile
    discarder: int
    robbing: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    ruleset: HandRules
    seat: int
    dealer: int
    phase: str  # "decide", "turn" or "claim" (a claim on a discard or on a 加杠)
    turn: int
    wild: WildSetup
    concealed: tuple[int, ...]  # the seat's own concealed tiles, counts of physical kinds
    drawn: Tile | None  # the tile the seat just drew, on its own turn
    hand_counts: tuple[int, int, int, int]
    melds: tuple[tuple[Meld, ...], ...]
    discards: tuple[tuple[Tile, ...], ...]  # per seat, every tile it threw, claimed or not
    river: tuple[RiverTile, ...]
    flowers: tuple[tuple[Tile, ...], ...]
    wall_remaining: int
    wall_live: int
    claim: ClaimContext | None
    decisions: tuple[tuple[int, str], ...]
    legal: tuple[Action, ...]

    def plays_as(self, tile: Tile) -> Tile | None:
        """The kind a physical tile plays as: None for a wild, the face for its substitute."""
        return self.wild.plays_as(tile)

    def effective(self) -> tuple[list[int], int]:
        """The seat's concealed tiles as they play (34 counts) and its wild count, as
        `HandState.effective`."""
        return effective_counts(self.concealed, self.wild)

    def visible(self) -> list[int]:
        """Copies of each physical kind (0-33) the seat can see: its own concealed tiles, the
        melds shown and the unclaimed discards (a claimed one is in a meld)."""
        return visible_counts(self.concealed, self.melds, self.river, self.seat)


def _meld(meld: Meld, own: bool) -> Meld:
    if own or meld.kind != "concealed_kong":
        return meld
    return Meld("concealed_kong", (), HIDDEN)


def see(state: HandState, seat: int, legal: list[Action]) -> SeatView:
    """The view of `seat` (0-3) while the hand is played, with its legal actions."""
    window = state.window
    claim = None
    if state.phase in ("claim", "rob") and window is not None:
        claim = ClaimContext(window.tile, window.discarder, window.robbing)
    phase = "claim" if claim is not None else state.phase
    discards: list[list[Tile]] = [[], [], [], []]
    for r in state.river:
        discards[r.seat].append(r.tile)
    own_turn = state.phase == "turn" and state.turn == seat
    return SeatView(
        ruleset=state.ruleset,
        seat=seat,
        dealer=state.dealer,
        phase=phase,
        turn=state.turn,
        wild=state.wild,
        concealed=tuple(state.concealed[seat]),
        drawn=state.drawn if own_turn else None,
        hand_counts=(
            sum(state.concealed[0]), sum(state.concealed[1]),
            sum(state.concealed[2]), sum(state.concealed[3]),
        ),
        melds=tuple(tuple(_meld(m, s == seat) for m in state.melds[s]) for s in range(4)),
        discards=tuple(tuple(d) for d in discards),
        river=tuple(state.river),
        flowers=tuple(tuple(f) for f in state.flowers),
        wall_remaining=state.wall.remaining,
        wall_live=state.wall.live,
        claim=claim,
        decisions=tuple(sorted(state.decisions.items())),
        legal=tuple(legal),
    )
