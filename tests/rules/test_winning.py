"""Win shapes: the table-driven checks against a plain brute-force search, and examples."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import winning
from app.rules.tiles import counts_of, full_set, parse
from app.rules.winning import (
    Meld,
    Reading,
    eight_pairs_readings,
    is_bu_da,
    is_eight_pairs,
    is_seven_pairs,
    is_standard_win,
    seven_pairs_readings,
    standard_readings,
    suit_costs,
    winning_tiles,
    winning_tiles_any,
)

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)


def hand(text: str) -> list[int]:
    return counts_of(parse(text))


# --------------------------------------------------------------------------- brute force


@cache
def _sets_only(counts: tuple[int, ...], wilds: int) -> bool:
    """Brute force: the tiles and wilds make sets only. The lowest real tile goes into some
    set; try every set holding it, and for every other place of that set either a real tile
    (if held) or a wild. Wilds left over must come in threes."""
    low = next((k for k, c in enumerate(counts) if c), None)
    if low is None:
        return wilds % 3 == 0
    candidates: list[tuple[int, int, int]] = [(low, low, low)]
    if low < 27:
        rank = low % 9
        candidates += [(low - d, low - d + 1, low - d + 2) for d in (0, 1, 2) if 0 <= rank - d <= 6]
    for kinds in candidates:
        # the first place is the real `low`; each other place: real or wild
        others = kinds[1:] if kinds[0] == low else tuple(k for k in kinds if k != low)
        for mask in range(1 << len(others)):
            work = list(counts)
            work[low] -= 1
            used = 0
            ok = True
            for bit, kind in enumerate(others):
                if mask >> bit & 1:
                    if work[kind] == 0:
                        ok = False
                        break
                    work[kind] -= 1
                else:
                    used += 1
            if ok and used <= wilds and _sets_only(tuple(work), wilds - used):
                return True
    return False


def brute_standard(counts: Sequence[int], wilds: int) -> bool:
    """Brute force 基本和: try every pair (two real, real + wild, two wilds), then sets."""
    if (sum(counts) + wilds) % 3 != 2:
        return False
    work = list(counts)
    if wilds >= 2 and _sets_only(tuple(work), wilds - 2):
        return True
    for kind in range(34):
        for real, wild in ((2, 0), (1, 1)):
            if work[kind] >= real and wilds >= wild:
                work[kind] -= real
                found = _sets_only(tuple(work), wilds - wild)
                work[kind] += real
                if found:
                    return True
    return False


def brute_pairs(counts: Sequence[int], wilds: int, pairs: int, odd: int) -> bool:
    """Brute force pair shapes: pair tiles (or tile + wild, or two wilds) until `pairs` pairs
    are made, leaving exactly `odd` tiles over."""
    tiles = [k for k, c in enumerate(counts) for _ in range(c)] + [-1] * wilds  # -1 = wild
    if len(tiles) != 2 * pairs + odd:
        return False

    # Order does not matter for pairing, so let the first unpaired tile be paired or set aside.
    def go2(rest: list[int], made: int, odd_left: int) -> bool:
        if not rest:
            return made == pairs and odd_left == 0
        first, others = rest[0], rest[1:]
        if odd_left and go2(others, made, odd_left - 1):
            return True
        for j, b in enumerate(others):
            pairable = first == b or first == -1 or b == -1
            if pairable and go2(others[:j] + others[j + 1 :], made + 1, odd_left):
                return True
        return False

    return go2(sorted(tiles), 0, odd)


def brute_bu_da(counts: Sequence[int], wilds: int) -> bool:
    """Brute force 不搭: some way to give the wilds distinct kinds making a valid hand."""
    if sum(counts) + wilds != 14 or any(c > 1 for c in counts):
        return False
    held = [k for k in range(34) if counts[k]]

    def valid(kinds: list[int]) -> bool:
        for a in kinds:
            for b in kinds:
                if a < b < 27 and a // 9 == b // 9 and b - a < 3:
                    return False
        return True

    if not valid(held):
        return False
    free = [k for k in range(34) if not counts[k]]

    def fill(chosen: list[int], start: int, left: int) -> bool:
        if left == 0:
            return True
        for idx in range(start, len(free)):
            kind = free[idx]
            if valid([*chosen, kind]) and fill([*chosen, kind], idx + 1, left - 1):
                return True
        return False

    return fill(held, 0, wilds)


# --------------------------------------------------------------------------- strategies

WALL = full_set()


@st.composite
def random_hands(
    draw: st.DrawFn, size: int, kinds: Sequence[int] | None = None
) -> tuple[list[int], int]:
    """A hand of `size` tiles drawn from the wall (or from some kinds only), 0-4 of them wild."""
    wilds = draw(st.integers(0, 4))
    pool = WALL if kinds is None else [t for t in WALL if t in kinds]
    rng = draw(st.randoms(use_true_random=False))
    return counts_of(rng.sample(pool, size - wilds)), wilds


@st.composite
def near_wins(draw: st.DrawFn, sets: int) -> tuple[list[int], int]:
    """A winning hand of random sets and a pair; then some tiles become wilds, and maybe one
    tile is swapped for a random one."""
    rng = draw(st.randoms(use_true_random=False))
    one_suit = draw(st.booleans())
    while True:
        base = 9 * rng.randrange(3)

        def pick(base: int = base) -> int:
            return base + rng.randrange(9) if one_suit else rng.randrange(34)

        tiles = [pick()] * 2
        for _ in range(sets):
            kind = pick()
            if kind < 27 and kind % 9 <= 6 and rng.random() < 0.6:
                tiles += [kind, kind + 1, kind + 2]
            else:
                tiles += [kind] * 3
        if max(tiles.count(k) for k in set(tiles)) <= 4:
            break
    rng.shuffle(tiles)
    wilds = draw(st.integers(0, 4))
    tiles = tiles[wilds:]
    swap = draw(st.booleans())
    if tiles and swap:
        swapped = rng.randrange(34)
        if tiles.count(swapped) < 4:
            tiles[0] = swapped
    return counts_of(tiles), wilds


# --------------------------------------------------------------------------- the table


def test_pair_minus_nopair_is_minus_one_or_two() -> None:
    """The reasoning behind the combine: each suit's pair cost is its nopair cost -1 or +2."""
    for key, packed in list(winning._PACKED.items()):
        nopair, pair = suit_costs(key)
        assert pair - nopair in (-1, 2)
        assert (sum(key) + nopair) % 3 == 0 and (sum(key) + pair) % 3 == 2


@pytest.mark.parametrize("size", [2, 5, 8, 11, 14])
def test_suit_costs_match_brute_force(size: int) -> None:
    """Per-suit costs equal the fewest wilds the brute force needs, on random suit vectors."""
    rng = random.Random(size)
    for _ in range(150):
        suit = rng.choice([0, 27])
        tiles = rng.sample([t for t in WALL if suit <= t < suit + (9 if suit < 27 else 7)], size)
        counts = counts_of(tiles)
        key = bytes(counts[suit : suit + (9 if suit < 27 else 7)])
        nopair, pair = suit_costs(key)
        assert nopair == next(w for w in range(20) if _sets_only(tuple(counts), w))
        assert pair == next(w for w in range(20) if brute_standard(counts, w))


def test_prebuilt_table_is_big_enough_and_fills_lazily() -> None:
    nine = hand("111222333444555m")[:9]
    key = bytes(nine)
    assert is_standard_win(hand("111222333444555m11z"), 0)
    assert key in winning._PACKED


# --------------------------------------------------------------------------- standard shape


@pytest.mark.parametrize(
    ("text", "wilds", "expected"),
    [
        ("123m456p789s11122z", 0, True),
        ("19m19p19s1234567z1m", 0, False),  # 十三幺 is no standard shape
        ("1m", 1, True),
        ("", 2, True),
        ("", 0, False),
        ("", 5, True),
        ("1111m", 1, True),  # 111m + 1m + wild as a fifth 1m
        ("1111m", 0, False),
        ("1112345678999m", 0, False),  # 13 tiles
        ("11123455678999m", 0, True),
        ("111234567899m", 2, True),
        ("1234567z", 0, False),
        ("12m", 0, False),
        ("123m", 0, False),  # 4 tiles: not 2 mod 3
        ("89m1s", 2, True),  # 789m + 1s wild pair
        ("91m", 0, False),
        ("1199m", 1, True),
        ("12345678m", 0, False),
        ("12345677m", 0, True),
        ("11122233344455m", 0, True),
        ("123m456p789s1122z", 1, True),
        ("1357m2468p1357s", 2, False),
    ],
)
def test_standard_examples(text: str, wilds: int, expected: bool) -> None:
    counts = hand(text)
    assert is_standard_win(counts, wilds) is expected
    assert brute_standard(counts, wilds) is expected


def test_five_of_a_kind_through_a_wild() -> None:
    assert is_standard_win(hand("1111m234p567s777z"), 1)  # 111m + 1m+wild (a fifth 1m) as the pair
    assert is_standard_win(hand("1111m23m"), 2)  # 111m 123m 1m+wild... or wild pair


def test_input_checks() -> None:
    with pytest.raises(ValueError):
        is_standard_win([0] * 33, 2)
    with pytest.raises(ValueError):  # one count too many is refused too, not cut off
        is_standard_win(hand("11m") + [0], 0)
    with pytest.raises(ValueError):
        is_standard_win([5] + [0] * 33, 0)
    with pytest.raises(ValueError):
        is_standard_win([0] * 34, -1)
    assert is_standard_win(bytes(hand("11m")), 0)
    assert is_standard_win(tuple(hand("11m")), 0)
    assert is_standard_win(hand("11m"), 30)  # many wilds: slow path


@SETTINGS
@given(st.one_of(random_hands(14), random_hands(17), random_hands(14, range(9))))
def test_standard_random_hands(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    assert is_standard_win(counts, wilds) == brute_standard(counts, wilds)


@SETTINGS
@given(st.one_of(near_wins(4), near_wins(5), near_wins(1), near_wins(2)))
def test_standard_near_wins(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    assert is_standard_win(counts, wilds) == brute_standard(counts, wilds)


def test_standard_many_small_hands() -> None:
    """Random hands of 2 or 5 tiles within one suit plus two honours, 0-3 wilds."""
    kinds = list(range(9)) + [27, 28]
    for size in (2, 5):
        for wilds in range(4):
            rng = random.Random(size * 10 + wilds)
            for _ in range(300):
                tiles = [rng.choice(kinds) for _ in range(size - wilds)]
                counts = counts_of(tiles)
                if max(counts) > 4:
                    continue
                assert is_standard_win(counts, wilds) == brute_standard(counts, wilds)


# --------------------------------------------------------------------------- pair shapes


def test_seven_pairs_examples() -> None:
    assert is_seven_pairs(hand("1122m3344p5566s77z"), 0)
    assert is_seven_pairs(hand("1111m3344p5566s77z"), 0)  # four alike = two pairs
    assert not is_seven_pairs(hand("1112m3344p5566s77z"), 0)
    assert is_seven_pairs(hand("1112m3344p5566s"), 2)
    assert is_seven_pairs(hand("1m3344p5566s77z"), 3)  # 1m+wild, wild pair
    assert not is_seven_pairs(hand("1122m3344p5566s7z"), 0)
    assert not is_seven_pairs(hand("1122m3344p5566s77z11z"), 0)  # 16 tiles
    assert not is_seven_pairs(hand("135m344p5566s77z"), 2)
    assert is_seven_pairs(hand(""), 14)


def test_eight_pairs_examples() -> None:
    assert is_eight_pairs(hand("1122m3344p5566s6677z9m"), 0)
    assert is_eight_pairs(hand("1122m3344p5566s667z9m"), 1)
    assert is_eight_pairs(hand("1122m3344p5566s6677z"), 1)  # the wild is the odd tile
    assert not is_eight_pairs(hand("1122m3344p56789s11z"), 2)
    assert is_eight_pairs(hand("1122m3344p5678s11z"), 3)
    assert is_eight_pairs(hand("1111m3344p5566s6677z9m"), 0)
    assert not is_eight_pairs(hand("1122m3344p5566s77z"), 0)


@SETTINGS
@given(st.one_of(random_hands(14), random_hands(14, range(9)), random_hands(14, (0, 1, 2, 3, 27))))
def test_seven_pairs_random(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    assert is_seven_pairs(counts, wilds) == brute_pairs(counts, wilds, 7, 0)


@SETTINGS
@given(st.one_of(random_hands(17, range(9)), random_hands(17, (0, 1, 2, 3, 4, 27, 28))))
def test_eight_pairs_random(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    assert is_eight_pairs(counts, wilds) == brute_pairs(counts, wilds, 8, 1)


# --------------------------------------------------------------------------- 不搭


@pytest.mark.parametrize(
    ("text", "wilds", "expected"),
    [
        ("147m258p369s12345z", 0, True),
        ("147m259p147s12345z", 0, True),  # 2-5-9
        ("148m258p369s12367z", 0, True),  # 1-4-8
        ("137m258p369s12345z", 0, False),  # 1 and 3 too close
        ("147m258p369s11234z", 0, False),  # an honour twice
        ("147m258p36s12345z", 1, True),  # the wild is 9s or an honour
        ("14m258p369s1234z", 2, True),
        ("1m1p1s1234567z", 4, True),
        ("", 14, True),
        ("12m", 12, False),
        ("147m258p369s12345z", 1, False),  # 15 tiles
        ("147m258p369s1234z", 0, False),  # 13 tiles
        ("147m258p369s1234z", 1, True),
        ("1469m258p369s123z", 1, False),  # 4 and 6 too close
        ("147m258p369s1234567z", 0, False),  # 16 tiles
    ],
)
def test_bu_da_examples(text: str, wilds: int, expected: bool) -> None:
    counts = hand(text)
    assert is_bu_da(counts, wilds) is expected
    assert brute_bu_da(counts, wilds) is expected


def test_bu_da_room_needs_the_right_completions() -> None:
    """Held 3 and 7 of a suit leave no room there (no rank is 3 from both); held 3 alone
    leaves two (3-6-9). A plain "3 minus held" count would get these wrong."""
    assert not is_bu_da(hand("37m37p37s1234567z"), 1)
    assert is_bu_da(hand("37m37p3s1234567z"), 2)
    assert is_bu_da(hand("37m37p3s123456z"), 3)
    assert not is_bu_da(hand("37m37p37s123456z"), 2)
    assert is_bu_da(hand("37m37p1234567z"), 3)


@SETTINGS
@given(
    st.integers(0, 5),
    st.randoms(use_true_random=False),
)
def test_bu_da_random(wilds: int, rng: random.Random) -> None:
    """Hands near the 不搭 pattern: distinct kinds, mostly spread out."""
    kinds = rng.sample(range(34), 14 - wilds)
    counts = counts_of(kinds)
    assert is_bu_da(counts, wilds) == brute_bu_da(counts, wilds)
    spread = [k for k in (0, 3, 6, 9, 13, 17, 18, 22, 25, 27, 28, 29, 30, 31, 32, 33)]
    kinds = rng.sample(spread, 14 - wilds)
    if rng.random() < 0.3:
        kinds[0] = rng.choice([k for k in range(34) if k not in kinds])
    counts = counts_of(kinds)
    assert is_bu_da(counts, wilds) == brute_bu_da(counts, wilds)


# --------------------------------------------------------------------------- readings


def _reading_tiles(reading: Reading) -> list[int]:
    tiles = [reading.pair, reading.pair]
    for meld in reading.sets:
        tiles += [meld.tile] * 3 if meld.kind == "pung" else [meld.tile + i for i in range(3)]
    return sorted(tiles)


def _check_readings(counts: list[int], wilds: int, readings: list[Reading]) -> None:
    keys = {(r.pair, r.sets, r.wild_as) for r in readings}
    assert len(keys) == len(readings)
    real = [k for k, c in enumerate(counts) for _ in range(c)]
    for r in readings:
        assert len(r.wild_as) == wilds
        assert list(r.wild_as) == sorted(r.wild_as)
        assert _reading_tiles(r) == sorted(real + list(r.wild_as))
        assert list(r.sets) == sorted(r.sets, key=lambda m: (m.tile, m.kind))
        for meld in r.sets:
            assert meld.kind == "pung" or (meld.tile < 27 and meld.tile % 9 <= 6)


def test_readings_plain() -> None:
    counts = hand("123m456p789s11122z")
    readings = standard_readings(counts, 0)
    assert readings == [
        Reading(
            pair=28,
            sets=(Meld("chow", 0), Meld("chow", 12), Meld("chow", 24), Meld("pung", 27)),
            wild_as=(),
        )
    ]


def test_readings_several_decompositions() -> None:
    counts = hand("111222333m456p77z")
    sets = {r.sets for r in standard_readings(counts, 0)}
    assert (Meld("pung", 0), Meld("pung", 1), Meld("pung", 2), Meld("chow", 12)) in sets
    assert (Meld("chow", 0), Meld("chow", 0), Meld("chow", 0), Meld("chow", 12)) in sets


def test_readings_say_what_the_wild_is() -> None:
    counts = hand("123m456p789s1122z")
    readings = standard_readings(counts, 1)
    _check_readings(counts, 1, readings)
    assert {r.wild_as for r in readings} == {(27,), (28,)}


def test_readings_find_full_flush_with_a_wild() -> None:
    """1112345678999m + 5m with one wild in place of any tile: a 清一色 reading exists."""
    full = parse("11123455678999m")
    for i in range(len(full)):
        tiles = full[:i] + full[i + 1 :]
        counts = counts_of(tiles)
        readings = standard_readings(counts, 1)
        _check_readings(counts, 1, readings)
        assert any(all(k < 9 for k in _reading_tiles(r)) for r in readings)


def test_readings_all_wild_set_is_a_pung_of_a_held_kind() -> None:
    counts = hand("111m222m33m")
    readings = standard_readings(counts, 3)
    _check_readings(counts, 3, readings)
    # 大对子 reading: every set a pung, and the all-wild set a pung of a held kind.
    assert any(all(m.kind == "pung" for m in r.sets) for r in readings)
    assert Reading(2, (Meld("pung", 0), Meld("pung", 0), Meld("pung", 1)), (0, 0, 0)) in readings
    # the wild's own face may be asked for
    faced = standard_readings(counts, 3, face=31)
    assert Reading(2, (Meld("pung", 0), Meld("pung", 1), Meld("pung", 31)), (31, 31, 31)) in faced
    # honours only: 字一色 found
    honours = hand("111222z33z")
    assert any(all(k >= 27 for k in _reading_tiles(r)) for r in standard_readings(honours, 3))


def test_readings_empty_when_no_win() -> None:
    assert standard_readings(hand("19m19p19s1234567z1m"), 0) == []


@settings(SETTINGS, max_examples=80)
@given(st.one_of(near_wins(4), near_wins(5)))
def test_readings_consistent(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    readings = standard_readings(counts, wilds)
    assert bool(readings) == is_standard_win(counts, wilds)
    _check_readings(counts, wilds, readings)


def brute_readings(counts: list[int], wilds: int) -> set[tuple[int, tuple[Meld, ...]]]:
    """Every (pair, sets) whose tiles hold the real tiles plus exactly `wilds` more, with the
    pair of a kind held and every set holding a kind held (all a hand of at most two wilds can
    have, under the canonical rule for all-wild pairs)."""
    held = [k for k in range(34) if counts[k]]
    melds = [Meld("pung", k) for k in held] + [
        Meld("chow", s)
        for s in range(27)
        if s % 9 <= 6 and any(counts[k] for k in (s, s + 1, s + 2))
    ]
    real = sorted(k for k in range(34) for _ in range(counts[k]))
    size = sum(counts) + wilds
    found = set()
    for pair in held:
        for sets in combinations_with_replacement(melds, (size - 2) // 3):
            reading = Reading(pair, tuple(sets), ())
            tiles = _reading_tiles(reading)
            extra = list(tiles)
            try:
                for k in real:
                    extra.remove(k)
            except ValueError:
                continue
            if len(extra) == wilds:
                found.add((pair, tuple(sorted(sets, key=lambda m: (m.tile, m.kind)))))
    return found


@settings(SETTINGS, max_examples=60)
@given(st.one_of(near_wins(1), near_wins(2), near_wins(3)))
def test_readings_complete(case: tuple[list[int], int]) -> None:
    """With at most two wilds, the readings are exactly those the brute force finds."""
    counts, wilds = case
    if wilds > 2:
        return
    got = {(r.pair, r.sets) for r in standard_readings(counts, wilds)}
    assert got == brute_readings(counts, wilds)


def test_seven_pairs_readings() -> None:
    counts = hand("1122m3344p5566s7z")
    readings = seven_pairs_readings(counts, 1)
    assert [r.wild_as for r in readings] == [(33,)]
    assert readings[0].pairs == (0, 1, 11, 12, 22, 23, 33)
    both = seven_pairs_readings(hand("1122m3344p5566s"), 2)
    assert {r.wild_as for r in both} == {(k, k) for k in (0, 1, 11, 12, 22, 23)}
    assert all(len(r.wild_as) == 2 and r.odd is None for r in both)
    assert seven_pairs_readings(hand("1122m3344p5566s67z"), 0) == []


def test_eight_pairs_readings() -> None:
    counts = hand("1122m3344p5566s6677z9m")
    assert [(r.odd, r.wild_as) for r in eight_pairs_readings(counts, 0)] == [(8, ())]
    counts = hand("1122m3344p5566s667z9m")
    readings = eight_pairs_readings(counts, 1)
    assert {(r.odd, r.wild_as) for r in readings} == {(8, (33,)), (33, (8,))}
    for r in readings:
        assert len(r.pairs) == 8


# --------------------------------------------------------------------------- waits


def brute_waits(counts: list[int], wilds: int) -> list[int]:
    out = []
    for kind in range(34):
        if counts[kind] < 4:
            counts[kind] += 1
            if brute_standard(counts, wilds):
                out.append(kind)
            counts[kind] -= 1
    return out


def test_waits_examples() -> None:
    assert winning_tiles(hand("1112345678999m"), 0) == list(range(9))  # 九莲宝灯
    assert winning_tiles(hand("123m456p789s1122z"), 0) == [27, 28]
    assert winning_tiles(hand("123m456p789s112z"), 1) == [27, 28]
    assert winning_tiles(hand("123m456p789s1z"), 3) == list(
        range(34)
    )  # 1z + wild, any + wild pair...
    assert winning_tiles(hand("1111m"), 0) == []  # 1111m waits on a fifth 1m only
    assert winning_tiles(hand("19m19p19s1234567z"), 0) == []
    assert winning_tiles(hand("123m456p789s1122z1m"), 0) == []  # wrong size
    for text, wilds in [("1112345678999m", 0), ("123m456p789s112z", 1), ("2345m", 0), ("13m", 2)]:
        assert winning_tiles(hand(text), wilds) == brute_waits(hand(text), wilds)


@SETTINGS
@given(st.one_of(random_hands(13), random_hands(16), random_hands(13, range(9))))
def test_waits_random(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    assert winning_tiles(counts, wilds) == brute_waits(counts, wilds)


@SETTINGS
@given(st.one_of(near_wins(4), near_wins(5)), st.integers(0, 13))
def test_waits_near_wins(case: tuple[list[int], int], drop: int) -> None:
    counts, wilds = case
    tiles = [k for k, c in enumerate(counts) for _ in range(c)]
    if not tiles:
        return
    del tiles[drop % len(tiles)]
    counts = counts_of(tiles)
    assert winning_tiles(counts, wilds) == brute_waits(counts, wilds)


def test_waits_any_shapes() -> None:
    seven = hand("1122m3344p5566s7z")
    assert winning_tiles_any(seven, 0, seven_pairs=True, bu_da=False, eight_pairs=False) == [33]
    assert winning_tiles_any(seven, 0, seven_pairs=False, bu_da=False, eight_pairs=False) == []
    bu_da = hand("147m258p369s1234z")
    assert winning_tiles_any(bu_da, 0, seven_pairs=False, bu_da=True, eight_pairs=False) == [
        31,
        32,
        33,
    ]
    eight = hand("1122m3344p5566s6677z")
    waits = winning_tiles_any(eight, 0, seven_pairs=False, bu_da=False, eight_pairs=True)
    assert waits == list(range(34))


@settings(SETTINGS, max_examples=60)
@given(random_hands(13, (0, 1, 2, 3, 4, 27, 28)), st.booleans(), st.booleans())
def test_waits_any_is_the_union(case: tuple[list[int], int], seven: bool, bu_da: bool) -> None:
    counts, wilds = case
    expected = set(brute_waits(counts, wilds))
    for kind in range(34):
        if counts[kind] < 4:
            counts[kind] += 1
            if (seven and brute_pairs(counts, wilds, 7, 0)) or (
                bu_da and brute_bu_da(counts, wilds)
            ):
                expected.add(kind)
            counts[kind] -= 1
    got = winning_tiles_any(counts, wilds, seven_pairs=seven, bu_da=bu_da, eight_pairs=False)
    assert got == sorted(expected)
