"""Today's greedy bot as it was before issue 18 (commit 61bddd7), kept verbatim for the
benchmark and the equality test: `GreedyBotBefore` and the shanten functions it called
(`app/rules/shanten.py` of that commit, with a table of its own), so that old and new run
side by side in one process. Not used by the server.

    python -m bench.bench_bots           # old vs new decision time, same choices
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Final

from app.rules.actions import (
    Action,
    AddedKong,
    Chow,
    ConcealedKong,
    Decide,
    Discard,
    ExposedKong,
    Hu,
    Pass,
    Pung,
    Special,
)
from app.rules.state import HandState
from app.rules.tiles import NUM_KINDS, Tile
from app.rules.winning import split_suits, suit_costs

# --------------------------------------------------------------------------- app/rules/shanten.py

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


# --------------------------------------------------------------------------- app/rules/bots.py


class GreedyBotBefore:
    """Lowers its shanten greedily; deterministic for a given state."""

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        for action in legal:
            if isinstance(action, (Hu, Special)):
                return action  # every special action open to a bot is a win (福州 抢金)
        if state.phase == "decide":
            return next((a for a in legal if isinstance(a, Decide) and a.choice == "decline"),
                        legal[0])
        counts, wilds = state.effective(seat)
        seven = not state.melds[seat]
        if state.phase == "turn":
            return self._turn(state, seat, legal, counts, wilds, seven)
        return self._claim(state, legal, counts, wilds, seven)

    def _turn(
        self,
        state: HandState,
        seat: int,
        legal: list[Action],
        counts: list[int],
        wilds: int,
        seven: bool,
    ) -> Action:
        discards = [a for a in legal if isinstance(a, Discard)]
        best, best_shanten = _best_discard(state, discards, counts, wilds, seven)
        for action in legal:
            if isinstance(action, (ConcealedKong, AddedKong)):
                kind = state.plays_as(action.tile)
                assert kind is not None
                after = counts[:]
                after[kind] -= 4 if isinstance(action, ConcealedKong) else 1
                if shanten(after, wilds) <= best_shanten:
                    return action
        return best if best is not None else legal[0]

    def _claim(
        self, state: HandState, legal: list[Action], counts: list[int], wilds: int, seven: bool
    ) -> Action:
        window = state.window
        assert window is not None
        kind = state.plays_as(window.tile)
        now = shanten(counts, wilds, seven_pairs=seven)
        pass_action = next(a for a in legal if isinstance(a, Pass))
        if kind is None:
            return pass_action
        for action in legal:
            if isinstance(action, ExposedKong):
                after = counts[:]
                after[kind] -= 3
                if shanten(after, wilds) <= now:
                    return action
            if isinstance(action, (Pung, Chow)):
                after = counts[:]
                if isinstance(action, Pung):
                    after[kind] -= 2
                else:
                    for t in (action.low, action.low + 1, action.low + 2):
                        if t != kind:
                            after[t] -= 1
                if _min_after_discard(after, wilds) < now:
                    return action
        return pass_action


def _min_after_discard(counts: list[int], wilds: int) -> int:
    best = 99
    for t, c in enumerate(counts):
        if c:
            counts[t] -= 1
            best = min(best, shanten(counts, wilds))
            counts[t] += 1
    return best


def _neighbours(counts: list[int], kind: int) -> int:
    if kind >= 27:
        return counts[kind]
    low = kind - kind % 9
    return sum(counts[t] for t in range(max(low, kind - 2), min(low + 9, kind + 3)))


def _best_discard(
    state: HandState, discards: list[Discard], counts: list[int], wilds: int, seven: bool
) -> tuple[Action | None, int]:
    best: Action | None = None
    best_key: tuple[int, int, int] | None = None
    for action in discards:
        tile: Tile = action.tile
        kind = state.plays_as(tile)
        if kind is None:
            key = (shanten(counts, wilds - 1, seven_pairs=seven), 1, 99)  # a wild: last resort
        else:
            counts[kind] -= 1
            key = (shanten(counts, wilds, seven_pairs=seven), 0, _neighbours(counts, kind))
            counts[kind] += 1
        if best_key is None or key < best_key:
            best, best_key = action, key
    return best, (best_key[0] if best_key else 99)
