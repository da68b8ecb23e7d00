"""Winning shapes (和牌型): detection, waits and readings.

A hand is given as a count vector of its real tiles (34 ints, each 0..4, see `tiles`) plus a
number of wild tiles (财神 / 百搭 / 金). A wild stands for any tile, even a fifth copy of a kind.

Shapes:

- standard (基本和): one pair (将, 牛 in 温州) plus any number of sets; a set is a pung (刻子:
  three alike) or a chow (顺子: three in a row in one suit, no wrap from 9 to 1, no honour runs);
- seven pairs (七对子): 14 tiles in seven pairs, four alike count as two pairs;
- eight pairs (八对, 温州): 17 tiles in eight pairs plus one odd tile;
- not-connected (不搭 / 十三不搭): 14 different tiles, any two of one suit at least 3 ranks apart.

The standard check is the hot path (DESIGN.md "Win detection is the hot path"). It is a table
lookup: for every suit vector (the 9 counts of one suit, or the 7 counts of the honours) the
table keeps

- ``nopair``: the fewest wilds that turn the suit's tiles into sets only, and
- ``pair``: the fewest wilds that turn them into one pair plus sets.

Each cost is fixed modulo 3 (``tiles + nopair = 0``, ``tiles + pair = 2``), and always
``pair - nopair`` is -1 or +2 (+2 is what a pair of two wilds costs). So a hand wins iff
``cost = sum(nopair) + min(pair - nopair over suits, 2)`` is at most ``wilds`` and
``wilds - cost`` is a multiple of 3 (the wilds left over then form pungs by themselves);
the second condition is the same as ``tiles + wilds = 2 (mod 3)``. Each table entry is packed
into one int, ``nopair * 8 + (1 if pair < nopair else 0)``, so the four entries of a hand just
add up; the sum indexes a precomputed row of answers for the number of wilds.

Suit vectors of up to `PREBUILT_TILES` tiles are built at import; larger ones are computed on
first use by the same recursion and kept in the same dict (a memo).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, pairwise
from typing import Final, Literal, NamedTuple

from app.rules.tiles import HONOURS, NUM_KINDS

__all__ = [
    "PREBUILT_TILES",
    "Meld",
    "PairsReading",
    "Reading",
    "eight_pairs_readings",
    "is_bu_da",
    "is_eight_pairs",
    "is_seven_pairs",
    "is_standard_win",
    "seven_pairs_readings",
    "split_suits",
    "standard_readings",
    "suit_costs",
    "suit_vectors",
    "winning_tiles",
    "winning_tiles_any",
]

PREBUILT_TILES: Final = 8
"""Suit vectors with at most this many tiles are in the table from import on."""

_SUIT_STARTS: Final = (0, 9, 18, 27)
_MAX_COUNT: Final = 4
_FAST_WILDS: Final = 16  # rows of precomputed answers: wilds 0..15
# The largest sum of four packed entries: nopair <= 2 per tile (a tile + 2 wilds is a pung),
# at most 4 x 9 tiles per suit.
_MAX_PACKED_SUM: Final = 4 * ((2 * 4 * 9 << 3) + 1) + 1


# --------------------------------------------------------------------------- per-suit table

_PACKED: dict[bytes, int] = {}
"""Suit key (9 bytes, or 7 for the honours) -> ``nopair * 8 + (pair < nopair)``."""


def _pack(nopair: int, pair: int) -> int:
    """One table entry: the two costs of a suit in one int that adds up across suits."""
    return (nopair << 3) | (1 if pair < nopair else 0)


def _unpack(packed: int) -> tuple[int, int]:
    """The (nopair, pair) costs of a table entry."""
    nopair = packed >> 3
    return nopair, nopair - 1 if packed & 1 else nopair + 2


def _removed(key: bytes, take: Sequence[tuple[int, int]]) -> bytes:
    """`key` with ``count`` tiles taken from each ``(index, count)`` of `take`."""
    rest = bytearray(key)
    for index, count in take:
        rest[index] -= count
    return bytes(rest)


def _set_options(key: bytes, low: int) -> Iterator[tuple[int, bytes]]:
    """Every way to make one set holding a real tile `low` (the lowest tile left in `key`).

    Yields ``(wilds used, key left)``. Real tiles are taken wherever present (a wild standing
    for a tile that is also held can always swap places with it). A chow that holds `low` as
    its only real tile costs two wilds, like the pung, and leaves the same rest: skipped.
    """
    have = key[low]
    took = min(have, 3)
    yield 3 - took, _removed(key, ((low, took),))
    if len(key) != 9:
        return  # honours: no chows
    if low <= 6 and (key[low + 1] or key[low + 2]):  # chow low, low+1, low+2
        take = [(low, 1)] + [(i, 1) for i in (low + 1, low + 2) if key[i]]
        yield 3 - len(take), _removed(key, take)
    if 1 <= low <= 7 and key[low + 1]:  # chow low-1 (a wild), low, low+1
        yield 1, _removed(key, ((low, 1), (low + 1, 1)))


def _compute(key: bytes) -> int:
    """The packed costs of a suit key, by recursion on its lowest tile (memoised in the table).

    The lowest real tile belongs either to the pair or to a set holding it: try each.
    An empty suit costs 0 without a pair and 2 (two wilds) with one.
    """
    low = next((i for i, c in enumerate(key) if c), -1)
    if low < 0:
        return _pack(0, 2)
    nopair = pair = 99
    for used, rest in _set_options(key, low):
        rest_nopair, rest_pair = _unpack(_entry(rest))
        nopair = min(nopair, used + rest_nopair)
        pair = min(pair, used + rest_pair)
    took = min(key[low], 2)
    pair = min(pair, 2 - took + _unpack(_entry(_removed(key, ((low, took),))))[0])
    return _pack(nopair, pair)


def _entry(key: bytes) -> int:
    """The packed costs of a suit key, computed and stored on first use."""
    packed = _PACKED.get(key)
    if packed is None:
        packed = _PACKED[key] = _compute(key)
    return packed


def suit_vectors(length: int, tiles: int) -> Iterator[tuple[int, ...]]:
    """All vectors of `length` counts (each 0..4) holding at most `tiles` tiles."""
    if length == 0:
        yield ()
        return
    for first in range(min(_MAX_COUNT, tiles) + 1):
        for rest in suit_vectors(length - 1, tiles - first):
            yield (first, *rest)


def _build(tiles: int) -> None:
    """Fill the table with every suit and honour vector of at most `tiles` tiles, fewest tiles
    first: the keys a hand uses most (few tiles per suit) then lie close together in memory."""
    vectors = [v for length in (9, 7) for v in suit_vectors(length, tiles)]
    for vector in sorted(vectors, key=sum):
        _entry(bytes(vector))


def _answer(packed_sum: int, wilds: int) -> bool:
    """Whether a hand whose four packed entries add up to `packed_sum` wins with `wilds`."""
    cost = (packed_sum >> 3) + (-1 if packed_sum & 7 else 2)
    return cost <= wilds and (wilds - cost) % 3 == 0


_build(PREBUILT_TILES)
_ROWS: Final[dict[int, list[bool]]] = {
    wilds: [_answer(s, wilds) for s in range(_MAX_PACKED_SUM)] for wilds in range(_FAST_WILDS)
}


def suit_costs(key: bytes) -> tuple[int, int]:
    """``(nopair, pair)``: the fewest wilds that make one suit's tiles into sets only, and into
    one pair plus sets. `key` is the suit's counts as bytes: 9 for 万/筒/条, 7 for the honours."""
    if len(key) not in (7, 9) or any(c > _MAX_COUNT for c in key):
        raise ValueError(f"not a suit vector: {list(key)}")
    return _unpack(_entry(key))


# --------------------------------------------------------------------------- standard shape


def _checked(counts: Sequence[int], wilds: int) -> bytes:
    """`counts` as bytes after checking it is a count vector and `wilds` is not negative."""
    if len(counts) != NUM_KINDS:
        raise ValueError(f"a count vector has {NUM_KINDS} entries, not {len(counts)}")
    b = bytes(counts)  # raises ValueError on a negative count
    if max(b) > _MAX_COUNT:
        raise ValueError(f"counts must be 0..{_MAX_COUNT}: {list(counts)}")
    if wilds < 0:
        raise ValueError(f"negative number of wilds: {wilds}")
    return b


split_suits: Final = struct.Struct("9s9s9s7s").unpack
"""A 34-byte count vector -> its four suit keys (万, 筒, 条, honours) in one call: faster than
four slices (struct.error on any other length). Also for `shanten`."""


def _packed_sum(b: bytes) -> int:
    """The sum of the four packed table entries of a hand (filling the table as needed)."""
    m, p, s, z = split_suits(b)
    return _entry(m) + _entry(p) + _entry(s) + _entry(z)


def _standard_win_slow(counts: Sequence[int], wilds: int) -> bool:
    """`is_standard_win` for what the fast path does not cover: new keys, many wilds, errors."""
    return _answer(_packed_sum(_checked(counts, wilds)), wilds)


def is_standard_win(counts: Sequence[int], wilds: int) -> bool:
    """基本和: the tiles and wilds form exactly one pair plus sets (pungs and chows).

    `counts` is the 34-long count vector of the real tiles (each 0..4), `wilds` the number of
    wild tiles, each standing for any tile (also a fifth copy). Tiles + wilds must be 2
    (mod 3): 2, 5, 8, 11, 14, 17 ... A hand of just two wilds is a pair and wins. Four table
    lookups and one list index; no search.
    """
    try:
        m, p, s, z = split_suits(bytes(counts))
        return _ROWS[wilds][_PACKED[m] + _PACKED[p] + _PACKED[s] + _PACKED[z]]
    except (KeyError, IndexError, TypeError, struct.error):
        return _standard_win_slow(counts, wilds)


def _can_finish(work: Sequence[int], wilds: int, need_pair: bool) -> bool:
    """Whether `work` plus `wilds` can be made into sets (plus one pair if `need_pair`)."""
    if wilds < 0:
        return False
    b = bytes(work)
    total = _packed_sum(b)
    if need_pair:
        return _answer(total, wilds)
    cost = total >> 3
    return cost <= wilds and (wilds - cost) % 3 == 0


# --------------------------------------------------------------------------- waits


_SUCC: dict[bytes, tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]] = {}
"""Suit key -> the table entries of the key with one more tile, grouped by entry:
``((packed, (kinds if the key is 万, kinds if 筒, kinds if 条)), ...)``; for an honour key the
inner tuple has just the honour kinds. Ranks already held four times are left out."""


def _successors(key: bytes) -> tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]:
    """The `_SUCC` entry of a suit key, computed and stored on first use."""
    found = _SUCC.get(key)
    if found is not None:
        return found
    starts = _SUIT_STARTS[:3] if len(key) == 9 else _SUIT_STARTS[3:]
    groups: dict[int, list[int]] = {}
    for rank, count in enumerate(key):
        if count < _MAX_COUNT:
            groups.setdefault(_entry(_removed(key, ((rank, -1),))), []).append(rank)
    found = _SUCC[key] = tuple(
        (packed, tuple(tuple(start + r for r in ranks) for start in starts))
        for packed, ranks in sorted(groups.items())
    )
    return found


def winning_tiles(counts: Sequence[int], wilds: int) -> list[int]:
    """听牌: the sorted tile kinds t such that the hand plus one real t is a standard win.

    For a hand of 3n+1 tiles (wilds included); any other size has no waits. A kind the hand
    already holds four times is never a wait (no fifth real copy can be drawn). Adding t changes
    only t's suit, so the other suits' table entries are added up once.
    """
    keys = split_suits(_checked(counts, wilds))
    packed = [_entry(k) for k in keys]
    total = sum(packed)
    row = _ROWS.get(wilds)
    out: list[int] = []
    for suit, (key, own) in enumerate(zip(keys, packed)):
        rest = total - own
        pick = 0 if suit == 3 else suit
        for entry, kinds in _successors(key):
            if row[rest + entry] if row is not None else _answer(rest + entry, wilds):
                out.extend(kinds[pick])
    out.sort()
    return out


def winning_tiles_any(
    counts: Sequence[int], wilds: int, *, seven_pairs: bool, bu_da: bool, eight_pairs: bool
) -> list[int]:
    """The waits for the standard shape plus, where enabled, 七对子, 不搭 and 八对.

    Same conventions as `winning_tiles`: sorted kinds, no wait on a kind held four times.
    """
    waits = set(winning_tiles(counts, wilds))
    checks = [
        check
        for check, enabled in (
            (is_seven_pairs, seven_pairs),
            (is_bu_da, bu_da),
            (is_eight_pairs, eight_pairs),
        )
        if enabled
    ]
    if checks:
        work = list(counts)
        for kind in range(NUM_KINDS):
            if kind in waits or work[kind] >= _MAX_COUNT:
                continue
            work[kind] += 1
            if any(check(work, wilds) for check in checks):
                waits.add(kind)
            work[kind] -= 1
    return sorted(waits)


# --------------------------------------------------------------------------- pair shapes


def _singles(counts: Sequence[int]) -> int:
    """How many kinds are held an odd number of times (each needs a wild to make a pair)."""
    b = counts if isinstance(counts, bytes) else bytes(counts)
    return b.count(1) + b.count(3)


def is_seven_pairs(counts: Sequence[int], wilds: int) -> bool:
    """七对子: exactly 14 tiles, all in pairs. Four alike count as two pairs; a wild pairs with
    any single tile or with another wild."""
    b = _checked(counts, wilds)
    return sum(b) + wilds == 14 and _singles(b) <= wilds


def is_eight_pairs(counts: Sequence[int], wilds: int) -> bool:
    """八对 (温州): exactly 17 tiles, eight pairs plus one odd tile. Pairs as in 七对子; the odd
    tile is a real single or a wild."""
    b = _checked(counts, wilds)
    return sum(b) + wilds == 17 and _singles(b) <= wilds + 1


# --------------------------------------------------------------------------- 不搭


def _apart_sets() -> tuple[int, ...]:
    """Every set of ranks 0..8 (as a bit mask) whose members are pairwise >= 3 apart."""
    found = []
    for mask in range(1 << 9):
        ranks = [r for r in range(9) if mask >> r & 1]
        if all(b - a >= 3 for a, b in pairwise(ranks)):
            found.append(mask)
    return tuple(found)


_APART: Final = _apart_sets()
_APART_ROOM: Final[dict[int, int]] = {
    held: max(m.bit_count() for m in _APART if m & held == held) - held.bit_count()
    for held in _APART
}
"""Valid held rank mask of one suit -> how many more ranks can join it keeping 3 apart."""


def _bu_da_room(b: bytes) -> int:
    """How many distinct tiles may still join the real tiles of a 不搭 hand, or -1 if the real
    tiles already break the rule (a kind twice, or two tiles of one suit < 3 apart)."""
    if max(b) > 1:
        return -1
    room = len(HONOURS) - sum(b[27:34])
    for start in _SUIT_STARTS[:3]:
        mask = sum(1 << r for r in range(9) if b[start + r])
        extra = _APART_ROOM.get(mask)
        if extra is None:
            return -1
        room += extra
    return room


def is_bu_da(counts: Sequence[int], wilds: int) -> bool:
    """不搭 (十三不搭): exactly 14 tiles, all different; any two tiles of one suit are at least
    3 ranks apart (1-4-7, 2-5-9, 1-4-8; not 1-3). The real tiles must keep the rule and the wilds
    fill gaps: each wild becomes a distinct tile that keeps it too (at most 3 per suit, 7 honours).
    """
    b = _checked(counts, wilds)
    if sum(b) + wilds != 14 or max(b) > 1:
        return False
    return wilds <= _bu_da_room(b)


# --------------------------------------------------------------------------- readings


class Meld(NamedTuple):
    """One set of a reading: a chow (顺子) by its lowest tile, or a pung (刻子) by its tile."""

    kind: Literal["chow", "pung"]
    tile: int


@dataclass(frozen=True)
class Reading:
    """One way to read a standard win: the pair (将), the sets, and what each wild stands for.

    `sets` is sorted by ``(tile, kind)``; `wild_as` is sorted and has one entry per wild.
    """

    pair: int
    sets: tuple[Meld, ...]
    wild_as: tuple[int, ...]


@dataclass(frozen=True)
class PairsReading:
    """One way to read 七对子 or 八对: the kinds of the pairs (sorted; four alike give the kind
    twice), the odd tile of 八对 (None for 七对子), and what each wild stands for (sorted)."""

    pairs: tuple[int, ...]
    odd: int | None
    wild_as: tuple[int, ...]


def _wild_kinds(counts: Sequence[int], face: int | None) -> tuple[int, ...]:
    """The kinds an all-wild pair or pung may stand for: every kind held, plus `face` (the
    wild's own kind) if given; all honours if that leaves none."""
    kinds = {k for k, c in enumerate(counts) if c}
    if face is not None:
        kinds.add(face)
    return tuple(sorted(kinds)) if kinds else HONOURS


def _wild_as(counts: Sequence[int], used: Sequence[int]) -> tuple[int, ...]:
    """The kinds the wilds stand for: the tiles `used` by a reading minus the real tiles."""
    total = [0] * NUM_KINDS
    for kind in used:
        total[kind] += 1
    return tuple(k for k in range(NUM_KINDS) for _ in range(total[k] - counts[k]))


def _melds_with(low: int) -> list[Meld]:
    """Every set that holds the tile `low`: its pung and the chows through it."""
    melds = [Meld("pung", low)]
    if low < 27:
        rank = low % 9
        melds += [Meld("chow", low - d) for d in (2, 1, 0) if 0 <= rank - d <= 6]
    return melds


def _meld_tiles(meld: Meld) -> tuple[int, int, int]:
    """The three tile kinds of a set."""
    if meld.kind == "pung":
        return (meld.tile, meld.tile, meld.tile)
    return (meld.tile, meld.tile + 1, meld.tile + 2)


class _ReadingSearch:
    """Enumerates the standard readings of one hand (the slow path, run only on a win)."""

    def __init__(self, counts: Sequence[int], wilds: int, face: int | None) -> None:
        self.counts = list(counts)
        self.work = list(counts)
        self.wild_kinds = _wild_kinds(counts, face)
        self.found: set[tuple[int, tuple[Meld, ...]]] = set()
        self._search(wilds, None, [])

    def _take(self, kinds: Sequence[int]) -> tuple[list[int], int]:
        """Take `kinds` from the work vector, real tiles where held: (kinds taken, wilds used)."""
        taken = []
        for kind in kinds:
            if self.work[kind]:
                self.work[kind] -= 1
                taken.append(kind)
        return taken, len(kinds) - len(taken)

    def _give_back(self, taken: Sequence[int]) -> None:
        for kind in taken:
            self.work[kind] += 1

    def _try(self, kinds: Sequence[int], wilds: int, pair: int | None, sets: list[Meld]) -> None:
        """Take one pair or set of `kinds`, then go on if the rest can still finish."""
        taken, used = self._take(kinds)
        if _can_finish(self.work, wilds - used, pair is None):
            self._search(wilds - used, pair, sets)
        self._give_back(taken)

    def _search(self, wilds: int, pair: int | None, sets: list[Meld]) -> None:
        low = next((k for k, c in enumerate(self.work) if c), None)
        if low is None:
            self._finish_with_wilds(wilds, pair, sets)
            return
        if pair is None:
            self._try((low, low), wilds, low, sets)
        for meld in _melds_with(low):
            sets.append(meld)
            self._try(_meld_tiles(meld), wilds, pair, sets)
            sets.pop()

    def _finish_with_wilds(self, wilds: int, pair: int | None, sets: list[Meld]) -> None:
        """All real tiles are placed: the wilds left make the pair (if missing) and pungs."""
        pairs = (pair,) if pair is not None else self.wild_kinds
        pungs = (wilds - (0 if pair is not None else 2)) // 3
        for pair_kind in pairs:
            for kinds in combinations_with_replacement(self.wild_kinds, pungs):
                melds = sets + [Meld("pung", k) for k in kinds]
                self.found.add((pair_kind, tuple(sorted(melds, key=lambda m: (m.tile, m.kind)))))

    def readings(self) -> list[Reading]:
        out = []
        for pair, sets in sorted(
            self.found, key=lambda f: (f[0], [(m.tile, m.kind) for m in f[1]])
        ):
            used = [pair, pair] + [k for meld in sets for k in _meld_tiles(meld)]
            out.append(Reading(pair, sets, _wild_as(self.counts, used)))
        return out


def standard_readings(
    counts: Sequence[int], wilds: int, *, face: int | None = None
) -> list[Reading]:
    """Every distinct reading of a standard win (empty if the hand does not win).

    Readings differ in the pair, the sets or what the wilds stand for. A wild that completes a
    pair or set with real tiles may stand for anything that fits. Wilds left over once every
    real tile is placed are canonical: they form the pair (if no real tile did) and pungs, each
    of a kind in `_wild_kinds` (a kind the hand holds, or `face`: pass the wild's own kind so a
    硬/soft distinction can be scored; all honours if the hand holds no tile at all). That finds
    the 清一色, 字一色 and 大对子 readings; it never makes an all-wild chow.
    """
    if not is_standard_win(counts, wilds):
        return []
    return _ReadingSearch(counts, wilds, face).readings()


def _pairs_readings(
    counts: Sequence[int], wilds: int, odd: int | None, wild_kinds: tuple[int, ...]
) -> list[PairsReading]:
    """Pair readings once the odd tile (if any) is set aside: singles pair with wilds, the
    wilds left pair with each other as kinds from `wild_kinds`."""
    singles = [k for k, c in enumerate(counts) if c & 1]
    base = [k for k, c in enumerate(counts) for _ in range(c // 2)] + singles
    left = wilds - len(singles)
    out = []
    for kinds in combinations_with_replacement(wild_kinds, left // 2):
        wild_as = sorted(singles + [k for k in kinds for _ in range(2)])
        out.append(PairsReading(tuple(sorted(base + list(kinds))), odd, tuple(wild_as)))
    return out


def seven_pairs_readings(
    counts: Sequence[int], wilds: int, *, face: int | None = None
) -> list[PairsReading]:
    """The readings of a 七对子 win (empty if the hand is not one). Each wild pairs a single
    tile, or two wilds make a pair of a kind the hand holds (or `face`)."""
    if not is_seven_pairs(counts, wilds):
        return []
    return _pairs_readings(counts, wilds, None, _wild_kinds(counts, face))


def eight_pairs_readings(
    counts: Sequence[int], wilds: int, *, face: int | None = None
) -> list[PairsReading]:
    """The readings of an 八对 win (empty if the hand is not one): the odd tile is any real
    single, or a wild (standing for a kind the hand holds, or `face`) when wilds are left."""
    if not is_eight_pairs(counts, wilds):
        return []
    work = list(counts)
    wild_kinds = _wild_kinds(counts, face)
    out: list[PairsReading] = []
    for kind in range(NUM_KINDS):
        if work[kind] & 1:
            work[kind] -= 1
            out += _pairs_readings(work, wilds, kind, wild_kinds)
            work[kind] += 1
    if wilds > _singles(counts):
        for kind in wild_kinds:
            for reading in _pairs_readings(counts, wilds - 1, kind, wild_kinds):
                wild_as = tuple(sorted(reading.wild_as + (kind,)))
                out.append(PairsReading(reading.pairs, kind, wild_as))
    return sorted(set(out), key=lambda r: (r.pairs, r.odd if r.odd is not None else -1, r.wild_as))
