"""The expert house bot (高手): decides from its seat's view (`seen.SeatView`) alone.

On its turn it scores every legal discard by what is left:
- speed: the 向听 (shanten) after the discard, then how many unseen tiles would lower it
  (受入, counted from what the seat sees: four copies less the visible ones);
- value: in 上海, where only special hands win, the shanten is the special hand's (the
  lowest of 混一色 / 清一色 in each suit the melds allow and 碰碰胡 when no run is
  declared); 丽水's 七对子 and 不搭 and 温州's 八对 count as shapes while nothing is declared;
  in 丽水 a discard keeping 清一色, 大对子 or 七对子 near (they pay 2-4 times a plain win)
  gets a bonus;
- safety: the danger of the tile against each seat that looks ready (melds, how late it is,
  a flush shown by its melds), lowered for a tile that seat threw (现物), for a 筋 (suji)
  of its discards, for a tile whose copies are mostly visible, and for honours and
  terminals. When a seat looks ready and its own hand is two or more from ready, it folds:
  it throws the safest tile.
It never throws a wild while another discard is legal. It claims a 碰 / 吃 / 明杠 only when
that lowers its (variant's) shanten and it is not folding; in 上海 a claim must keep a special
hand in reach. It always takes a 胡 and declines every decision before the deal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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
from app.rules.deadend import reachable_shapes, shapes_left
from app.rules.seen import HIDDEN, SeatView, see
from app.rules.shanten import UNHELD, seven_pairs_shanten, shanten, shanten_after_discard
from app.rules.state import HandState
from app.rules.tiles import NUM_KINDS

SUITS = ((0, 9), (9, 18), (18, 27))
FOLD_THREAT = 0.75  # a seat this likely ready makes a far hand fold
FAR = 2  # shanten at which the hand folds against a threat
SHANGHAI_THREAT = 0.6  # 上海's live hands win far less often than elsewhere: threats count less
SHAPE = 10.0  # 丽水: the worth of one doubling of the hand's value (a quarter of a shanten)
DANGER = 10.0  # the weight of a discard's danger against its speed (one shanten = 40)
# 福州: a 自摸 is paid by all three others and a discard only by its thrower, so a discard's
# danger is worth little against speed there (measured: weighing it lost about 1 point a
# hand against greedy bots, 500 walls); only the fold defends
DANGER_BY_VARIANT = {"fuzhou": 0.0}


class ExpertBot:
    """高手: speed by 受入, the variant's valuable shapes, and defence, from the seat's view."""

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        return self.decide(see(state, seat, legal))

    def decide(self, view: SeatView) -> Action:
        legal = view.legal
        for action in legal:
            if isinstance(action, (Hu, Special)):
                return action
        if view.phase == "decide":
            return next((a for a in legal if isinstance(a, Decide) and a.choice == "decline"),
                        legal[0])
        plan = _Plan(view)
        if view.phase == "turn":
            return plan.turn()
        return plan.claim()


class _Plan:
    """One decision's working values."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.counts, self.wilds = view.effective()
        self.shanghai = view.ruleset.name == "shanghai"
        self.lishui = view.ruleset.name == "lishui"
        self.danger_weight = DANGER_BY_VARIANT.get(view.ruleset.name, DANGER)
        own = view.melds[view.seat]
        self.seven = self.lishui and not own
        self.eight = (view.ruleset.name == "wenzhou" and not own
                      and getattr(getattr(view.ruleset, "opts", None), "eight_pairs", False))
        self.has_run = any(m.kind == "chow" for m in own)
        self.meld_suits = {_suit(m.plays_as) for m in own if m.plays_as != HIDDEN}
        self.visible = view.visible()
        self.threats = [_threat(view, s) for s in range(4)]
        self.threats[view.seat] = 0.0

    # --- how far a hand is --------------------------------------------------------------

    def distance(self, counts: list[int], wilds: int) -> int:
        """The variant's shanten of a concealed hand (3n+1 or 3n+2 tiles)."""
        if self.shanghai:
            return self.special(counts, wilds)
        best = shanten(counts, wilds, seven_pairs=self.seven)
        if self.seven:  # 丽水 with nothing declared: 不搭 too
            best = min(best, _bu_da_shanten(counts, wilds))
        return min(best, _eight_shanten(counts, wilds)) if self.eight else best

    def special(self, counts: list[int], wilds: int) -> int:
        """上海: the lowest shanten of a special hand still open to the seat."""
        best = UNHELD
        if not self.has_run:
            best = _pung_shanten(counts, wilds)
        suited = self.meld_suits - {3}
        for s, (lo, hi) in enumerate(SUITS):
            if suited and suited != {s}:
                continue
            off = sum(counts[:lo]) + sum(counts[hi:27])
            if off >= best:
                continue
            kept = counts[:]
            for k in range(27):
                if not lo <= k < hi:
                    kept[k] = 0
            best = min(best, shanten(kept, wilds + off) + off)
        return best

    def after_discard(self, counts: list[int], wilds: int, kinds: Iterable[int]) -> list[int]:
        """The variant's shanten of a 3n+2 hand after throwing one tile of each kind (UNHELD
        for a kind not held); its other shapes (丽水's 不搭, 温州's 八对) only for `kinds`."""
        after = shanten_after_discard(counts, wilds, seven_pairs=self.seven)
        if self.seven or self.eight:
            for k in kinds:
                if not counts[k]:
                    continue
                if self.eight:
                    after[k] = min(after[k], _eight_after(counts, wilds, k))
                if self.seven:
                    counts[k] -= 1
                    after[k] = min(after[k], _bu_da_shanten(counts, wilds))
                    counts[k] += 1
        return after

    def acceptances(self, counts: list[int], wilds: int, kinds: Sequence[int], now: int) -> dict[int, int]:
        """For each kind of `kinds` thrown from a 3n+2 hand, its 受入: the unseen tiles whose
        draw would bring what is left below `now` (a drawn tile that is held or beside one).
        One `after_discard` per tile that may be drawn answers every throw at once."""
        totals = dict.fromkeys(kinds, 0)
        visible, view = self.visible, self.view
        for k in range(NUM_KINDS):
            left = 4 - visible[_physical(view, k)]
            if left <= 0:
                continue
            useful = []
            for d in kinds:
                counts[d] -= 1
                if counts[k] or _near(counts, k):
                    useful.append(d)
                counts[d] += 1
            if not useful:
                continue
            counts[k] += 1
            after = self.after_discard(counts, wilds, useful)
            counts[k] -= 1
            for d in useful:
                if after[d] < now:
                    totals[d] += left
        return totals

    # --- danger ---------------------------------------------------------------------------

    def danger(self, tile: int) -> float:
        """How likely throwing `tile` deals in, summed over the threatening seats."""
        kind = self.view.plays_as(tile)
        if kind is None:
            return 10.0
        total = 0.0
        for s, threat in enumerate(self.threats):
            if threat > 0.05:
                total += threat * _tile_danger(self.view, s, tile, self.visible)
        return total

    # --- the turn ---------------------------------------------------------------------------

    def turn(self) -> Action:
        view = self.view
        legal = view.legal
        discards = [a for a in legal if isinstance(a, Discard)]
        threat = max(self.threats)
        counts, wilds = self.counts, self.wilds
        after: list[int] = []
        if not self.shanghai:
            after = self.after_discard(counts, wilds, range(NUM_KINDS))
        scored: list[tuple[float, int, Action]] = []
        best_speed = UNHELD
        options: list[tuple[Discard, int, int]] = []
        for action in discards:
            kind = view.plays_as(action.tile)
            if kind is None:
                continue  # a wild: only when nothing else is legal
            if self.shanghai:
                counts[kind] -= 1
                value = self.special(counts, wilds)
                counts[kind] += 1
            else:
                value = after[kind]
            options.append((action, value, kind))
            best_speed = min(best_speed, value)
        if not options:
            return discards[0] if discards else legal[0]
        folding = threat >= FOLD_THREAT and best_speed >= FAR
        accepts: dict[int, int] = {}
        if not folding and not self.shanghai:
            fastest = sorted({kind for _, value, kind in options if value == best_speed})
            accepts = self.acceptances(counts, wilds, fastest, best_speed)
        for option, value, kind in options:
            danger = self.danger(option.tile)
            if folding:
                scored.append((danger * 100 + value, 0, option))
                continue
            if value > best_speed + (1 if threat >= FOLD_THREAT else 0):
                continue
            accept = accepts.get(kind, 0) if value == best_speed else 0
            counts[kind] -= 1
            shape = self.shape(counts, wilds, value) if self.lishui else 0
            counts[kind] += 1
            weight = threat * (6 if value >= 1 else 3)
            cost = value * 40 - accept * 0.5 - shape + weight * danger * self.danger_weight
            cost += 0.01 * _isolation(counts, kind)
            scored.append((cost, 0, option))
        best = min(scored, key=lambda t: t[0])[2]
        for kong_action in legal:  # a kong that keeps the hand as near
            if isinstance(kong_action, (ConcealedKong, AddedKong)) and not folding:
                played = view.plays_as(kong_action.tile)
                if played is None:
                    continue
                kong = counts[:]
                kong[played] -= 4 if isinstance(kong_action, ConcealedKong) else 1
                if self.distance(kong, wilds) <= best_speed:
                    return kong_action
        return best

    def shape(self, counts: list[int], wilds: int, speed: int) -> float:
        """丽水: a bonus for keeping a shape that pays more than a plain win (大对子 and 七对子
        double it, 清一色 quadruples it) when the shape is as near as the hand (`speed`), half
        of it when one exchange farther."""
        bonus = 0.0

        def add(shape_shanten: int, doublings: int) -> None:
            nonlocal bonus
            if shape_shanten <= speed:
                bonus += SHAPE * doublings
            elif shape_shanten == speed + 1:
                bonus += SHAPE * doublings / 2

        if not self.has_run:
            add(_pung_shanten(counts, wilds), 1)
        if self.seven and sum(counts) + wilds == 13:
            add(seven_pairs_shanten(counts, wilds), 1)
        suited = self.meld_suits - {3}
        for s, (lo, hi) in enumerate(SUITS):
            if suited and suited != {s}:
                continue
            off = sum(counts[:lo]) + sum(counts[hi:])
            if off <= 3:
                kept = counts[:]
                for k in range(NUM_KINDS):
                    if not lo <= k < hi:
                        kept[k] = 0
                add(shanten(kept, wilds + off) + off, 2)
        return bonus

    # --- a claim ----------------------------------------------------------------------------

    def claim(self) -> Action:
        view = self.view
        legal = view.legal
        pass_action = next(a for a in legal if isinstance(a, Pass))
        claim = view.claim
        if claim is None:
            return pass_action
        kind = view.plays_as(claim.tile)
        if kind is None:
            return pass_action
        counts, wilds = self.counts, self.wilds
        now = self.distance(counts, wilds)
        if max(self.threats) >= FOLD_THREAT and now >= FAR:
            return pass_action
        for action in legal:
            if isinstance(action, ExposedKong):
                after = counts[:]
                after[kind] -= 3
                if self.distance(after, wilds) <= now and self.keeps_shape(kind, False):
                    return action
        for action in legal:
            if isinstance(action, (Pung, Chow)):
                after = counts[:]
                if isinstance(action, Pung):
                    after[kind] -= 2
                else:
                    for t in (action.low, action.low + 1, action.low + 2):
                        if t != kind:
                            after[t] -= 1
                if not self.keeps_shape(kind, isinstance(action, Chow)):
                    continue
                best = self.best_after_claim(after, wilds, isinstance(action, Chow), kind)
                if best < now:
                    return action
        return pass_action

    def keeps_shape(self, kind: int, run: bool) -> bool:
        """上海: whether a meld of `kind` (a run or not) leaves a special hand possible."""
        if not self.shanghai:
            return True
        suits = self.meld_suits | {_suit(kind)}
        return bool(shapes_left(suits - {3}, honours=3 in suits, runs=run or self.has_run))

    def best_after_claim(self, counts: list[int], wilds: int, run: bool, kind: int) -> int:
        """The lowest shanten after the claim and the best discard that follows it."""
        if not self.shanghai:
            return min(shanten_after_discard(counts, wilds))
        had_run, had_suits = self.has_run, self.meld_suits
        self.has_run = had_run or run
        self.meld_suits = had_suits | {_suit(kind)}
        best = UNHELD
        for k in range(NUM_KINDS):
            if counts[k]:
                counts[k] -= 1
                best = min(best, self.special(counts, wilds))
                counts[k] += 1
        self.has_run, self.meld_suits = had_run, had_suits
        return best


def _suit(kind: int) -> int:
    return min(kind // 9, 3)


def _physical(view: SeatView, kind: int) -> int:
    if kind == view.wild.wild and view.wild.substitute is not None:
        return view.wild.substitute
    return kind


def _near(counts: list[int], k: int) -> bool:
    """Whether a drawn `k` could join something held (a suited neighbour within two)."""
    if k >= 27:
        return False
    low = k - k % 9
    return any(counts[j] for j in range(max(low, k - 2), min(low + 9, k + 3)))


def _isolation(counts: list[int], kind: int) -> int:
    if kind >= 27:
        return counts[kind]
    low = kind - kind % 9
    return sum(counts[max(low, kind - 2) : min(low + 9, kind + 3)])


def _pung_shanten(counts: list[int], wilds: int) -> int:
    """The shanten of 碰碰胡 / 大对子 (only pungs and one pair) for the concealed tiles."""
    tiles = sum(counts) + wilds
    sets = tiles // 3
    held = sorted((c for c in counts if c), reverse=True)
    missing = sum(3 - min(c, 3) for c in held[:sets]) + 3 * max(0, sets - len(held))
    rest = held[sets:]
    missing += 2 - min(rest[0], 2) if rest else 2
    return max(missing - wilds, 0) - 1


def _apart(mask: int) -> int:
    """The most ranks (bits 0-8 of `mask`, the ranks of one suit held) that are pairwise
    three or more apart."""
    best = [0] * 10  # best[i]: the most among ranks >= i
    for i in range(8, -1, -1):
        best[i] = max(best[i + 1], (1 + best[min(i + 3, 9)]) if mask >> i & 1 else 0)
    return best[0]


_APART = tuple(_apart(mask) for mask in range(512))  # `_apart` of every suit's ranks held


def _bu_da_shanten(counts: list[int], wilds: int) -> int:
    """丽水's 不搭 (十三不搭: 14 different tiles, honours all different, one suit's tiles
    three or more apart) for a 13- or 14-tile hand: one tile short of 14 kept is waiting."""
    size = sum(counts) + wilds
    if size not in (13, 14):
        return UNHELD
    kept = sum(1 for k in range(27, NUM_KINDS) if counts[k])
    for lo in (0, 9, 18):
        mask = 0
        for i, held in enumerate(counts[lo:lo + 9]):
            if held:
                mask |= 1 << i
        kept += _APART[mask]
    return max(13 - kept - wilds, -1 if size == 14 else 0)


def _eight_shanten(counts: list[int], wilds: int) -> int:
    """温州's 八对 (eight pairs and one odd tile, 17 tiles) for a 16- or 17-tile hand."""
    pairs = sum(c >> 1 for c in counts)
    singles = sum(c & 1 for c in counts)
    return _eight(pairs, singles, wilds, sum(counts) + wilds)


def _eight(pairs: int, singles: int, wilds: int, size: int) -> int:
    if size not in (16, 17):
        return UNHELD
    pairs = min(pairs, 8)
    value = 15 - wilds - 2 * pairs - min(singles, 8 - pairs)
    return max(value, 0 if size == 16 else -1)


def _eight_after(counts: list[int], wilds: int, kind: int) -> int:
    """`_eight_shanten` after throwing one `kind` (UNHELD when not held)."""
    held = counts[kind]
    if not held:
        return UNHELD
    pairs = sum(c >> 1 for c in counts)
    singles = sum(c & 1 for c in counts)
    if held & 1:
        return _eight(pairs, singles - 1, wilds, sum(counts) + wilds - 1)
    return _eight(pairs - 1, singles + 1, wilds, sum(counts) + wilds - 1)


def _threat(view: SeatView, seat: int) -> float:
    """How likely `seat` looks ready, from its melds, its discards and the wall left. In 上海
    a seat whose melds leave it no special hand (a run, and suits mixed) cannot win: none."""
    melds = len(view.melds[seat])
    scale = 1.0
    if view.ruleset.name == "shanghai":
        if _dead_in_shanghai(view, seat):
            return 0.0
        scale = SHANGHAI_THREAT
    turns = len(view.discards[seat])
    threat = (0.0, 0.25, 0.5, 0.8, 0.95, 0.95)[min(melds, 5)]
    if turns >= 7:
        threat += 0.05 * (turns - 6)
    if view.wall_live < 20:
        threat += 0.1
    if melds >= 2 and _flush_suit(view, seat) is not None:
        threat += 0.15
    return min(threat, 1.0) * scale


def _dead_in_shanghai(view: SeatView, seat: int) -> bool:
    """上海: `seat`'s shown melds leave it no shape that wins (app.rules.deadend)."""
    return not reachable_shapes([m for m in view.melds[seat] if m.plays_as != HIDDEN])


def _flush_suit(view: SeatView, seat: int) -> int | None:
    """The one suit every suited meld of `seat` is in, when its melds point to a flush."""
    suits = {_suit(m.plays_as) for m in view.melds[seat] if m.plays_as != HIDDEN} - {3}
    return next(iter(suits)) if len(suits) == 1 else None


def _tile_danger(view: SeatView, seat: int, tile: int, visible: list[int]) -> float:
    """The danger of `tile` against `seat`, 0 (safe) to about 1."""
    thrown = view.discards[seat]
    if tile in thrown:
        return 0.1  # 现物: it threw that tile itself
    kind = view.plays_as(tile)
    assert kind is not None
    left = 4 - visible[tile]
    if kind >= 27:
        base = 0.35 if left >= 2 else 0.1
    else:
        rank = kind % 9
        base = 0.6 if rank in (0, 8) else 0.8 if rank in (1, 7) else 1.0
        low = kind - rank
        suji = [low + r for r in (rank - 3, rank + 3) if 0 <= r <= 8]
        if suji and all(t in thrown for t in suji):
            base *= 0.45
        elif any(t in thrown for t in suji):
            base *= 0.7
        if left <= 1:
            base *= 0.5
        flush = _flush_suit(view, seat)
        if flush is not None:
            base *= 2.0 if _suit(kind) == flush else 0.3
    return base
