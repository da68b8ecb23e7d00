"""温州 Wenzhou rules (RULES.md section 3; seed 001).

136 tiles, no flowers. Every seat holds 16 tiles, the dealer 17; a win is 17 tiles: the pair
(牛) and five sets, or 八对 (eight pairs and one odd tile, with no declared meld), or 三财神
(all three live 财神 in hand: a win whatever the other tiles, declared on one's own turn).

**The 财神 (wild).** After the deal the tile at (the smaller die of the second roll) x 2,
counted from the tail, is turned up: its kind is the 财神 (three live copies) and 白板 plays
as an ordinary copy of the 财神's face (if the turned tile is 白板, 白板 is the 财神). A 财神 is
never discarded and never used to 吃, 碰 or 杠. The 16 tiles nearest the tail only serve as
杠 replacements: when the other tiles are drawn and the last discard is not won on, the
hand is drawn.

**Discards (出牌先出风字).** While you hold an honour (wind or dragon) singly, you must
discard such a single honour; if the latest discard is an honour you hold singly, you must
discard that one. Pairs of honours may be kept; the 财神 and 白板 are exempt.

**Multipliers** (the highest applies): 软 (a 财神 stands in for another tile) x1; 硬 (no
财神 stands in for another tile) x2; 软八对 x2; 硬八对 (no 财神) x4; 三财神 with a standard
shape x4 (without one x2); 天胡, 地胡 (a non-dealer's first draw completes the dealt hand)
and 单吊 (five melds declared, the single tile left completed) x4.

**Points.** k counts the dealer's consecutive deals (1 to 4). The base (底分) is 2k between
the dealer and a non-dealer and 2 between two non-dealers. Before each hand the dealer may
buy (买底); after a buy each non-dealer may counter (顶底). If the dealer wins after buying,
every non-dealer's amount includes 2k more; if a non-dealer who countered wins, the dealer's
amount includes 4k more. Each loser pays its amount x the multiplier, the discarder (放冲)
double (also the seat whose added kong is robbed); the winner collects from all three. Then
财神分: each 财神 in a seat's hand at the end earns 1 point from each other seat (net between
seats), after wins and draws alike; a draw pays nothing else. A seat that escapes pays (its
买底 / 顶底 amount + the base) x 10, shared by the other three, who also collect their 财神分.

**The deal.** A dealer win or a draw keeps the dealer (k + 1, at most 4); another seat's win
or an escape passes the deal to the next seat (k = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.rules.context import Settlement, TableContext, Transfer
from app.rules.scoring import (
    ANY_SHAPE,
    EIGHT_PAIRS,
    MULTIPLIER,
    RULE_HIGHEST,
    STANDARD,
    Appraisal,
    BaseReason,
    Payment,
    Score,
    Term,
    item,
    pays,
)
from app.rules.state import HandState, WildSetup, WinRecord
from app.rules.tiles import HONOURS, WHITE, Tile
from app.rules.variants.base import Ruleset, split, win_transfers
from app.rules.wall import Dice, Wall
from app.rules.winning import (
    eight_pairs_readings,
    is_eight_pairs,
    is_standard_win,
    standard_readings,
)

BUY, COUNTER, DECLINE = "buy", "counter", "decline"


@dataclass(frozen=True)
class WenzhouOptions:
    """Every [decided] point of RULES.md section 3, and every choice made where it is silent,
    named, with its default. Comments quote the rule book ("...") or mark a choice (choice:)."""

    # "the tile at small-die x 2 counted from the tail"
    indicator_die_factor: int = 2
    # "The 16 tiles nearest the tail serve only 杠 replacements"
    tail_reserve: int = 16
    # choice: the 16 are a pool, each 杠 replacement uses one of them and the live wall keeps
    # its length (the seed: "这部分牌只能供杠使用 ... 当抓完前面所有牌时 ... 流局"); False keeps 16
    # tiles at the tail whatever the kongs, so each replacement shortens the live wall
    kongs_use_reserve: bool = True
    # "while a player holds an honour singly (one copy), every discard must be such a single
    # honour" (出牌先出风字)
    honours_first: bool = True
    # "if the latest discard is an honour the player holds singly, that one"
    follow_latest_honour: bool = True
    # "八对 (8 pairs + 1 odd tile)"; only without declared melds
    eight_pairs: bool = True
    # "三财神 [decided] (holding three 财神 wins with any shape)"
    three_wilds: bool = True
    # choice: 三财神 without a standard shape is declared on one's own turn only (a self-draw,
    # also on the dealer's first turn or after a kong); on a discard it needs a real shape
    three_wilds_own_turn_only: bool = True
    # choice: 三财神 without a standard shape (the rule book prices only "三财神 with a standard
    # shape" at x4) counts x2, like 硬牌
    three_wilds_any_shape_multiplier: int = 2
    # "硬八对 (no 财神) x4": False = literally no 财神 in the hand; True would also count an
    # 八对 whose 财神 stand for their own face (as 硬牌 allows)
    hard_eight_pairs_wild_as_face: bool = False
    # "底分 = 2k between the dealer and a non-dealer; two non-dealers settle on 2"
    base_unit: int = 2
    non_dealer_base: int = 2
    # "Deal count k = consecutive deals of this dealer (1-4)"
    max_deal_count: int = 4
    # "买底: before each hand the dealer may buy ... 顶底: after a buy, each non-dealer may counter"
    buy_in: bool = True
    buy_unit: int = 2  # "the buy amount 2k"
    counter_unit: int = 4  # "the 顶底 amount 4k"
    # "the discarder (放冲) pays double"
    deal_in_factor: int = 2
    # choice: the seat whose added kong is robbed (抢杠) pays as a discarder (double)
    robbed_pays_as_discarder: bool = True
    # "each 财神 in a seat's hand earns 1 point from each other seat (net between seats)"
    wild_bonus: int = 1
    # "the escaper pays (买底/顶底 amount the escaper is party to + 底分) x 10"
    escape_multiple: int = 10
    # "a dealer win or a draw keeps the dealer with k = min(k + 1, 4)"
    draw_keeps_dealer: bool = True
    # choice: an escape passes the deal like a hand the dealer did not win (architecture.md)
    escape_keeps_dealer: bool = False


# name -> multiplier; the highest of those that apply counts (RULES.md 3)
SPECIALS: dict[str, int] = {
    "hard": 2,  # 硬牌: no 财神 stands in for another tile
    "soft_eight_pairs": 2,  # 软八对
    "hard_eight_pairs": 4,  # 硬八对 (双翻)
    "three_wilds": 4,  # 三财神 with a standard shape
    "heavenly": 4,  # 天胡
    "earthly": 4,  # 地胡
    "single_wait": 4,  # 单吊
}
SOFT = 1  # 软牌: the plain standard win, no special
# the specials that say how the hand was read
_SHAPE_OF = {
    "hard": STANDARD, "three_wilds": STANDARD,
    "soft_eight_pairs": EIGHT_PAIRS, "hard_eight_pairs": EIGHT_PAIRS,
}  # fmt: skip


@dataclass(frozen=True)
class Wenzhou(Ruleset):
    """`ctx.streak` is the dealer's consecutive deals before this hand (0 on a first deal);
    the deal count is k = min(streak + 1, 4)."""

    name: str = "wenzhou"
    score_rule: str = RULE_HIGHEST
    hand_size: int = 16
    tail_reserve: int = 16
    wild_discard: Literal["allowed", "forbidden"] = "forbidden"  # "A 财神 cannot be discarded"
    restricts_discards: bool = True

    def default_options(self) -> WenzhouOptions:
        return WenzhouOptions()

    @property
    def opts(self) -> WenzhouOptions:
        """`options`, typed."""
        return self.options

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "tail_reserve", self.opts.tail_reserve)
        object.__setattr__(self, "restricts_discards", self.opts.honours_first)

    # --- before the deal: 买底 / 顶底 ----------------------------------------------------

    def decisions(self, state: HandState) -> dict[int, tuple[str, ...]]:
        """The dealer first (buy / decline); after a buy, every non-dealer at once (counter /
        decline). The hand is dealt when nobody has anything left to decide."""
        if not self.opts.buy_in:
            return {}
        dealer, made = state.dealer, state.decisions
        if dealer not in made:
            return {dealer: (BUY, DECLINE)}
        if made[dealer] != BUY:
            return {}
        return {s: (COUNTER, DECLINE) for s in range(4) if s != dealer and s not in made}

    # --- the wall and the 财神 -----------------------------------------------------------

    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]:
        """The tile at (the smaller die) x 2 counted from the tail is turned up."""
        indicator, wall = wall.take_from_tail(min(dice) * self.opts.indicator_die_factor)
        substitute = None if indicator == WHITE else WHITE
        return WildSetup(indicator, indicator, substitute, dice), wall

    def indicator_slot(self, dice: Dice) -> tuple[Literal["front", "tail"], int] | None:
        return "tail", min(dice) * self.opts.indicator_die_factor

    def reserve(self, state: HandState) -> int:
        """16 tail tiles for 杠 replacements only. As a pool (the default) each kong made so far
        has used one; this is asked just before a replacement draw, its kong already made."""
        if not self.opts.kongs_use_reserve:
            return self.opts.tail_reserve
        kongs = sum(m.is_kong for melds in state.melds for m in melds)
        return max(0, self.opts.tail_reserve - kongs)

    # --- discards: 出牌先出风字 ----------------------------------------------------------

    def allowed_discards(self, state: HandState, seat: int, held: list[Tile]) -> list[Tile]:
        """While the seat holds an honour singly it must discard such a single honour (the one
        just discarded by another seat, if it holds that one singly); 财神 and 白板 exempt."""
        hand = state.concealed[seat]
        wild = state.wild.wild
        singles = [
            t for t in HONOURS if hand[t] == 1 and t != wild and t != WHITE and t in held
        ]  # in the order of `held`: both ascend
        if not singles:
            return held
        if self.opts.follow_latest_honour and state.river:
            last = state.river[-1]
            if last.seat != seat and not last.claimed and last.tile in singles:
                return [last.tile]
        return singles

    # --- winning -------------------------------------------------------------------------

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        if is_standard_win(counts, wilds):
            return True
        o = self.opts
        if o.three_wilds and wilds >= 3 and (
            not o.three_wilds_own_turn_only or (state.phase == "turn" and seat == state.turn)
        ):
            return True
        if not o.eight_pairs or state.melds[seat]:
            return False
        held = bytes(counts)  # a cheap necessary condition first: this runs on every discard
        return held.count(1) + held.count(3) <= wilds + 1 and is_eight_pairs(counts, wilds)

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """Every special that applies, highest first; the highest multiplier counts (软牌 x1
        when none applies). The base is 2k, the dealer's deal count k."""
        counts, wilds = state.winning_counts(win)
        o = self.opts
        melds = state.melds[win.seat]
        face = state.wild.wild
        found: dict[str, int] = {}
        standard = is_standard_win(counts, wilds)
        if standard and _is_hard(counts, wilds, face):
            found["hard"] = SPECIALS["hard"]
        if o.eight_pairs and not melds and is_eight_pairs(counts, wilds):
            hard = wilds == 0 or (
                o.hard_eight_pairs_wild_as_face and face is not None
                and _is_hard_eight_pairs(counts, wilds, face)
            )
            name = "hard_eight_pairs" if hard else "soft_eight_pairs"
            found[name] = SPECIALS[name]
        if o.three_wilds and wilds >= 3:
            if standard:
                found["three_wilds"] = SPECIALS["three_wilds"]
            else:
                found["three_wilds_any_shape"] = o.three_wilds_any_shape_multiplier
        if win.dealt_hand:
            name = "heavenly" if win.seat == state.dealer else "earthly"
            found[name] = SPECIALS[name]
        if melds and sum(counts) + wilds == 2:
            found["single_wait"] = SPECIALS["single_wait"]
        order = list(SPECIALS) + ["three_wilds_any_shape"]
        names = sorted(found, key=lambda n: (-found[n], order.index(n)))
        items = tuple(
            item(n, found[n], MULTIPLIER, counted=i == 0) for i, n in enumerate(names)
        ) or (item("soft", SOFT, MULTIPLIER),)
        # the shape read: that of the highest item that names one
        shaped = [n for n in names if n in _SHAPE_OF]
        shape = _SHAPE_OF[shaped[0]] if shaped else STANDARD if standard else ANY_SHAPE
        k = self.deal_count(state.ctx)
        return Appraisal(
            base=o.base_unit * k,
            base_reason=BaseReason("deal_count", deal_count=k),
            items=items,
            rule=self.score_rule,
            total=max(SOFT, items[0].value),
            shape=shape,
            wilds_as_face="hard" in found and shape == STANDARD,
        )

    def score(self, state: HandState, win: WinRecord) -> Score:
        appraisal = self.appraise(state, win)
        return Score(tuple(k for k in appraisal.item_keys() if k != "soft"), appraisal.total)

    # --- settlement ----------------------------------------------------------------------

    def deal_count(self, ctx: TableContext) -> int:
        """k: the dealer's consecutive deals, this hand included, at most 4."""
        return min(ctx.streak + 1, self.opts.max_deal_count)

    def base(self, ctx: TableContext, a: int, b: int) -> int:
        """底分 between seats a and b: 2k with the dealer, 2 between non-dealers."""
        if ctx.dealer in (a, b):
            return self.opts.base_unit * self.deal_count(ctx)
        return self.opts.non_dealer_base

    def bought(self, state: HandState) -> bool:
        return state.decisions.get(state.dealer) == BUY

    def countered(self, state: HandState, seat: int) -> bool:
        return seat != state.dealer and self.bought(state) and state.decisions.get(seat) == COUNTER

    def amount(self, state: HandState, winner: int, loser: int) -> list[Term]:
        """What `loser` owes `winner` before the multiplier, as terms that add up: the base
        (底分), plus the 买底 amount 2k when the dealer wins after buying, plus the 顶底
        amount 4k when a countering non-dealer wins from the dealer."""
        ctx, o = state.ctx, self.opts
        k = self.deal_count(ctx)
        key = "base" if ctx.dealer in (winner, loser) else "non_dealer_base"
        terms = [Term(key, self.base(ctx, winner, loser))]
        if winner == ctx.dealer and self.bought(state):
            terms.append(Term("buy", o.buy_unit * k))
        if loser == ctx.dealer and self.countered(state, winner):
            terms.append(Term("counter", o.counter_unit * k))
        return terms

    def escape_amount(self, state: HandState, seat: int) -> int:
        """(the 买底 / 顶底 amount the escaper is party to + the base 2k) x 10. A non-dealer is
        party to its own 顶底 (4k) or else to the dealer's 买底 (2k); the dealer to the largest
        of these among the non-dealers."""
        o = self.opts
        k = self.deal_count(state.ctx)
        stake = 0
        if self.bought(state):
            parties = [seat] if seat != state.dealer else [s for s in range(4) if s != seat]
            countered = any(self.countered(state, s) for s in parties)
            stake = (o.counter_unit if countered else o.buy_unit) * k
        return (stake + o.base_unit * k) * o.escape_multiple

    def wilds_held(self, state: HandState) -> list[int]:
        wild = state.wild.wild
        return [0] * 4 if wild is None else [state.concealed[s][wild] for s in range(4)]

    def settle(self, state: HandState) -> Settlement:
        transfers: list[Transfer] = []
        held = self.wilds_held(state)
        if state.outcome == "escape":
            assert state.escaped is not None
            payer = state.escaped
            others = [s for s in range(4) if s != payer]
            amount = self.escape_amount(state, payer)
            transfers += [Transfer(payer, s, p, "escape") for s, p in split(amount, payer, others)]
            held[payer] = 0  # the escaper collects no 财神分
            transfers += self._wild_bonus(held, payer)
        else:
            if state.outcome == "win":
                transfers += win_transfers(self, state, state.wins[0])
            transfers += self._wild_bonus(held, None)
        return Settlement(tuple(transfers))

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """Each loser pays (the base between the two + the 买底 or 顶底 amount where it
        applies) x the total, the discarder (and a robbed seat) double."""
        o = self.opts
        total = Term("total", appraisal.total)
        double = win.from_seat if (not win.robbed_kong or o.robbed_pays_as_discarder) else None
        out: list[Payment] = []
        for loser in range(4):
            if loser == win.seat:
                continue
            terms = self.amount(state, win.seat, loser)
            if loser == double:
                factors = [total, Term("deal_in_double", o.deal_in_factor)]
                out.append(pays(loser, "deal_in", terms, factors))
            else:
                out.append(pays(loser, "win", terms, [total]))
        return out

    def _wild_bonus(self, held: list[int], escaper: int | None) -> list[Transfer]:
        """财神分, net between each two seats; the escaper pays the others' and earns none."""
        unit = self.opts.wild_bonus
        out = []
        for a in range(4):
            for b in range(a + 1, 4):
                diff = (held[a] - held[b]) * unit
                if escaper in (a, b):
                    payer, payee = (a, b) if a == escaper else (b, a)
                    points = held[payee] * unit
                elif diff >= 0:
                    payer, payee, points = b, a, diff
                else:
                    payer, payee, points = a, b, -diff
                if points:
                    out.append(Transfer(payer, payee, points, "wild_bonus"))
        return out

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """A dealer win or a draw keeps the dealer (k + 1); otherwise the next seat deals."""
        ctx, o = state.ctx, self.opts
        keep = (
            (state.outcome == "win" and any(w.seat == ctx.dealer for w in state.wins))
            or (state.outcome == "draw" and o.draw_keeps_dealer)
            or (state.outcome == "escape" and o.escape_keeps_dealer)
        )
        if keep:
            return TableContext(dealer=ctx.dealer, streak=ctx.streak + 1)
        return TableContext(dealer=(ctx.dealer + 1) % 4, streak=0)


_HONOURS = frozenset(HONOURS)


def _is_hard(counts: list[int], wilds: int, face: Tile | None) -> bool:
    """硬: some reading has every 财神 standing for its own face (no 财神: always)."""
    if wilds == 0:
        return True
    if face is None:
        return False
    if counts[face] + wilds <= 4:  # the 财神 put back as their face: a plain check
        as_face = counts[:]
        as_face[face] += wilds
        return is_standard_win(as_face, 0)
    return any(
        all(k == face for k in r.wild_as) for r in standard_readings(counts, wilds, face=face)
    )


def _is_hard_eight_pairs(counts: list[int], wilds: int, face: Tile) -> bool:
    """八对 with every 财神 as its own face (option `hard_eight_pairs_wild_as_face`)."""
    return any(
        all(k == face for k in r.wild_as) for r in eight_pairs_readings(counts, wilds, face=face)
    )
