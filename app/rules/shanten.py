"""Shanten (向听): how far a hand is from winning.

``shanten(hand)`` is the fewest tile exchanges (discard one real tile, draw any tile) that
bring the hand to a complete hand (for 3n+2 tiles) or to a waiting one (听, for 3n+1 tiles),
counted the usual way: -1 = complete (3n+2 only), 0 = waiting / one exchange from complete,
1 = one exchange from waiting, and so on. Wilds are jokers and are never discarded. Like every
common shanten count it does not look at which tiles are still live: a drawn tile may be a
fifth copy.

How it is computed. A drawn tile can be anything, so it is as good as a wild. Keeping the real
tiles K and discarding the other r, the hand ends with ``wilds + draws`` jokers, where
``draws = r`` (3n+2) or ``r + 1`` (3n+1); it wins iff the standard cost c(K) (see `winning`) is
at most that, i.e. ``c(K) - r <= J`` with ``J = wilds + (1 if 3n+1 else 0)``. The shanten is
``draws - 1`` for the smallest feasible r.

Per suit vector v we tabulate, over every sub-vector u of v (r = |v| - |u| tiles thrown), the
smallest r that lowers ``nopair(u) - r`` by 3j below ``nopair(v)`` (j = 0, 1, ...), and the same
for ``pair(u) - r`` below ``nopair(v) + 2``. Costs move in steps of 3 (they are fixed mod 3), so
the hand needs ``K = ceil((sum nopair(v) + 2 - J) / 3)`` steps in all; a small min-plus
combination over the four suits (one of them, or none = a pair of jokers, holding the pair)
gives the fewest discards that make them.

How it is kept fast (a greedy bot asks it for every tile it might discard, issue 18). A suit
key's entry is one of a few hundred distinct values (about 120 seen in play), so each key maps
to a small entry id. Two suits combine into a "half" (万+筒, 条+honours) once per pair of
entry ids, and two halves into a "whole" (the step list of the hand, the pair anywhere) once
per pair of half ids; a hand is then four key lookups, two half lookups, one whole lookup and
an index by the steps it needs. `shanten_after_discard` gives the value after each possible
discard of a 3n+2 hand: a discard changes one suit, so each candidate is the entry of that
suit's key with one tile fewer (kept per key), one half and one whole; the 七对子 count moves
by one pair or one single. The tables grow only with new keys and stay small (in thousands of
hands: ~120 entries, ~230 halves, ~2,000 wholes), and every value is the same optimum as
before over the same step lists.

A suit key met for the first time has its entry read off the keys one tile smaller
(`_subsets`), not by enumerating its sub-vectors: a fresh process meets thousands of keys
in its first hands (issue 39). A server process builds every key of up to `WARM_TILES`
tiles before it serves (`warm`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count
from typing import Final

from app.rules.tiles import NUM_KINDS
from app.rules.winning import split_suits, suit_costs, suit_vectors

__all__ = [
    "UNHELD",
    "WARM_TILES",
    "seven_pairs_shanten",
    "shanten",
    "shanten_after_discard",
    "standard_shanten",
]

_INF: Final = 1 << 20

UNHELD: Final = 99
"""`shanten_after_discard`'s value for a kind the hand does not hold (above any shanten)."""

_Steps = tuple[int, ...]
_Entry = tuple[int, _Steps, _Steps]
"""(nopair, steps without the pair, steps with the pair): ``steps[j]`` = the fewest tiles to
throw away to gain j steps of 3 (never decreasing in j; ``steps[0]`` is 0)."""

# Interned values: an id is drawn from a counter and its value stored before the id is
# published, so two threads interning at once at worst give one value two ids (both valid).
_NEXT_ID: Final = count()
_ENTRIES: Final[dict[int, _Entry]] = {}
"""Entry id -> a suit's entry."""
_ENTRY_IDS: Final[dict[_Entry, int]] = {}
_SUIT_IDS: Final[dict[bytes, int]] = {}
"""Suit key (9 bytes, or 7 for the honours) -> entry id."""
_DROPS: Final[dict[bytes, tuple[int, ...]]] = {}
"""Suit key -> for each index, the entry id of the key with one tile fewer there (-1: none)."""
_HALVES: Final[dict[int, _Entry]] = {}
"""Half id -> two suits together: (nopair of both, steps without the pair, steps with the pair
in either suit or made of jokers)."""
_HALF_IDS: Final[dict[_Entry, int]] = {}
_PAIRS: Final[dict[int, int]] = {}
"""``entry id << 32 | entry id`` -> half id (at most the square of the entries)."""
_WHOLES: Final[dict[int, tuple[int, _Steps]]] = {}
"""``half id << 32 | half id`` -> the whole hand: (nopair, steps with the pair anywhere)."""
_SUBSETS_KEPT: Final = 10
_SUBSETS: Final[dict[bytes, tuple[bytes, bytes]]] = {}
"""Suit key of at most `_SUBSETS_KEPT` tiles -> `_subsets` of it (a few hundred bytes)."""


def _intern(value: _Entry, table: dict[int, _Entry], ids: dict[_Entry, int]) -> int:
    found = ids.get(value)
    if found is None:
        new = next(_NEXT_ID)
        table[new] = value
        found = ids.setdefault(value, new)
    return found


def _lower(steps: list[int], level: int, thrown: int) -> None:
    """Record that throwing `thrown` tiles reaches `level` steps (and so every lower one)."""
    for j in range(min(level, len(steps) - 1), -1, -1):
        if steps[j] <= thrown:
            break
        steps[j] = thrown


WARM_TILES: Final = 7
"""`warm`'s default: the suit keys of at most this many tiles (14,125 keys, ~5 MiB)."""


def warm(tiles: int = WARM_TILES) -> int:
    """Build the tables of every suit key of at most `tiles` tiles (and of each one tile
    fewer), as a server process does before it serves: a fresh process's first decisions
    then find most of their keys built. The keys built."""
    keys = sorted((bytes(v) for length in (9, 7) for v in suit_vectors(length, tiles)), key=sum)
    for key in keys:
        _suit_id(key)
        _drops(key)
    return len(keys)


def _suit_entry(key: bytes) -> _Entry:
    """The entry of one suit key, over every sub-vector of it (read off `_subsets`).

    Keeping the sub-vector u of the key v throws ``|v| - |u|`` tiles and gains
    ``nopair(v) + |v| - (nopair(u) + |u|)`` (``+ 2`` with the pair): so the fewest throws
    for j steps are ``|v|`` less the most tiles of a u with ``nopair(u) + |u|`` at most
    ``nopair(v) + |v| - 3j``, and the same with ``pair(u)``."""
    size = sum(key)
    nopair, _ = suit_costs(key)
    top = (nopair + size + 2) // 3 + 1
    most_plain, most_paired = _subsets(key)
    return nopair, _steps(most_plain, nopair + size, top, size), _steps(
        most_paired, nopair + 2 + size, top, size)


def _steps(most: bytes, start: int, top: int, size: int) -> _Steps:
    """The step list (at most `top` + 1 long) from `_subsets`'s bytes: step j keeps the most
    tiles of a sub-vector whose cost plus size is at most ``start - 3j``."""
    steps = []
    last = len(most) - 1
    for j in range(top + 1):
        t = start - 3 * j
        kept = most[min(t, last)] if t >= 0 else 0
        if not kept:
            break  # no sub-vector gains that much: nor any more
        steps.append(size - kept + 1)
    return tuple(steps)


def _subsets(key: bytes, larger: dict[bytes, tuple[bytes, bytes]] | None = None,
             ) -> tuple[bytes, bytes]:
    """Over the sub-vectors u of a suit key, for each t: 1 + the most tiles of a u with
    ``nopair(u) + |u| <= t`` (0: none), and the same with ``pair(u)``; the last byte holds
    for every larger t. Built from the keys with one tile fewer (each sub-vector is the key
    itself or one of theirs), computed and stored on first use for keys of at most
    `_SUBSETS_KEPT` tiles; a larger key's are kept only in `larger`, for the one call that
    needs them (built from the kept ones below it)."""
    size = sum(key)
    kept = size <= _SUBSETS_KEPT
    if larger is None:
        larger = {}
    found = (_SUBSETS if kept else larger).get(key)
    if found is not None:
        return found
    nopair, pair = suit_costs(key)
    plain = [_own(nopair + size, size)]
    paired = [_own(pair + size, size)]
    for i, c in enumerate(key):
        if c:
            fewer = bytearray(key)
            fewer[i] -= 1
            sub_plain, sub_paired = _subsets(bytes(fewer), larger)
            plain.append(sub_plain)
            paired.append(sub_paired)
    found = (_most(plain), _most(paired))
    (_SUBSETS if kept else larger)[key] = found
    return found


def _own(cost: int, size: int) -> bytes:
    """`_subsets`'s bytes of the key alone: 1 + its size from t = `cost` on."""
    return bytes(cost) + bytes((size + 1,))


def _most(parts: list[bytes]) -> bytes:
    """The elementwise greatest of `_subsets` bytes (a shorter one holds its last byte)."""
    if len(parts) == 1:
        return parts[0]
    width = max(map(len, parts))
    padded = [p if len(p) == width else p + p[-1:] * (width - len(p)) for p in parts]
    return bytes(map(max, *padded))


def _suit_id(key: bytes) -> int:
    """The entry id of a suit key, computed and stored on first use."""
    found = _SUIT_IDS.get(key)
    if found is None:
        found = _SUIT_IDS[key] = _intern(_suit_entry(key), _ENTRIES, _ENTRY_IDS)
    return found


def _drops(key: bytes) -> tuple[int, ...]:
    """The `_DROPS` entry of a suit key, computed and stored on first use."""
    found = _DROPS.get(key)
    if found is None:
        ids = []
        for i, c in enumerate(key):
            if c:
                fewer = bytearray(key)
                fewer[i] -= 1
                ids.append(_suit_id(bytes(fewer)))
            else:
                ids.append(-1)
        found = _DROPS[key] = tuple(ids)
    return found


def _trim(steps: list[int]) -> _Steps:
    """The steps that can be reached at all."""
    return tuple(s for s in steps if s < _INF)


def _product(a: _Steps, b: _Steps) -> list[int]:
    """Min-plus product of two step lists, in full (both never decrease, so the fewest throws
    for exactly j steps are the fewest for at least j)."""
    out = [_INF] * (len(a) + len(b) - 1)
    for i, cost_a in enumerate(a):
        for j, cost_b in enumerate(b):
            out[i + j] = min(out[i + j], cost_a + cost_b)
    return out


def _least(a: list[int], b: list[int]) -> list[int]:
    """Elementwise minimum of two step lists (the longer one's tail kept)."""
    if len(a) < len(b):
        a, b = b, a
    return [min(x, y) for x, y in zip(a, b)] + a[len(b) :]


def _half(a: int, b: int) -> int:
    """The half id of two suits' entry ids, computed and stored on first use."""
    code = a << 32 | b
    found = _PAIRS.get(code)
    if found is None:
        nopair_a, plain_a, paired_a = _ENTRIES[a]
        nopair_b, plain_b, paired_b = _ENTRIES[b]
        plain = _product(plain_a, plain_b)  # also the pair made of jokers
        paired = _least(plain, _least(_product(plain_a, paired_b), _product(paired_a, plain_b)))
        value = (nopair_a + nopair_b, _trim(plain), _trim(paired))
        found = _PAIRS[code] = _intern(value, _HALVES, _HALF_IDS)
    return found


def _whole(low: int, high: int) -> tuple[int, _Steps]:
    """The `_WHOLES` entry of two halves, computed and stored on first use."""
    code = low << 32 | high
    found = _WHOLES.get(code)
    if found is None:
        nopair_low, plain_low, paired_low = _HALVES[low]
        nopair_high, plain_high, paired_high = _HALVES[high]
        # the pair in the low half or in the high one (each half's also covers jokers)
        paired = _least(_product(paired_low, plain_high), _product(plain_low, paired_high))
        found = _WHOLES[code] = (nopair_low + nopair_high, _trim(paired))
    return found


def _thrown(whole: tuple[int, _Steps], jokers: int) -> int:
    """The fewest real tiles to throw away (each replaced by a joker) for a hand with these
    suits and `jokers` jokers to make a pair plus sets."""
    nopair, steps = whole
    need = (nopair + 4 - jokers) // 3  # ceil((nopair + 2 - jokers) / 3)
    if need <= 0:
        return 0
    return steps[need] if need < len(steps) else _INF


def _tiles(counts: Sequence[int], wilds: int) -> tuple[bytes, int]:
    """Validate a count vector; returns it as bytes and its size (wilds included)."""
    if len(counts) != NUM_KINDS:
        raise ValueError(f"a count vector has {NUM_KINDS} entries, not {len(counts)}")
    b = bytes(counts)  # raises ValueError on a negative count
    if max(b) > 4 or wilds < 0:
        raise ValueError(f"not a hand: {list(counts)} + {wilds} wilds")
    return b, sum(b) + wilds


def _check(counts: Sequence[int], wilds: int) -> tuple[bytes, int]:
    """Validate a hand; returns its counts as bytes and its size (wilds included)."""
    b, size = _tiles(counts, wilds)
    if size % 3 == 0:
        raise ValueError(f"a hand has 3n+1 or 3n+2 tiles, not {size}")
    return b, size


def standard_shanten(counts: Sequence[int], wilds: int) -> int:
    """向听 for the standard shape (one pair + sets); see the module docstring."""
    b, size = _check(counts, wilds)
    extra = 1 if size % 3 == 1 else 0
    m, p, s, z = split_suits(b)
    low = _half(_suit_id(m), _suit_id(p))
    high = _half(_suit_id(s), _suit_id(z))
    return _thrown(_whole(low, high), wilds + extra) + extra - 1


def seven_pairs_shanten(counts: Sequence[int], wilds: int) -> int:
    """向听 for 七对子 (seven pairs, four alike = two pairs) on a 13- or 14-tile hand.

    Keep as many real tiles as a 14-tile seven-pairs hand can use: whole pairs first (each needs
    nothing more), then singles (each needs one more tile); draws and wilds fill the rest.
    """
    b, size = _check(counts, wilds)
    if size not in (13, 14):
        raise ValueError(f"七对子 needs 13 or 14 tiles, not {size}")
    return _seven(sum(c // 2 for c in b), sum(c & 1 for c in b), wilds)


def _seven(pairs: int, singles: int, wilds: int) -> int:
    """七对子 向听 from the hand's pairs (four alike = two) and odd tiles."""
    pairs = min(pairs, 7)
    return 13 - wilds - 2 * pairs - min(singles, 7 - pairs)


def shanten(counts: Sequence[int], wilds: int, *, seven_pairs: bool = False) -> int:
    """向听: the fewest exchanges to complete (3n+2 tiles) or to wait (3n+1): -1 complete,
    0 waiting (听), ... With `seven_pairs`, 七对子 counts too on 13/14-tile hands."""
    best = standard_shanten(counts, wilds)
    if seven_pairs and sum(counts) + wilds in (13, 14):
        best = min(best, seven_pairs_shanten(counts, wilds))
    return best


def shanten_after_discard(
    counts: Sequence[int], wilds: int, *, seven_pairs: bool = False
) -> list[int]:
    """For a 3n+2 hand: per kind (34 values), the 向听 of the hand after throwing one real tile
    of that kind, i.e. ``shanten(counts - that tile, wilds, seven_pairs=seven_pairs)``; `UNHELD`
    for a kind the hand does not hold. One pass over the held kinds, each changing one suit.
    A 3n+3 hand (a 3n+2 hand with one tile more: what a tile drawn would give) leaves a 3n+2
    hand, whose 向听 is -1 when complete."""
    b, size = _tiles(counts, wilds)
    if size % 3 == 1:
        raise ValueError(f"a hand to discard from has 3n+2 or 3n+3 tiles, not {size}")
    keys = split_suits(b)
    ids = [_suit_id(key) for key in keys]
    halves = (_half(ids[0], ids[1]), _half(ids[2], ids[3]))
    # the hand left has 3n+1 tiles (one draw more acts as a joker) or 3n+2
    extra = 1 if size % 3 == 2 else 0
    jokers = wilds + extra
    seven = seven_pairs and size - 1 in (13, 14)
    pairs = singles = 0
    if seven:
        pairs = sum(c >> 1 for c in b)
        singles = sum(c & 1 for c in b)
    out = [UNHELD] * NUM_KINDS
    for suit in range(4):
        key = keys[suit]
        drops = _drops(key)
        start = 9 * suit
        mate = ids[suit ^ 1]  # the other suit of its half
        other = halves[1 - (suit >> 1)]
        for i in range(len(key)):
            if not key[i]:
                continue
            fewer = drops[i]
            half = _half(fewer, mate) if suit & 1 == 0 else _half(mate, fewer)
            value = _thrown(_whole(half, other) if suit < 2 else _whole(other, half), jokers) + extra - 1
            if seven:
                if key[i] & 1:
                    value = min(value, _seven(pairs, singles - 1, wilds))
                else:
                    value = min(value, _seven(pairs - 1, singles + 1, wilds))
            out[start + i] = value
    return out
