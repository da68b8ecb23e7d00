"""A seat's view of a hand on the wire: `app.rules.views.seat_view` with tiles as codes.

The view holds only what the seat may see: its own concealed tiles (``hand``), everyone's
melds (not the tiles of another seat's 暗杠), every discard, and the number of tiles left in
the wall, never their order. At the end of the hand every hand is shown.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.protocol.actions import WireAction, from_rules_action
from app.protocol.base import Commitment, SeatNumber, SeedHex, WireModel
from app.protocol.events import PenalizedPayload, event_payload, tiles_to_codes
from app.protocol.tiles import TileCode
from app.protocol.vocabulary import Decision, MeldKind, Outcome, Phase, Variant
from app.rules import actions as rules
from app.rules.events import Penalized

_RULES_ACTIONS: dict[str, type[rules.Action]] = {
    "discard": rules.Discard,
    "chow": rules.Chow,
    "pung": rules.Pung,
    "exposed_kong": rules.ExposedKong,
    "concealed_kong": rules.ConcealedKong,
    "added_kong": rules.AddedKong,
    "hu": rules.Hu,
    "pass": rules.Pass,
    "decide": rules.Decide,
    "special": rules.Special,
}


class WildView(WireModel):
    """The wild (财神 / 百搭 / 金), its turned indicator and its substitute (白板), if any."""

    indicator: TileCode | None
    """the turned tile; null once 福州's 金 was robbed from its place"""
    wild: TileCode
    """the kind of tile that is wild in this hand"""
    substitute: TileCode | None
    """the tile that plays as the wild's face (白板), or null"""


class MeldView(WireModel):
    """A declared set as the viewer sees it."""

    kind: MeldKind
    """which set"""
    tiles: list[TileCode] | None
    """its tiles as they lie; null: another seat's 暗杠, shown face down"""
    claimed: TileCode | None
    """the discard taken into the set, or the tile added to a 加杠; else null"""
    from_seat: SeatNumber | None
    """the seat whose discard was taken; null for 暗杠 and 加杠"""


class SeatState(WireModel):
    """One seat as the viewer sees it; `hand` is null for other seats until the hand ends."""

    seat: SeatNumber
    """the seat, 0-3"""
    hand_count: int = Field(ge=0)
    """how many concealed tiles it holds"""
    hand: list[TileCode] | None
    """its concealed tiles: the viewer's own, or everyone's once the hand has ended; else
    null"""
    melds: list[MeldView]
    """its declared sets"""
    discards: list[TileCode]
    """its discards still in its river (not those claimed by another seat)"""
    flowers: list[TileCode]
    """the flowers it laid out"""
    decision: Decision | None
    """its decision before the deal (温州), or null"""


class RiverTileView(WireModel):
    """A discard in the order of play; `claimed` once another seat took it."""

    seat: SeatNumber
    """the seat that discarded it"""
    tile: TileCode
    """the tile"""
    claimed: bool
    """another seat took it into a set"""


class SeatView(WireModel):
    """Everything one seat may know about the hand now (`seat` null: an observer).

    `phase` is ``claim`` only for a seat offered a claim; others see ``waiting``, so nobody
    learns who could claim. `drawn` is the viewer's own fresh draw on its turn.
    """

    variant: Variant
    """the variant the table plays"""
    seat: SeatNumber | None
    """the viewer's seat; null for an observer"""
    dealer: SeatNumber
    """the dealer (庄家)"""
    dice: tuple[int, int]
    """the dice thrown to break the wall"""
    wild: WildView | None
    """the wild of this hand; null before it is turned, and in 上海 (no wild)"""
    wall_remaining: int = Field(ge=0)
    """tiles left in the wall (never their order)"""
    wall_live: int = Field(ge=0)
    """tiles left that may still be drawn in turn (温州 keeps 16 for kong replacements)"""
    phase: Phase
    """what the hand waits for"""
    turn: SeatNumber | None
    """the seat whose turn it is; null before the deal ends or after the hand"""
    drawn: TileCode | None
    """the viewer's own fresh draw on its turn, or null"""
    seats: list[SeatState] = Field(min_length=4, max_length=4)
    """the four seats, by seat number"""
    river: list[RiverTileView]
    """every discard in the order of play"""
    penalties: list[PenalizedPayload]
    """the penalties of the hand so far"""
    legal_actions: list[WireAction]
    """the viewer's legal actions now (empty unless it must decide)"""
    outcome: Outcome | None
    """how the hand ended; null while it is played"""
    net: list[int] | None
    """per seat, the points won or lost once the hand has ended and is stored; else null"""
    commitment: Commitment | None
    """the commitment to the hand's seed, as `hand_started` carried it (null: a test-mode
    hand dealt from a prepared wall)"""
    seed: SeedHex | None
    """the hand's seed in hex once the hand has ended and is stored, as `hand_ended` carries
    it; else null (never during the hand)"""


def _wire_action(data: dict[str, Any]) -> WireAction:
    fields = {k: v for k, v in data.items() if k != "type"}
    return from_rules_action(_RULES_ACTIONS[data["type"]](**fields))


def _seat(data: dict[str, Any]) -> dict[str, Any]:
    return {
        **data,
        "hand": tiles_to_codes(data["hand"]),
        "melds": [
            {**m, "tiles": tiles_to_codes(m["tiles"]), "claimed": tiles_to_codes(m["claimed"])}
            for m in data["melds"]
        ],
        "discards": tiles_to_codes(data["discards"]),
        "flowers": tiles_to_codes(data["flowers"]),
    }


def view_model(view: dict[str, Any]) -> SeatView:
    """The wire model of a `seat_view(state, seat)` result."""
    wild = view["wild"]
    return SeatView.model_validate(
        {
            **view,
            "wild": None if wild is None else {k: tiles_to_codes(v) for k, v in wild.items()},
            "drawn": tiles_to_codes(view["drawn"]),
            "seats": [_seat(s) for s in view["seats"]],
            "river": [{**r, "tile": tiles_to_codes(r["tile"])} for r in view["river"]],
            "penalties": [_penalty(p) for p in view["penalties"]],
            "legal_actions": [_wire_action(a) for a in view["legal_actions"]],
        }
    )


def _penalty(data: dict[str, Any]) -> PenalizedPayload:
    event = Penalized(data["seat"], data["reason"], data.get("tile"))
    payload = event_payload(event)
    assert isinstance(payload, PenalizedPayload)
    return payload
