"""What one seat may see of a hand, as a pure function of the state.

A seat sees its own concealed tiles and its own legal actions; of the others, the number
of concealed tiles, their melds (not the tiles of a concealed kong) and every discard.
Nobody sees the wall order: only how many tiles are left, and the commitment to the seed
that made it. Whether another seat has been offered a claim is not shown either. When the
hand has ended every hand is revealed, and the seed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.rules.hand import legal_actions, pending_seats
from app.rules.state import HandState, Meld
from app.rules.tiles import tiles_of
from app.rules.wall import commitment


def _meld_view(meld: Meld, visible: bool) -> dict[str, Any]:
    return {
        "kind": meld.kind,
        "tiles": list(meld.tiles) if visible else None,
        "claimed": meld.claimed,
        "from_seat": meld.from_seat,
    }


def seat_view(state: HandState, seat: int | None) -> dict[str, Any]:
    """The view of `seat` (0-3), or of an observer (None) who sees no concealed tile."""
    ended = state.phase == "ended"
    wild = state.wild
    seats = []
    for s in range(4):
        own = s == seat or ended
        seats.append(
            {
                "seat": s,
                "hand_count": sum(state.concealed[s]),
                "hand": tiles_of(state.concealed[s]) if own else None,
                "melds": [
                    _meld_view(m, own or m.kind != "concealed_kong") for m in state.melds[s]
                ],
                "discards": [r.tile for r in state.river if r.seat == s and not r.claimed],
                "flowers": list(state.flowers[s]),
                "decision": state.decisions.get(s),
            }
        )
    mine = seat is not None and not ended
    return {
        "variant": state.ruleset.name,
        "seat": seat,
        "dealer": state.dealer,
        "dice": list(state.dice),
        "wild": None
        if wild.wild is None
        else {"indicator": wild.indicator, "wild": wild.wild, "substitute": wild.substitute},
        "wall_remaining": state.wall.remaining,
        "wall_live": state.wall.live,
        "phase": _phase(state, seat),
        "turn": state.turn if state.phase == "turn" else None,
        "drawn": state.drawn if mine and state.phase == "turn" and state.turn == seat else None,
        "seats": seats,
        "river": [{"seat": r.seat, "tile": r.tile, "claimed": r.claimed} for r in state.river],
        "penalties": [e.to_dict() for e in state.penalties],
        "legal_actions": [
            {"type": a.type, **{k: v for k, v in _fields(a).items() if k != "type"}}
            for a in (legal_actions(state, seat) if mine and seat is not None else [])
        ],
        "outcome": state.outcome,
        "net": list(state.settlement.net()) if state.settlement else None,
        # the seed's commitment from the start; the seed itself only once the hand is over
        "commitment": None if state.arranged else commitment(state.seed),
        "seed": state.seed.hex() if ended and not state.arranged else None,
    }


def revealed_view(state: HandState) -> dict[str, Any]:
    """An administrator's view: an observer's, with every seat's concealed tiles (what
    `seat_view(state, s)` shows seat `s` of its own hand). A 暗杠 stays face down, as the
    table showed it."""
    view = seat_view(state, None)
    for s, shown in enumerate(view["seats"]):
        shown["hand"] = tiles_of(state.concealed[s])
    return view


def _phase(state: HandState, seat: int | None) -> str:
    if state.phase in ("decide", "turn", "ended"):
        return state.phase
    return "claim" if seat is not None and seat in pending_seats(state) else "waiting"


def _fields(action: Any) -> dict[str, Any]:
    return {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}
