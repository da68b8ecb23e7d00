"""A win explained on its hand: the score sheet (`ScoreSheet`, app/rules/scoring.py) of a
win, from its variant's appraisal and payments, with the winner's hand grouped into the sets
of the reading that scored (`group_hand`). `Ruleset.explain` answers with it."""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.scoring import (
    ANY_SHAPE,
    BU_DA,
    EIGHT_PAIRS,
    SEVEN_PAIRS,
    STANDARD,
    Appraisal,
    MeldRecord,
    ScoreSheet,
    TileGroup,
)
from app.rules.state import HandState, WinRecord
from app.rules.tiles import NUM_KINDS, Tile
from app.rules.winning import (
    Reading,
    eight_pairs_readings,
    is_bu_da,
    seven_pairs_readings,
    standard_readings,
)


def explain_win(state: HandState, win: WinRecord) -> ScoreSheet:
    """The score sheet of `win` from its variant's appraisal and payments."""
    ruleset = state.ruleset
    appraisal = ruleset.appraise(state, win)
    return ScoreSheet(
        seat=win.seat,
        base=appraisal.base,
        base_reason=appraisal.base_reason,
        items=appraisal.items,
        rule=appraisal.rule,
        total=appraisal.total,
        cap=appraisal.cap,
        payments=tuple(ruleset.payments(state, win, appraisal)),
        groups=group_hand(state, win, appraisal),
        melds=tuple(
            MeldRecord(m.kind, m.tiles, m.claimed, m.from_seat) for m in state.melds[win.seat]
        ),
        flowers=tuple(state.flowers[win.seat]),
        winning_tile=win.tile,
    )


# --- the reading that scored -------------------------------------------------------------


def group_hand(state: HandState, win: WinRecord, appraisal: Appraisal) -> tuple[TileGroup, ...]:
    """The winner's concealed tiles (the winning tile included) grouped as the reading of
    `appraisal.shape` that fits its items best. A win that needs no shape and has none, or
    a hand no reading of the shape covers, is one loose group."""
    counts, wilds = state.winning_counts(win)
    face = state.wild.wild
    shape = appraisal.shape
    suits = _suits(state, win.seat, counts)
    if shape in (STANDARD, ANY_SHAPE):
        readings = standard_readings(counts, wilds, face=face)
        if readings:
            best = max(readings, key=lambda r: _fit(r, counts, appraisal, face, suits))
            kinds: list[tuple[str, tuple[Tile, ...]]] = [("pair", (best.pair, best.pair))]
            kinds += [(m.kind, _set_kinds(m.kind, m.tile)) for m in best.sets]
            return _allocate(state, counts, kinds, pair_last=appraisal.wild_pair)
    elif shape in (SEVEN_PAIRS, EIGHT_PAIRS):
        find = seven_pairs_readings if shape == SEVEN_PAIRS else eight_pairs_readings
        pairs = find(counts, wilds, face=face)
        if pairs:
            chosen = max(pairs, key=lambda r: _in_suits(r.wild_as, suits))
            kinds = [("pair", (k, k)) for k in chosen.pairs]
            if chosen.odd is not None:
                kinds.append(("single", (chosen.odd,)))
            return _allocate(state, counts, kinds)
    elif shape == BU_DA:
        fill = _bu_da_fill(counts, wilds)
        if fill is not None:
            held = [k for k in range(NUM_KINDS) if counts[k]]
            return _allocate(state, counts, [("single", (k,)) for k in sorted(held + fill)])
    tiles = tuple(state.hand_tiles(win.seat))
    if win.tile is not None and win is not state.wins[0]:
        tiles = tuple(sorted((*tiles, win.tile)))  # 一炮多响: the tile is the nearest winner's
    return (TileGroup("loose", tiles, tuple(_plays_as_held(state, t) for t in tiles)),)


def _plays_as_held(state: HandState, tile: Tile) -> Tile:
    kind = state.plays_as(tile)
    return tile if kind is None else kind


def _suits(state: HandState, seat: int, counts: list[int]) -> set[int]:
    """The suits (0-2; 3 for the honours) of the seat's real tiles and declared sets."""
    kinds = [k for k in range(NUM_KINDS) if counts[k]] + [m.plays_as for m in state.melds[seat]]
    return {min(k // 9, 3) for k in kinds}


def _in_suits(kinds: Sequence[int], suits: set[int]) -> int:
    return sum(min(k // 9, 3) in suits for k in kinds)


def _fit(
    reading: Reading, counts: list[int], appraisal: Appraisal, face: Tile | None,
    suits: set[int],
) -> tuple[int, ...]:
    """How well a reading shows the items: first what they require (no chow, a pair of two
    wilds, wilds as their own face), then wilds standing for the hand's own suits and for
    their own face, then fewer chows."""
    chows = sum(m.kind == "chow" for m in reading.sets)
    as_face = sum(k == face for k in reading.wild_as)
    return (
        appraisal.pungs and chows == 0,
        appraisal.wild_pair and counts[reading.pair] == 0,
        appraisal.wilds_as_face and as_face == len(reading.wild_as),
        _in_suits(reading.wild_as, suits),
        as_face,
        -chows,
    )


def _set_kinds(kind: str, tile: Tile) -> tuple[Tile, ...]:
    return (tile, tile, tile) if kind == "pung" else (tile, tile + 1, tile + 2)


def _allocate(
    state: HandState, counts: list[int], groups: list[tuple[str, tuple[Tile, ...]]],
    pair_last: bool = False,
) -> tuple[TileGroup, ...]:
    """Physical tiles for groups of kinds: a real tile where one is left, else a wild standing
    for the kind (with `pair_last`, the sets take the real tiles first)."""
    left = counts[:]
    wild = state.wild.wild
    order = list(range(len(groups)))
    if pair_last:
        order = order[1:] + order[:1]
    made: dict[int, TileGroup] = {}
    for i in order:
        shape, kinds = groups[i]
        tiles: list[Tile] = []
        for kind in kinds:
            if left[kind]:
                left[kind] -= 1
                tiles.append(state.physical(kind))
            else:
                assert wild is not None
                tiles.append(wild)
        made[i] = TileGroup(shape, tuple(tiles), kinds)
    return tuple(made[i] for i in range(len(groups)))


def _bu_da_fill(counts: list[int], wilds: int) -> list[int] | None:
    """Distinct kinds for the wilds of a 不搭 hand, keeping every suit's tiles 3 apart."""
    if not is_bu_da(counts, wilds):
        return None
    work = counts[:]
    chosen: list[int] = []

    def place(start: int, need: int) -> bool:
        if need == 0:
            return True
        for kind in range(start, NUM_KINDS):
            if work[kind]:
                continue
            work[kind] = 1
            if is_bu_da(work, need - 1):
                chosen.append(kind)
                if place(kind + 1, need - 1):
                    return True
                chosen.pop()
            work[kind] = 0
        return False

    return chosen if place(0, wilds) else None
