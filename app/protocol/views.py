"""A seat's view of a hand on the wire: `app.rules.views.seat_view` with tiles as codes.

The view holds only what the seat may see: its own concealed tiles (``hand``), everyone's
melds (not the tiles of another seat's 暗杠), every discard, and the number of tiles left in
the wall, never their order. At the end of the hand every hand is shown.
"""

from __future__ import annotations

from typing import Any, Literal

from app.protocol.actions import WireAction, from_rules_action
from app.protocol.base import SeatNumber, WireModel
from app.protocol.events import MeldKind, PenalizedPayload, event_payload, tiles_to_codes
from app.protocol.tiles import TileCode
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
    wild: TileCode
    substitute: TileCode | None


class MeldView(WireModel):
    kind: MeldKind
    tiles: list[TileCode] | None  # null: another seat's 暗杠, shown face down
    claimed: TileCode | None
    from_seat: SeatNumber | None


class SeatState(WireModel):
    """One seat as the viewer sees it; `hand` is null for other seats until the hand ends."""

    seat: SeatNumber
    hand_count: int
    hand: list[TileCode] | None
    melds: list[MeldView]
    discards: list[TileCode]
    flowers: list[TileCode]
    decision: str | None


class RiverTileView(WireModel):
    """A discard in the order of play; `claimed` once another seat took it."""

    seat: SeatNumber
    tile: TileCode
    claimed: bool


class SeatView(WireModel):
    """Everything one seat may know about the hand now (`seat` null: an observer).

    `phase` is ``claim`` only for a seat offered a claim; others see ``waiting``, so nobody
    learns who could claim. `drawn` is the viewer's own fresh draw on its turn.
    """

    variant: str
    seat: SeatNumber | None
    dealer: SeatNumber
    dice: tuple[int, int]
    wild: WildView | None
    wall_remaining: int
    wall_live: int
    phase: Literal["decide", "turn", "claim", "waiting", "ended"]
    turn: SeatNumber | None
    drawn: TileCode | None
    seats: list[SeatState]
    river: list[RiverTileView]
    penalties: list[PenalizedPayload]
    legal_actions: list[WireAction]
    outcome: str | None
    net: list[int] | None


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
