"""Claims that leave a 上海 hand unable to make a winning shape (RULES.md section 6), as pure
functions of the state and of what the claiming seat holds.

上海 wins only with special hands. Most of them are shapes: 清一色 and 混一色 (one suit, with
honours for 混一色), 碰碰胡, 混碰 and 清碰 (no runs: no 吃), 字一色 and 乱风向 (honours only). The
others come by luck or position: 大吊车 (four melds and a single tile), 杠开, 八花, 天胡 and
地胡 (gone once a meld is declared). A declared meld stays for the whole hand while the
concealed tiles can still be thrown away, so a shape family is reachable as long as the
seat's melds allow it: its melds use at most one suit (清一色 also no honour), carry no 吃
(the 碰 families), carry no suited tile (the honour families).

A claim (吃, 碰, 明杠) is a *dead end* when the seat could still reach a shape before it and
none after it: the hand could then win only by 大吊车, 杠开 or 八花. A claim that leaves the
hand where it already was (no shape reachable before either) is not one: it closes nothing.
Only the seat's own melds and the claimed tile are looked at, never another seat's concealed
tiles or the wall. Other variants win with plain hands: they have no dead end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from app.rules.actions import Action, Chow, ExposedKong, Pung
from app.rules.hand import legal_actions
from app.rules.state import HandState, Meld
from app.rules.tiles import Tile

Shape = Literal[
    "pure_suit", "mixed_suit", "all_pungs", "mixed_pungs", "pure_pungs", "all_honours",
    "loose_honours",
]
"""The shape families of 上海 (the names of `app.rules.variants.shanghai`): 清一色, 混一色,
碰碰胡, 混碰, 清碰, 字一色, 乱风向."""

SHAPES: tuple[Shape, ...] = (
    "pure_suit", "mixed_suit", "all_pungs", "mixed_pungs", "pure_pungs", "all_honours",
    "loose_honours",
)

Claim = Chow | Pung | ExposedKong


def reachable_shapes(melds: Sequence[Meld]) -> frozenset[Shape]:
    """The shape families a hand with these declared melds may still complete, whatever
    its concealed tiles (they may be thrown away and others drawn)."""
    return shapes_left(
        {m.plays_as // 9 for m in melds if m.plays_as < 27},
        honours=any(m.plays_as >= 27 for m in melds),
        runs=any(m.kind == "chow" for m in melds),
    )


def shapes_left(suits: set[int], *, honours: bool, runs: bool) -> frozenset[Shape]:
    """`reachable_shapes` from what the melds show: the suits of their suited tiles (0-2),
    whether one is of honours, whether one is a run (吃)."""
    out: set[Shape] = set()
    if len(suits) <= 1:
        out.add("mixed_suit")
        if not honours:
            out.add("pure_suit")
        if not runs:
            out.add("mixed_pungs")
            if not honours:
                out.add("pure_pungs")
    if not runs:
        out.add("all_pungs")
    if not suits:
        out.update(("all_honours", "loose_honours"))
    return frozenset(out)


def claim_meld(state: HandState, claim: Claim) -> Meld:
    """The meld `claim` would declare on the claim window's tile."""
    assert state.window is not None, "a claim needs an open claim window"
    tile: Tile = state.window.tile
    kind = state.plays_as(tile)
    assert kind is not None, "a wild is never claimed"
    if isinstance(claim, Chow):
        run = (claim.low, claim.low + 1, claim.low + 2)
        return Meld("chow", run, claim.low, tile, state.window.discarder)
    count = 4 if isinstance(claim, ExposedKong) else 3
    name: Literal["pung", "exposed_kong"] = (
        "exposed_kong" if isinstance(claim, ExposedKong) else "pung"
    )
    return Meld(name, (tile,) * count, kind, tile, state.window.discarder)


def shapes_after(state: HandState, seat: int, claim: Claim) -> frozenset[Shape]:
    """The shape families the seat may still complete once `claim` is declared."""
    return reachable_shapes([*state.melds[seat], claim_meld(state, claim)])


def is_dead_end(state: HandState, seat: int, claim: Claim) -> bool:
    """In 上海: `claim` closes the seat's last reachable shape family (see the module)."""
    if state.ruleset.name != "shanghai":
        return False
    return bool(reachable_shapes(state.melds[seat])) and not shapes_after(state, seat, claim)


def dead_end_claims(
    state: HandState, seat: int, legal: Sequence[Action] | None = None
) -> tuple[Claim, ...]:
    """The seat's legal claims in the open claim window that are dead ends (empty outside
    上海 and outside a claim window); `legal`: the seat's legal actions, when the caller has
    them already."""
    if state.ruleset.name != "shanghai" or state.phase != "claim" or state.window is None:
        return ()
    if legal is None:
        legal = legal_actions(state, seat)
    claims = [a for a in legal if isinstance(a, Chow | Pung | ExposedKong)]
    return tuple(a for a in claims if is_dead_end(state, seat, a))

