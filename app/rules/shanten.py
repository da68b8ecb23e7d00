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
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Final

from app.rules.tiles import NUM_KINDS
from app.rules.winning import split_suits, suit_costs

__all__ = ["seven_pairs_shanten", "shanten", "standard_shanten"]

_INF: Final = 1 << 20

_Steps = tuple[int, ...]
_TABLE: dict[bytes, tuple[int, _Steps, _Steps]] = {}
"""Suit key -> (nopair of the whole suit, steps without the pair, steps with the pair):
``steps[j]`` = the fewest tiles to throw away to gain j steps of 3."""


def _lower(steps: list[int], level: int, thrown: int) -> None:
    """Record that throwing `thrown` tiles reaches `level` steps (and so every lower one)."""
    for j in range(min(level, len(steps) - 1), -1, -1):
        if steps[j] <= thrown:
            break
        steps[j] = thrown


def _suit_steps(key: bytes) -> tuple[int, _Steps, _Steps]:
    """The `_TABLE` entry of one suit key, computed and stored on first use."""
    found = _TABLE.get(key)
    if found is not None:
        return found
    size = sum(key)
    nopair, _ = suit_costs(key)
    top = (nopair + size + 2) // 3 + 1
    plain = [_INF] * (top + 1)
    paired = [_INF] * (top + 1)
    for kept in product(*(range(c + 1) for c in key)):
        thrown = size - sum(kept)
        sub_nopair, sub_pair = suit_costs(bytes(kept))
        gain = nopair - (sub_nopair - thrown)
        if gain >= 0:
            _lower(plain, gain // 3, thrown)
        gain = nopair + 2 - (sub_pair - thrown)
        if gain >= 0:
            _lower(paired, gain // 3, thrown)
    found = _TABLE[key] = (nopair, _trim(plain), _trim(paired))
    return found


def _trim(steps: list[int]) -> _Steps:
    """The steps that can be reached at all."""
    return tuple(s for s in steps if s < _INF)


def _combine(done: list[int], steps: _Steps, need: int) -> list[int]:
    """Min-plus product of two step lists, with every count of at least `need` steps kept as
    `need` (more steps than needed do no harm)."""
    out = [_INF] * (need + 1)
    for a, cost_a in enumerate(done):
        if cost_a >= _INF:
            continue
        for b, cost_b in enumerate(steps):
            j = min(a + b, need)
            out[j] = min(out[j], cost_a + cost_b)
            if j == need:
                break
    return out


def _check(counts: Sequence[int], wilds: int) -> tuple[bytes, int]:
    """Validate a hand; returns its counts as bytes and its size (wilds included)."""
    if len(counts) != NUM_KINDS:
        raise ValueError(f"a count vector has {NUM_KINDS} entries, not {len(counts)}")
    b = bytes(counts)  # raises ValueError on a negative count
    if max(b) > 4 or wilds < 0:
        raise ValueError(f"not a hand: {list(counts)} + {wilds} wilds")
    size = sum(b) + wilds
    if size % 3 == 0:
        raise ValueError(f"a hand has 3n+1 or 3n+2 tiles, not {size}")
    return b, size


def standard_shanten(counts: Sequence[int], wilds: int) -> int:
    """向听 for the standard shape (one pair + sets); see the module docstring."""
    b, size = _check(counts, wilds)
    extra = 1 if size % 3 == 1 else 0
    joker_room = wilds + extra
    entries = [_suit_steps(key) for key in split_suits(b)]
    need = -((-(sum(e[0] for e in entries) + 2 - joker_room)) // 3)  # ceil
    if need <= 0:
        return extra - 1
    plain = [0] + [_INF] * need
    paired = [0] + [_INF] * need  # the pair made of jokers: no step
    for _, plain_steps, paired_steps in entries:
        with_pair = _combine(plain, paired_steps, need)
        paired = [min(x, y) for x, y in zip(_combine(paired, plain_steps, need), with_pair)]
        plain = _combine(plain, plain_steps, need)
    return paired[need] + extra - 1


def seven_pairs_shanten(counts: Sequence[int], wilds: int) -> int:
    """向听 for 七对子 (seven pairs, four alike = two pairs) on a 13- or 14-tile hand.

    Keep as many real tiles as a 14-tile seven-pairs hand can use: whole pairs first (each needs
    nothing more), then singles (each needs one more tile); draws and wilds fill the rest.
    """
    b, size = _check(counts, wilds)
    if size not in (13, 14):
        raise ValueError(f"七对子 needs 13 or 14 tiles, not {size}")
    pairs = min(sum(c // 2 for c in b), 7)
    singles = min(sum(c & 1 for c in b), 7 - pairs)
    return 13 - wilds - 2 * pairs - singles


def shanten(counts: Sequence[int], wilds: int, *, seven_pairs: bool = False) -> int:
    """向听: the fewest exchanges to complete (3n+2 tiles) or to wait (3n+1): -1 complete,
    0 waiting (听), ... With `seven_pairs`, 七对子 counts too on 13/14-tile hands."""
    best = standard_shanten(counts, wilds)
    if seven_pairs and sum(counts) + wilds in (13, 14):
        best = min(best, seven_pairs_shanten(counts, wilds))
    return best
