"""What a seat may be told of its own hand's readiness (听牌), as pure functions of the state
and of what that seat sees: the tiles its hand waits on, how many of each it has not seen,
and, on its turn, the discards that leave the hand ready.

Readiness is the variant's own: a tile is a wait when the variant's `can_win` accepts the
hand with it (上海's special hands, 温州's honours, 福州's 金 and the wild tiles included), the
same test a 胡 or 自摸 is offered by. Whether a particular discard may be claimed for the win
(a pass before, a rule on the wild) is the prompt's business, not the hint's. A wild drawn is
any tile: a hand that waits on something waits on the wild too, which is not listed.

`unseen` counts each wait's copies the seat has not seen: four, less its own concealed tiles,
every meld shown (another seat's 暗杠 is face down: not counted) and the discards left in the
river. It never looks at another seat's concealed tiles or at the wall.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.state import HandState, visible_counts
from app.rules.tiles import NUM_KINDS, Tile


@dataclass(frozen=True, slots=True)
class Wait:
    """A tile that completes the hand, and how many of its copies the seat has not seen."""

    tile: Tile
    unseen: int


@dataclass(frozen=True, slots=True)
class ReadyDiscard:
    """A discard that leaves the hand ready, and what it then waits on."""

    tile: Tile
    waits: tuple[Wait, ...]


def waits(state: HandState, seat: int) -> tuple[Wait, ...]:
    """The seat's waits as its concealed hand stands (3n+1 tiles); () when not ready or when
    the hand holds 3n+2 (it must discard first: `ready_discards`)."""
    counts, wilds = state.effective(seat)
    if (sum(counts) + wilds) % 3 != 1:
        return ()
    return _waits(state, seat, counts, wilds, _seen(state, seat))


def ready_discards(state: HandState, seat: int) -> tuple[ReadyDiscard, ...]:
    """On the seat's turn (3n+2 concealed tiles): each kind of tile it holds whose discard
    leaves the hand waiting on something, with those waits, in tile order."""
    counts, wilds = state.effective(seat)
    if (sum(counts) + wilds) % 3 != 2:
        return ()
    held = state.concealed[seat]
    seen = _seen(state, seat)  # a discard stays in sight: in the river instead of the hand
    out = []
    for tile in range(NUM_KINDS):
        if not held[tile]:
            continue
        kind = state.plays_as(tile)
        after, after_wilds = counts[:], wilds
        if kind is None:
            after_wilds -= 1
        else:
            after[kind] -= 1
        found = _waits(state, seat, after, after_wilds, seen)
        if found:
            out.append(ReadyDiscard(tile, found))
    return tuple(out)


def _waits(
    state: HandState, seat: int, counts: list[int], wilds: int, seen: list[int]
) -> tuple[Wait, ...]:
    ruleset = state.ruleset
    if not ruleset.can_win(state, seat, counts, wilds + 1):  # no tile at all completes it
        return ()
    found = []
    for tile in range(NUM_KINDS):
        kind = state.plays_as(tile)
        if kind is None or counts[kind] >= 4:
            continue  # the wild: any tile, never a wait of its own; a fifth copy: none
        counts[kind] += 1
        if ruleset.can_win(state, seat, counts, wilds):
            found.append(Wait(tile, max(0, 4 - seen[tile])))
        counts[kind] -= 1
    return tuple(found)


def _seen(state: HandState, seat: int) -> list[int]:
    """Copies of each tile kind the seat can see (`state.visible_counts`)."""
    return visible_counts(state.concealed[seat], state.melds, state.river, seat)
