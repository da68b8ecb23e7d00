"""Build a wall order that produces a chosen deal, draws and wild: a reproducible scenario.

Used by the rule tests and by the admin test mode. The deal follows `wall.deal`; the
front draws come next in order; replacement draws come from the tail (the first listed is
the last tile of the wall); the indicator sits at the position the variant will turn
(`indicator_from_tail`, counted in the wall as dealt). Every other tile fills the middle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from app.rules.hand import Preset
from app.rules.tiles import Tile, parse
from app.rules.variants.base import Ruleset
from app.rules.wall import Dice, Wall, deal


def _tiles(spec: str | Sequence[Tile]) -> list[Tile]:
    return parse(spec) if isinstance(spec, str) else list(spec)


def arrange(
    ruleset: Ruleset,
    *,
    dealer: int,
    hands: Sequence[str | Sequence[Tile]],
    draws: str | Sequence[Tile] = (),
    replacements: str | Sequence[Tile] = (),
    indicator: Tile | str | None = None,
    indicator_from_tail: int | None = None,
    dice: Dice = (1, 1),
    wild_dice: Dice = (1, 1),
) -> Preset:
    """A `Preset` whose deal gives seat s the tiles `hands[s]` (the dealer's hand holds one
    tile more), whose front draws are `draws` in order and whose tail draws are
    `replacements` in order. `indicator_from_tail` defaults to the sum of `wild_dice`."""
    size = len(ruleset.tile_set())
    dealt = [_tiles(h) for h in hands]
    for seat, tiles in enumerate(dealt):
        want = ruleset.hand_size + (1 if seat == dealer else 0)
        if len(tiles) != want:
            raise ValueError(f"seat {seat} needs {want} tiles, got {len(tiles)}")
    front = _tiles(draws)
    back = _tiles(replacements)
    if isinstance(indicator, str):
        indicator = parse(indicator)[0]

    # Where the deal takes each seat's tiles: deal a wall of position numbers.
    positions, _ = deal(Wall.of(tuple(range(size))), dealer, ruleset.hand_size)
    order: list[Tile | None] = [None] * size
    for seat in range(4):
        for pos, tile in zip(positions[seat], dealt[seat]):
            order[pos] = tile
    next_front = sum(len(p) for p in positions)
    for i, tile in enumerate(front):
        order[next_front + i] = tile

    tail_order: list[Tile | None] = list(back)  # backwards from the last tile
    if indicator is not None:
        n = indicator_from_tail if indicator_from_tail is not None else sum(wild_dice)
        if n - 1 > len(tail_order):
            tail_order += [None] * (n - 1 - len(tail_order))
        tail_order.insert(n - 1, indicator)
    for i, placed in enumerate(tail_order):
        if placed is not None:
            if order[size - 1 - i] is not None:
                raise ValueError("the scenario's front and tail overlap")
            order[size - 1 - i] = placed

    rest = Counter(ruleset.tile_set())
    rest.subtract(t for t in order if t is not None)
    if any(c < 0 for c in rest.values()):
        extra = sorted(t for t, c in rest.items() if c < 0)
        raise ValueError(f"the scenario uses more copies than the set has: {extra}")
    fill = iter(sorted(rest.elements()))
    wall = tuple(t if t is not None else next(fill) for t in order)
    return Preset(wall, dice, wild_dice)
