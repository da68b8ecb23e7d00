"""Shanten (向听) against brute force: over real exchanges for tiny hands, and over which real
tiles to keep (draws acting as jokers) for hands of up to 8 real tiles."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import shanten as shanten_tables
from app.rules.shanten import (
    seven_pairs_shanten,
    shanten,
    shanten_after_discard,
    standard_shanten,
)
from app.rules.tiles import counts_of, full_set, parse
from app.rules.winning import suit_costs, suit_vectors

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
WALL = full_set()


def hand(text: str) -> list[int]:
    return counts_of(parse(text))


# --------------------------------------------------------------------------- brute force


@cache
def _sets(counts: tuple[int, ...], jokers: int) -> bool:
    """Brute force: the tiles (any counts, fifth copies too) and jokers make sets only."""
    low = next((k for k, c in enumerate(counts) if c), None)
    if low is None:
        return jokers % 3 == 0
    shapes = [(low, low, low)]
    if low < 27:
        shapes += [
            (s, s + 1, s + 2)
            for s in range(low - 2, low + 1)
            if s // 9 == low // 9 and 0 <= s and s % 9 <= 6
        ]
    for shape in shapes:
        work = list(counts)
        used = 0
        for kind in shape:
            if work[kind]:
                work[kind] -= 1
            else:
                used += 1
        if work[low] < counts[low] and used <= jokers and _sets(tuple(work), jokers - used):
            return True
    return False


def _wins(counts: Sequence[int], jokers: int) -> bool:
    """Brute force standard win: every pair (real, real + joker, two jokers), then sets."""
    if (sum(counts) + jokers) % 3 != 2:
        return False
    if jokers >= 2 and _sets(tuple(counts), jokers - 2):
        return True
    for kind, count in enumerate(counts):
        for real in (2, 1):
            if count >= real and jokers >= 2 - real:
                work = list(counts)
                work[kind] -= real
                if _sets(tuple(work), jokers - 2 + real):
                    return True
    return False


def _seven_pairs(counts: Sequence[int], jokers: int) -> bool:
    return sum(counts) + jokers == 14 and sum(c % 2 for c in counts) <= jokers


def _sub_hands(counts: Sequence[int]) -> list[tuple[list[int], int]]:
    """Every sub-multiset of the real tiles, with how many tiles it leaves out."""
    kinds = [k for k, c in enumerate(counts) if c]
    out = []
    for kept in product(*(range(counts[k] + 1) for k in kinds)):
        sub = [0] * 34
        for k, c in zip(kinds, kept):
            sub[k] = c
        out.append((sub, sum(counts) - sum(kept)))
    return out


def brute_shanten(counts: Sequence[int], wilds: int, *, seven_pairs: bool = False) -> int:
    """Discard r real tiles and draw r (3n+2) or r + 1 (3n+1) tiles; a drawn tile may be any
    tile, so it is a joker. The shanten is the number of draws needed, minus one."""
    size = sum(counts) + wilds
    extra = 1 if size % 3 == 1 else 0
    best = 99
    for sub, thrown in _sub_hands(counts):
        jokers = wilds + thrown + extra
        if _wins(sub, jokers) or (seven_pairs and size + extra == 14 and _seven_pairs(sub, jokers)):
            best = min(best, thrown + extra - 1)
    return best


def exchange_distance(counts: Sequence[int], wilds: int, limit: int) -> int | None:
    """Brute force over real exchanges: the fewest (discard a real tile, draw a real tile of
    any of the 34 kinds) that make a 3n+2 hand win; None if more than `limit` are needed."""
    kinds = [k for k, c in enumerate(counts) for _ in range(c)]
    for k in range(limit + 1):
        for thrown in set(combinations_with_replacement(sorted(set(kinds)), k)):
            work = list(counts)
            if any(work[t] < thrown.count(t) for t in set(thrown)):
                continue
            for t in thrown:
                work[t] -= 1
            for drawn in combinations_with_replacement(range(34), k):
                for t in drawn:
                    work[t] += 1
                won = _wins(work, wilds)
                for t in drawn:
                    work[t] -= 1
                if won:
                    return k
    return None


# --------------------------------------------------------------------------- examples


@pytest.mark.parametrize(
    ("text", "wilds", "expected"),
    [
        ("123m456p789s11122z", 0, -1),
        ("123m456p789s1122z", 0, 0),
        ("123m456p789s1112z", 0, 0),
        ("123m456p789s1134z", 0, 1),
        ("123m456p789s14z", 0, 0),  # waits 1z or 4z (单骑)
        ("19m19p19s1234567z", 0, 8),
        ("1m", 0, 0),
        ("1m", 1, -1),
        ("", 1, 0),
        ("", 2, -1),
        ("1z", 0, 0),
        ("12m", 0, 0),
        ("19m", 0, 0),  # one exchange makes a pair
        ("1234567z", 0, 4),
        ("1234567z", 1, 3),
        ("123m456p789s12z", 2, 0),
        ("147m258p369s1234z", 0, 8),  # nothing connects
        ("147m258p369s1234z", 1, 7),
        ("147m258p369s1234z", 4, 6),  # 17 tiles
    ],
)
def test_examples(text: str, wilds: int, expected: int) -> None:
    counts = hand(text)
    assert shanten(counts, wilds) == expected
    if sum(counts) <= 13:
        assert brute_shanten(counts, wilds) == expected


def test_seven_pairs() -> None:
    assert shanten(hand("1122m3344p5566s7z"), 0, seven_pairs=True) == 0
    assert shanten(hand("1122m3344p5566s7z"), 0) > 0
    assert shanten(hand("1122m3344p5566s77z"), 0, seven_pairs=True) == -1
    assert shanten(hand("1111m3344p5566s77z"), 0, seven_pairs=True) == -1  # four alike
    assert shanten(hand("19m19p19s1234567z"), 0, seven_pairs=True) == 6
    assert seven_pairs_shanten(hand("19m19p19s123456z"), 1) == 5
    assert shanten(hand("11m"), 0, seven_pairs=True) == -1  # 2 tiles: standard only
    assert shanten(hand("1133m5577p99s123z"), 0, seven_pairs=True) == 1
    with pytest.raises(ValueError):
        seven_pairs_shanten(hand("11m"), 0)


def test_input_checks() -> None:
    with pytest.raises(ValueError):
        shanten(hand("123m"), 0)  # 3n tiles
    with pytest.raises(ValueError):
        shanten([0] * 33, 1)
    with pytest.raises(ValueError):
        standard_shanten([5] + [0] * 33, 0)


# --------------------------------------------------------------------------- brute force


@st.composite
def hands(
    draw: st.DrawFn, sizes: Sequence[int], kinds: Sequence[int] | None = None
) -> tuple[list[int], int]:
    size = draw(st.sampled_from(sizes))
    wilds = draw(st.integers(0, min(3, size)))
    pool = WALL if kinds is None else [t for t in WALL if t in kinds]
    rng = draw(st.randoms(use_true_random=False))
    return counts_of(rng.sample(pool, size - wilds)), wilds


CLOSE = list(range(9)) + [9, 10, 11, 27, 28]


@SETTINGS
@given(st.one_of(hands((4, 5, 7, 8)), hands((4, 5, 7, 8, 10, 11), CLOSE)))
def test_against_keep_brute_force(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    if sum(counts) > 8:
        counts = counts_of([k for k, c in enumerate(counts) for _ in range(c)][:8])
        wilds = wilds if (sum(counts) + wilds) % 3 else wilds + 1
    assert shanten(counts, wilds) == brute_shanten(counts, wilds)


@settings(SETTINGS, max_examples=60)
@given(hands((13, 14), (0, 1, 2, 3, 4, 5, 9, 27, 28, 29)))
def test_seven_pairs_against_brute_force(case: tuple[list[int], int]) -> None:
    counts, wilds = case
    if sum(counts) > 8:  # keep the brute force small: some of the tiles become wilds
        tiles = [k for k, c in enumerate(counts) for _ in range(c)]
        wilds += len(tiles) - 8
        counts = counts_of(tiles[:8])
    assert shanten(counts, wilds, seven_pairs=True) == brute_shanten(
        counts, wilds, seven_pairs=True
    )


def test_against_real_exchanges() -> None:
    """Tiny 3n+2 hands: the shanten is one less than the fewest real exchanges to win (and a
    3n+1 hand's is the best over the first draw)."""
    rng = random.Random(7)
    checked = 0
    while checked < 40:
        size = rng.choice([2, 5])
        wilds = rng.randrange(3)
        counts = counts_of(rng.sample(WALL, size - wilds))
        value = shanten(counts, wilds)
        found = exchange_distance(counts, wilds, limit=2)
        if found is None:
            assert value >= 2
        else:
            assert value == found - 1
        checked += 1
    for text, wilds in [("1m", 0), ("5z", 0), ("13m", 2), ("12m5p9s", 0), ("1358m", 0), ("", 1)]:
        counts = hand(text)
        target = shanten(counts, wilds)
        assert target <= 1  # keeps the search small
        distances = []
        for kind in range(34):
            counts[kind] += 1
            distances.append(exchange_distance(counts, wilds, limit=target))
            counts[kind] -= 1
        assert min(d for d in distances if d is not None) == target


@SETTINGS
@given(hands((13, 14, 16, 17)))
def test_properties(case: tuple[list[int], int]) -> None:
    """Bounds and monotonicity: a wild more never hurts; the 3n+1 value is at most one above
    the value of the hand with one real tile added."""
    counts, wilds = case
    value = shanten(counts, wilds)
    size = sum(counts) + wilds
    assert (-1 if size % 3 == 2 else 0) <= value <= 2 * (size // 3)
    if size % 3 == 1:
        tiles = [k for k, c in enumerate(counts) for _ in range(c)]
        if tiles:
            fewer = counts_of(tiles[1:])
            assert shanten(fewer, wilds + 1) <= value
    assert shanten(counts, wilds, seven_pairs=True) <= value


def test_full_size_hands_against_brute_force() -> None:
    """13- and 14-tile hands (the sizes played), with and without 七对子, 0-2 wilds."""
    rng = random.Random(11)
    for _ in range(30):
        size = rng.choice([13, 14])
        wilds = rng.randrange(3)
        pool = WALL if rng.random() < 0.5 else [t for t in WALL if t in CLOSE]
        counts = counts_of(rng.sample(pool, size - wilds))
        seven = rng.random() < 0.5
        expected = brute_shanten(counts, wilds, seven_pairs=seven)
        assert shanten(counts, wilds, seven_pairs=seven) == expected


# --------------------------------------------------------------------------- the suit tables


def _entry_by_enumeration(key: bytes) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """A suit key's entry the way it was first computed: every sub-vector enumerated."""
    size = sum(key)
    nopair, _ = suit_costs(key)
    top = (nopair + size + 2) // 3 + 1
    plain, paired = [UNREACHED] * (top + 1), [UNREACHED] * (top + 1)
    for kept in product(*(range(c + 1) for c in key)):
        thrown = size - sum(kept)
        sub_nopair, sub_pair = suit_costs(bytes(kept))
        for steps, gain in ((plain, nopair - (sub_nopair - thrown)),
                            (paired, nopair + 2 - (sub_pair - thrown))):
            for j in range(min(gain // 3, top) + 1) if gain >= 0 else ():
                steps[j] = min(steps[j], thrown)
    return (nopair, tuple(s for s in plain if s < UNREACHED),
            tuple(s for s in paired if s < UNREACHED))


UNREACHED = 1 << 20


def test_suit_entries_are_those_of_every_sub_vector() -> None:
    """A suit key's entry (built from the keys one tile smaller) is the one enumerating
    every sub-vector gives, for keys of every size a hand can hold (up to 15 tiles in one
    suit, 3n+3) in both suit lengths, tables cold and warm."""
    rng = random.Random(3)
    for length in (9, 7):
        for size in range(16):
            for _ in range(40):
                counts = [0] * length
                while sum(counts) < size:
                    i = rng.randrange(length)
                    counts[i] += counts[i] < 4
                key = bytes(counts)
                assert shanten_tables._suit_entry(key) == _entry_by_enumeration(key), key


def test_warming_builds_every_small_suit_key_once() -> None:
    """`warm` (run by a server process before it serves) builds each suit key of at most
    that many tiles: 14,125 of up to 7 tiles (1 + 9 + ... 9-rank keys and the honours'),
    and a hand's values are the same after it."""
    counts, wilds = hand("123m456p789s11z"), 0
    before = shanten_after_discard(counts, wilds)
    assert shanten_tables.warm(3) == 340  # 220 9-rank keys and 120 honours keys
    assert shanten_tables.warm() == 14_125
    assert all(bytes(v) in shanten_tables._SUIT_IDS
               for length in (9, 7) for v in suit_vectors(length, 7))
    assert shanten_after_discard(counts, wilds) == before
