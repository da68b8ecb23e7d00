"""Build a wall order that produces a chosen deal, draws and wild: a reproducible scenario.

Used by the rule tests and by the admin test mode. The deal follows `wall.deal`; the
front draws come next in order; replacement draws come from the tail (the first listed is
the last tile of the wall); the indicator sits where the variant will turn it
(`Ruleset.indicator_slot`: 丽水 and 温州 count from the tail by the wild dice, 湖州 takes
the first front tile after the deal, before `draws`; 福州 the tail tile after the deal's
补花, whose tiles must then be listed first in `replacements`). A variant that turns no
indicator refuses one. Every other tile fills the middle, in tile order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from app.rules.state import Preset
from app.rules.tiles import Tile, parse, parse_one
from app.rules.variants.base import Ruleset
from app.rules.wall import Dice, Wall, deal


def _tiles(spec: str | Sequence[Tile]) -> list[Tile]:
    return parse(spec) if isinstance(spec, str) else list(spec)


def _flower_draws(
    ruleset: Ruleset, dealt: Sequence[Sequence[Tile]], replacements: Sequence[Tile]
) -> int:
    """How many tail tiles the deal's 补花 draws: one per flower dealt, and one more for
    each flower among those drawn (the replacements, in order)."""
    owed = sum(t in ruleset.flower_kinds for hand in dealt for t in hand)
    drawn = 0
    while owed:
        if drawn >= len(replacements):
            raise ValueError("list the tiles the deal's flowers draw in `replacements`")
        owed += (replacements[drawn] in ruleset.flower_kinds) - 1
        drawn += 1
    return drawn


def arrange(
    ruleset: Ruleset,
    *,
    dealer: int,
    hands: Sequence[str | Sequence[Tile]],
    draws: str | Sequence[Tile] = (),
    replacements: str | Sequence[Tile] = (),
    indicator: Tile | str | None = None,
    dice: Dice = (1, 1),
    wild_dice: Dice = (1, 1),
) -> Preset:
    """A `Preset` whose deal gives seat s the tiles `hands[s]` (the dealer's hand holds one
    tile more), whose front draws are `draws` in order and whose tail draws are
    `replacements` in order; the variant turns `indicator` as its wild indicator."""
    size = len(ruleset.tile_set())
    dealt = [_tiles(h) for h in hands]
    for seat, tiles in enumerate(dealt):
        want = ruleset.hand_size + (1 if seat == dealer else 0)
        if len(tiles) != want:
            raise ValueError(f"seat {seat} needs {want} tiles, got {len(tiles)}")
    front = _tiles(draws)
    back = _tiles(replacements)
    if isinstance(indicator, str):
        indicator = parse_one(indicator)  # one tile: not "", not several

    # Where the deal takes each seat's tiles: deal a wall of position numbers.
    positions, _ = deal(Wall.of(tuple(range(size))), dealer, ruleset.hand_size)
    order: list[Tile | None] = [None] * size
    for seat in range(4):
        for pos, tile in zip(positions[seat], dealt[seat]):
            order[pos] = tile
    front_order: list[Tile | None] = list(front)

    tail_order: list[Tile | None] = list(back)  # backwards from the last tile
    if indicator is not None:
        slot = ruleset.indicator_slot(wild_dice)
        if slot is None:
            raise ValueError(f"{ruleset.name} turns no indicator")
        where, n = slot
        if where == "tail":
            n += _flower_draws(ruleset, dealt, back)  # 补花 at the deal drew there first
        placed = tail_order if where == "tail" else front_order
        if n - 1 > len(placed):
            placed += [None] * (n - 1 - len(placed))
        placed.insert(n - 1, indicator)
    next_front = sum(len(p) for p in positions)
    for i, on_front in enumerate(front_order):
        order[next_front + i] = on_front
    for i, on_tail in enumerate(tail_order):
        if on_tail is not None:
            if order[size - 1 - i] is not None:
                raise ValueError("the scenario's front and tail overlap")
            order[size - 1 - i] = on_tail

    rest = Counter(ruleset.tile_set())
    rest.subtract(t for t in order if t is not None)
    if any(c < 0 for c in rest.values()):
        extra = sorted(t for t, c in rest.items() if c < 0)
        raise ValueError(f"the scenario uses more copies than the set has: {extra}")
    fill = iter(sorted(rest.elements()))
    wall = tuple(t if t is not None else next(fill) for t in order)
    return Preset(wall, dice, wild_dice)
