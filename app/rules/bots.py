"""Bots that play any variant through `legal_actions`: random-legal, greedy, and the
clock's choice for a player whose time ran out.

The greedy bot always takes a 胡 (and a special action, each of which is a win); declines
every decision before the deal (温州 买底 / 顶底); otherwise it discards the tile that leaves the lowest
向听 (shanten), never a wild when another discard is legal, and claims 碰 / 杠 / 吃 only
when the claim lowers its shanten (a kong: when it does not raise it). The server plays it
for house bot accounts.

`AutoplayBot` is the server's 托管 (auto-play, RULES.md 1) of a player's seat: a 胡 whenever
one is legal, 过 on every claim (never a 吃, 碰 or 明杠 on a discard), "decline" before the
deal, and on its own turn the greedy bot's choice: its discard, or a 暗杠 / 加杠 when the
greedy bot picks one (the rule book's "the greedy bot's choice among the legal actions").
"""

from __future__ import annotations

import random
from typing import Protocol

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
from app.rules.shanten import UNHELD, shanten, shanten_after_discard
from app.rules.state import HandState
from app.rules.tiles import Tile


class Bot(Protocol):
    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action: ...


class RandomBot:
    """Picks uniformly among the legal actions with its own seeded RNG: the index is drawn by
    rejection sampling on `rng.getrandbits` (what `Random.choice` does, written out)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._bits = rng.getrandbits

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        n = len(legal)
        k = n.bit_length()
        i = self._bits(k)
        while i >= n:
            i = self._bits(k)
        return legal[i]


class GreedyBot:
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


class AutoplayBot:
    """托管 (autoplay) of a player's seat (RULES.md 1): always takes a 胡 (or a special action,
    each of which is a win); otherwise passes on every claim and declines every decision
    before the deal (温州 买底 / 顶底); on its own turn plays the greedy bot's choice (never a
    wild when another discard is legal; a 暗杠 / 加杠 when the greedy bot picks one)."""

    def __init__(self, greedy: GreedyBot | None = None) -> None:
        self._greedy = greedy if greedy is not None else GreedyBot()

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        for action in legal:
            if isinstance(action, (Hu, Special)):
                return action
        if state.phase == "turn":
            return self._greedy.choose(state, seat, legal)
        # a claim window always offers 过; a decision round "decline" (else its first option)
        return next(
            (a for a in legal
             if isinstance(a, Pass) or isinstance(a, Decide) and a.choice == "decline"),
            legal[0],
        )


def _min_after_discard(counts: list[int], wilds: int) -> int:
    """The lowest shanten after throwing one real tile (`UNHELD` with none to throw)."""
    return min(shanten_after_discard(counts, wilds))


def _neighbours(counts: list[int], kind: int) -> int:
    """The tiles of `kind` and within two ranks of it in its suit (an honour: its own)."""
    if kind >= 27:
        return counts[kind]
    low = kind - kind % 9
    return sum(counts[max(low, kind - 2) : min(low + 9, kind + 3)])


def _best_discard(
    state: HandState, discards: list[Discard], counts: list[int], wilds: int, seven: bool
) -> tuple[Action | None, int]:
    """The discard with the lowest key (shanten after it, a wild last, then the fewest tiles
    within two ranks of it left: the most isolated), the first of equals in `discards` order.
    The shanten after every real discard comes from one `shanten_after_discard` pass."""
    best: Action | None = None
    best_key: tuple[int, int, int] | None = None
    after: list[int] | None = None
    wild_key: tuple[int, int, int] | None = None
    for action in discards:
        tile: Tile = action.tile
        kind = state.plays_as(tile)
        if kind is None:
            if wild_key is None:  # a wild: last resort
                wild_key = (shanten(counts, wilds - 1, seven_pairs=seven), 1, 99)
            key = wild_key
        else:
            if after is None:
                after = shanten_after_discard(counts, wilds, seven_pairs=seven)
            value = after[kind]
            assert value != UNHELD
            if best_key is not None and value > best_key[0]:
                continue  # cannot win the comparison, whatever its neighbours
            key = (value, 0, _neighbours(counts, kind) - 1)  # the tile thrown is gone
        if best_key is None or key < best_key:
            best, best_key = action, key
    return best, (best_key[0] if best_key else 99)


class TimeoutBot:
    """What the server plays for a present seat whose timer ran out (超时): 过 on a claim
    (RULES.md 1: timeout = pass); declines a decision (温州 买底 / 顶底); on a turn a 胡 (or
    a special action, each a win) when there is one, else the tile just drawn (摸切), or,
    with no drawn tile to throw (after 吃 / 碰) or when it is a wild, the last legal discard
    in hand order that is not a wild. Cheap, so every turn prompt can tell the player what the clock will do;
    a seat on 托管 (two timeouts in a row, or away) is played by `AutoplayBot` instead."""

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        if state.phase != "turn":
            return next(
                (a for a in legal
                 if isinstance(a, Pass) or isinstance(a, Decide) and a.choice == "decline"),
                legal[0],
            )
        for action in legal:
            if isinstance(action, (Hu, Special)):
                return action
        discards = [a for a in legal if isinstance(a, Discard)]
        plain = [a for a in discards if state.plays_as(a.tile) is not None]
        for action in plain:
            if action.tile == state.drawn:
                return action
        if plain:
            return max(plain, key=lambda a: a.tile)
        return discards[0] if discards else legal[0]


class BeginnerBot:
    """新手: the greedy bot, except that on a turn it throws, with probability `slip`, a tile
    drawn at random among its non-wild discards (a beginner's misread), and never claims a
    吃. Seeded: deterministic for a given RNG."""

    def __init__(self, rng: random.Random, slip: float = 0.4) -> None:
        self.rng = rng
        self.slip = slip
        self._greedy = GreedyBot()

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        choice = self._greedy.choose(state, seat, legal)
        if isinstance(choice, (Hu, Special)):
            return choice
        if isinstance(choice, Chow):
            return next(a for a in legal if isinstance(a, Pass))
        if state.phase == "turn" and isinstance(choice, Discard) and self.rng.random() < self.slip:
            plain = [a for a in legal if isinstance(a, Discard) and state.plays_as(a.tile) is not None]
            if plain:
                return plain[self.rng.randrange(len(plain))]
        return choice
