"""福州 Fuzhou rules (RULES.md section 5; seed 004).

144 tiles. Every honour (东南西北白发中) and every flower (春夏秋冬梅兰竹菊) is a flower (花牌):
it never stays in a hand, it is laid out and replaced from the tail (补花), and it only
scores. Hands 16 tiles, the dealer 17; a win is 17 tiles: one pair and five sets (a kong
counts as a set), or three 金 held (三金倒, any shape, wins at once).

After the deal the core runs the 补花 rounds from the dealer. Then the next tile at the tail
is turned up: its kind is the 金 (the wild, 3 live copies); the turned tile stays on show and
is what 抢金 takes. A flower turned there goes to the dealer as a flower and the next tile
is turned.

The wall keeps a reserve at the tail for replacements only: 18 tiles, plus 1 per 明杠 (an
exposed or added kong), plus 2 per 暗杠 and 2 per set of four like flowers (four of one
honour, 春夏秋冬 or 梅兰竹菊), counted over all seats. The last 4 drawable tiles are the final
round: no 补花, no discard; a drawn tile that completes the hand wins by 自摸 at once,
otherwise the hand is drawn.

Specials (the highest applies): 抢金 30 x base, in three cases: the dealer's dealt hand is
complete (天胡, declared with 胡), the dealer's first discard swaps in the turned 金 and
completes, or a non-dealer on its first turn takes the turned 金 and completes (a
`Special(seat, "rob_gold", tile)`); if the dealer and a non-dealer could both 抢金 the
non-dealer's counts, unless the dealer's is 天胡. 平胡 (no flower and no kong) is scored as
抢金. 三金倒 40 x base. 金雀 (the pair is two 金) 60 x base, and it beats any other 胡 on the
same discard whatever the seats.

花分 (flower points) of the winner: each flower 1, each 金 held 1, each 明杠 1, each 暗杠 2; a set
of four like flowers counts 6 instead of 4. Each 花分 point is worth one base (每朵花的银两与底分相同).
A plain win is worth base + 花分 x base, a special special x base + 2 x 花分 x base. 自摸 (抢金 and
三金倒 always are): each other seat pays 2 x a plain value, or a special's value. On a discard
(or a robbed kong) the discarder alone pays 2 x the value (谁放冲谁负责). 连庄: with c =
`TableContext.streak`, the dealer's consecutive wins so far, every payment to or from the
dealer uses base + c, and a non-dealer winner collects c more from the dealer (抓庄). A seat
loses at most 100 x base in a hand (封顶). Escape: 8 x base shared by the other three. A
drawn hand pays nothing. The dealer deals again after winning; otherwise (a draw and an
escape included) the next seat deals.

Choices where RULES.md is silent (each an option of `FuzhouOptions` where it can vary): 天胡
is declared with 胡 on the dealer's first turn and scored as 抢金. A `rob_gold` puts its tile
into the river as the seat's discard (nobody may claim it: the hand ends) and moves the turned
金 from its place on show into the winner's hand (`wild.indicator` becomes None), so every
tile stays accounted for; a `GoldRobbed` event says so. A non-dealer's first turn is its first
draw (a flower's replacement included) with no meld; by default it puts out the tile it drew,
so its dealt 16 tiles plus the 金 must complete, in the standard shape. The priority between
the dealer and a non-dealer is settled when the dealer robs: the first non-dealer in turn
order whose 16 tiles plus the 金 complete takes the 金 instead. The loss cap is on the
table's base and cuts 抓庄 before the win payment; a dealer who escapes pays 8 x (base + c).
A 花分 point is worth the table's base, not base + c: the streak adds to the base term only
("要根据连庄的次数加底分"; option `flower_points_at_streak_base`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.rules.actions import Special
from app.rules.context import Settlement, TableContext, Transfer
from app.rules.events import Discarded, Event, GoldRobbed
from app.rules.scoring import (
    ANY_SHAPE,
    BASE_MULTIPLE,
    FLOWER_POINTS,
    RULE_BASE_AND_FLOWERS,
    STANDARD,
    Appraisal,
    BaseReason,
    Payment,
    Score,
    ScoreItem,
    Term,
    formula_points,
    item,
    pays,
)
from app.rules.state import HandState, RiverTile, WildSetup, WinRecord
from app.rules.tiles import EAST, FLOWERS, HONOURS, Tile
from app.rules.variants.base import Ruleset, split, win_transfers
from app.rules.wall import Dice, Wall
from app.rules.winning import is_standard_win

ROB_GOLD = "rob_gold"  # 抢金
FLOWERLESS = "flowerless"  # 平胡: no flower and no kong
THREE_GOLDS = "three_golds"  # 三金倒
GOLDEN_PAIR = "golden_pair"  # 金雀

# The flower kinds of 福州: every honour and every flower (花牌).
FLOWER_KINDS: frozenset[Tile] = frozenset(HONOURS) | frozenset(FLOWERS)
# Sets of four like flowers: four of one honour, 春夏秋冬, 梅兰竹菊.
FLOWER_SETS: tuple[tuple[Tile, ...], ...] = (
    *((h, h, h, h) for h in HONOURS),
    FLOWERS[:4],
    FLOWERS[4:],
)


@dataclass(frozen=True)
class FuzhouOptions:
    """Every [decided] point of RULES.md section 5 and every choice made where it is silent,
    named, with its default."""

    # "Base: the table's base (option, default 1 point), as the source sets it by room level."
    base: int = 1
    # "Reserve: 18 tiles stay in the wall, plus 1 for each 明杠 and 2 for each 暗杠 (and for
    # each set of four like flowers)."
    reserve_tiles: int = 18
    reserve_per_exposed_kong: int = 1  # 明杠: an exposed or an added kong
    reserve_per_concealed_kong: int = 2  # 暗杠
    reserve_per_flower_set: int = 2  # four like flowers, on any seat's table
    # "抢金 ... 30 x base."
    rob_gold_multiple: int = 30
    # "平胡 (the winner has no flowers and no 杠) is scored as 抢金."
    flowerless_multiple: int = 30
    # "三金倒 40 x base."
    three_golds_multiple: int = 40
    # "金雀 (the pair is two 金) 60 x base."
    golden_pair_multiple: int = 60
    # "four like flowers (four 东, or 春夏秋冬, or 梅兰竹菊) count 6 instead of 4."
    flower_set_points: int = 6
    # Seed 004: "每朵花的银两与底分相同", "每张金的银两与底分相同": each 花分 point is worth one
    # base. Choice (the seed is silent on 连庄): the table's base, whatever the dealer's
    # streak (the streak adds to the base term only, "要根据连庄的次数加底分"); True: each
    # 花分 point is worth the payment's base, base + c between the dealer and another seat.
    flower_points_at_streak_base: bool = False
    # "Loss cap per hand (封顶) [decided]: 100 x base per seat (option)." None: no cap.
    loss_cap_multiple: int | None = 100
    # "Escape: 8 x base."
    escape_multiple: int = 8
    # Choice (RULES.md silent): what a non-dealer puts out when it takes the turned 金 on its
    # first turn ("a non-dealer, on its first turn, takes the turned 金 and completes").
    # "drawn": its first drawn tile, i.e. its dealt 16 tiles plus the 金 must complete (the
    # source: "闲家 ... 将“金”抓进,即可胡牌", and the priority "由于闲家没打出"); "any": any tile.
    rob_gold_non_dealer_puts_out: Literal["drawn", "any"] = "drawn"
    # Choice (RULES.md silent): whether the turned 金 taken as a third 金 "completes" by
    # 三金倒 for 抢金. Off: 抢金 needs the standard shape (the hand is 听 and the 金 is the
    # winning tile); a standard 抢金 that holds three 金 is still scored as 三金倒.
    rob_gold_three_golds: bool = False
    # Choice (RULES.md silent): a 金 may be discarded (a discarded wild is dead, RULES.md 1);
    # False forbids it while another discard is legal.
    gold_discard_allowed: bool = True
    # Choice: "The base used is the one in force for the escaper" (RULES.md 1): an escaping
    # dealer pays on base + c, like every payment from the dealer (连庄).
    escape_dealer_streak: bool = True


@dataclass(frozen=True)
class Fuzhou(Ruleset):
    name: str = "fuzhou"
    score_rule: str = RULE_BASE_AND_FLOWERS
    hand_size: int = 16
    with_flowers: bool = True
    flower_kinds: frozenset[Tile] = FLOWER_KINDS
    final_round: int = 4  # "The last 4 drawable tiles are the final round"
    ranks_wins: bool = True  # 金雀 beats any other 胡 on the same discard
    multi_win: bool = False
    allow_chow: bool = True

    def default_options(self) -> FuzhouOptions:
        return FuzhouOptions()

    @property
    def opts(self) -> FuzhouOptions:
        """`options`, typed."""
        return self.options

    @property
    def win_depends_on_hand_only(self) -> bool:
        return True

    def __post_init__(self) -> None:
        super().__post_init__()
        mode = "allowed" if self.opts.gold_discard_allowed else "forbidden"
        object.__setattr__(self, "wild_discard", mode)

    # --- the 金 and the wall --------------------------------------------------------

    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]:
        """开金: after 补花 the next tile at the tail is turned up; a flower turned there goes
        to the dealer and the next one is turned. The turned tile stays on show."""
        turned: list[Tile] = []
        while True:
            tile, wall = wall.draw_tail()
            if tile in self.flower_kinds:
                turned.append(tile)
                continue
            return WildSetup(tile, tile, None, None, tuple(turned)), wall

    def indicator_slot(self, dice: Dice) -> tuple[Literal["front", "tail"], int] | None:
        return "tail", 1

    def reserve(self, state: HandState) -> int:
        o = self.opts
        n = o.reserve_tiles
        for seat in range(4):
            for meld in state.melds[seat]:
                if meld.kind == "concealed_kong":
                    n += o.reserve_per_concealed_kong
                elif meld.kind in ("exposed_kong", "added_kong"):
                    n += o.reserve_per_exposed_kong
            n += o.reserve_per_flower_set * flower_sets(state.flowers[seat])
        return n

    # --- winning -----------------------------------------------------------------------

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        return wilds >= 3 or is_standard_win(counts, wilds)

    def instant_win(self, state: HandState, seat: int) -> bool:
        """三金倒: three 金 held win at once."""
        wild = state.wild.wild
        return wild is not None and state.concealed[seat][wild] >= 3

    def hu_rank(self, state: HandState, seat: int, tile: Tile) -> int:
        """金雀 beats any other 胡 on the same discard."""
        counts, wilds = state.effective(seat)
        kind = state.plays_as(tile)
        if kind is None:
            wilds += 1
        else:
            counts[kind] += 1
        return 1 if is_golden_pair(counts, wilds) else 0

    # --- 抢金 ----------------------------------------------------------------------------

    def special_actions(self, state: HandState, seat: int) -> list[Special]:
        """抢金 on the seat's first turn: `Special(seat, "rob_gold", tile)` puts `tile` out
        and takes the turned 金. The dealer: before any draw (no kong yet), putting out any
        tile but a 金. A non-dealer: on its first draw (a flower's replacement counts), with
        no meld; it puts out the drawn tile (option `rob_gold_non_dealer_puts_out`)."""
        indicator = state.wild.indicator
        wild = state.wild.wild
        if indicator is None or wild is None or state.melds[seat]:
            return []
        if seat == state.dealer:
            if state.draws[seat] != 0:
                return []
            candidates = [t for t in range(42) if state.concealed[seat][t] and t != wild]
        else:
            if state.draws[seat] != 1 or state.drawn is None:
                return []
            if self.opts.rob_gold_non_dealer_puts_out == "drawn":
                candidates = [state.drawn]
            else:
                candidates = [t for t in range(42) if state.concealed[seat][t] and t != wild]
        if any(r.seat == seat for r in state.river):
            return []
        counts, wilds = state.effective(seat)
        out = []
        for tile in candidates:
            kind = state.plays_as(tile)
            if kind is None:
                ok = self._rob_completes(state, seat, counts, wilds)  # a 金 out, a 金 in
            else:
                counts[kind] -= 1
                ok = self._rob_completes(state, seat, counts, wilds + 1)
                counts[kind] += 1
            if ok:
                out.append(Special(seat, ROB_GOLD, tile))
        return out

    def _rob_completes(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        """Whether the hand with the turned 金 taken in (counted in `wilds`) wins for 抢金."""
        if self.opts.rob_gold_three_golds:
            return self.can_win(state, seat, counts, wilds)
        return is_standard_win(counts, wilds)

    def apply_special(
        self, state: HandState, action: Special, events: list[Event]
    ) -> WinRecord | None:
        """The put-out tile goes to the river as the seat's discard (unclaimed: the hand
        ends); the turned 金 leaves the indicator's place (`wild.indicator` becomes None) for
        the winner's hand. If the dealer robs without a 天胡 while a non-dealer's hand plus
        the 金 is complete, the first such non-dealer in turn order takes the 金 and wins."""
        assert action.name == ROB_GOLD
        seat, tile = action.seat, action.tile
        gold = state.wild.indicator
        assert gold is not None
        winner = seat
        if seat == state.dealer and not state.can_win_with(seat, None):
            for other in ((seat + i) % 4 for i in (1, 2, 3)):
                counts, wilds = state.effective(other)
                if self._rob_completes(state, other, counts, wilds + 1):
                    winner = other
                    break
        state.concealed[seat][tile] -= 1
        state.river.append(RiverTile(seat, tile))
        events.append(Discarded(seat, tile, tile == state.wild.wild))
        state.concealed[winner][gold] += 1
        state.wild = dataclasses.replace(state.wild, indicator=None)
        state.drawn = None
        state.turn = winner
        events.append(GoldRobbed(winner, gold))
        return WinRecord(winner, None, gold, True, dealt_hand=True, special=ROB_GOLD)

    # --- scoring -----------------------------------------------------------------------

    def specials(self, state: HandState, win: WinRecord) -> dict[str, int]:
        """Every special the win has, with its multiple."""
        o = self.opts
        counts, wilds = state.winning_counts(win)
        found: dict[str, int] = {}
        if is_golden_pair(counts, wilds):
            found[GOLDEN_PAIR] = o.golden_pair_multiple
        if wilds >= 3:
            found[THREE_GOLDS] = o.three_golds_multiple
        heavenly = (
            win.seat == state.dealer and win.dealt_hand and win.tile is None
            and is_standard_win(counts, wilds)
        )
        if win.special == ROB_GOLD or heavenly:
            found[ROB_GOLD] = o.rob_gold_multiple
        if not state.flowers[win.seat] and not any(m.is_kong for m in state.melds[win.seat]):
            found[FLOWERLESS] = o.flowerless_multiple
        return found

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """The specials (the highest counts) and the 花分 items. The total is the hand's
        value at the base of the winner's payments: base + 花分 for a plain win, special x
        base + 2 x 花分 for a special; the base is the table's, + c when the dealer wins."""
        o = self.opts
        found = self.specials(state, win)
        chosen = max(found, key=lambda n: found[n]) if found else None  # the first listed wins a tie
        items = [item(n, v, BASE_MULTIPLE, counted=n == chosen) for n, v in found.items()]
        items += self._flower_items(state, win)
        c = state.ctx.streak
        dealer_won = win.seat == state.dealer
        base = o.base + (c if dealer_won else 0)
        flower = base if o.flower_points_at_streak_base else o.base
        counts, wilds = state.winning_counts(win)
        return Appraisal(
            base=base,
            base_reason=BaseReason("dealer_streak" if dealer_won and c else "table_base",
                                   streak=c),
            items=tuple(items),
            rule=self.score_rule,
            total=formula_points(self._value_terms(items, base, flower), ()),
            shape=STANDARD if is_standard_win(counts, wilds) else ANY_SHAPE,
            wild_pair=chosen == GOLDEN_PAIR,
        )

    def _flower_items(self, state: HandState, win: WinRecord) -> list[ScoreItem]:
        """花分 of the winner: flowers (a set of four like ones counts 6), 金 held, kongs."""
        seat = win.seat
        flowers = state.flowers[seat]
        sets = flower_sets(flowers)
        golds = state.winning_counts(win)[1]
        melds = state.melds[seat]
        concealed = sum(m.kind == "concealed_kong" for m in melds)
        exposed = sum(m.is_kong for m in melds) - concealed
        found = [
            ("flowers", len(flowers), len(flowers)),
            ("flower_sets", sets, (self.opts.flower_set_points - 4) * sets),
            ("golds", golds, golds),
            ("exposed_kongs", exposed, exposed),
            ("concealed_kongs", concealed, 2 * concealed),
        ]
        return [item(key, value, FLOWER_POINTS, count) for key, count, value in found if count]

    @staticmethod
    def _value_terms(items: Sequence[ScoreItem], base: int, flower: int) -> list[Term]:
        """The hand's value at `base`, each 花分 point worth `flower`, as terms: base + 花分 x
        flower, or special x base + 2 x 花分 x flower."""
        flowers = sum(it.value for it in items if it.kind == FLOWER_POINTS)
        special = [it for it in items if it.kind == BASE_MULTIPLE and it.counted]
        if special:
            return [Term("special", special[0].value, base),
                    Term("flower_points", flowers, 2 * flower)]
        return [Term("base", base), Term("flower_points", flowers, flower)]

    def score(self, state: HandState, win: WinRecord) -> Score:
        """The highest special (multiplier = its multiple of the base), or a plain win (1)."""
        special = [it for it in self.appraise(state, win).items
                   if it.kind == BASE_MULTIPLE and it.counted]
        if not special:
            return Score((), 1)
        return Score((special[0].key,), special[0].value)

    def flower_points(self, state: HandState, win: WinRecord) -> int:
        """花分 of the winner: flowers (a set of four like ones counts 6), 金 held, kongs."""
        return sum(it.value for it in self._flower_items(state, win))

    # --- settlement --------------------------------------------------------------------

    def settle(self, state: HandState) -> Settlement:
        o = self.opts
        ctx = state.ctx
        if state.outcome == "escape":
            payer = state.escaped
            assert payer is not None
            base = o.base
            if payer == ctx.dealer and o.escape_dealer_streak:
                base += ctx.streak
            others = [s for s in range(4) if s != payer]
            amount = o.escape_multiple * base
            shares = split(amount, payer, others)
            lines = self._capped({payer: [pays(payer, "escape", [Term("escape", p)])
                                          for _, p in shares]})
            return Settlement(tuple(
                Transfer(payer, s, line.points, "escape")
                for (s, _), line in zip(shares, lines, strict=True) if line.points
            ))
        if state.outcome == "win":
            return Settlement(tuple(win_transfers(self, state, state.wins[0])))
        return Settlement()

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """自摸: each other seat pays 2 x a plain value or a special's value; on a discard the
        discarder alone pays 2 x the value; the value on base + c between the dealer and
        another seat (连庄), and a non-dealer winner collects c more from the dealer (抓庄).
        Each payer loses at most the cap in the hand (封顶), 抓庄 cut first. By payer."""
        o = self.opts
        dealer, c = state.ctx.dealer, state.ctx.streak
        winner = win.seat
        special = any(it.kind == BASE_MULTIPLE and it.counted for it in appraisal.items)
        payers = [s for s in range(4) if s != winner] if win.from_seat is None else [win.from_seat]
        owed: dict[int, list[Payment]] = {}
        for payer in payers:
            streak = c if dealer in (winner, payer) else 0
            flower = o.base + streak if o.flower_points_at_streak_base else o.base
            terms = self._value_terms(appraisal.items, o.base + streak, flower)
            if not special and streak:
                terms[0:1] = [Term("base", o.base), Term("dealer_streak", streak)]
            if win.from_seat is not None:
                owed[payer] = [pays(payer, "deal_in", terms, [Term("deal_in_double", 2)])]
            elif special:
                owed[payer] = [pays(payer, "win", terms)]
            else:
                owed[payer] = [pays(payer, "win", terms, [Term("self_draw_double", 2)])]
        if winner != dealer and c > 0:
            owed.setdefault(dealer, []).append(
                pays(dealer, "catch_dealer", [Term("catch_dealer", c)])  # 抓庄
            )
        return [line for line in self._capped(owed) if line.points > 0]

    def _capped(self, owed: dict[int, list[Payment]]) -> list[Payment]:
        """The payments by payer, each payer's cut to what is left of its loss cap (封顶)."""
        o = self.opts
        cap = None if o.loss_cap_multiple is None else o.loss_cap_multiple * o.base
        out: list[Payment] = []
        for payer in sorted(owed):
            room = cap
            for line in owed[payer]:
                if room is not None:
                    if line.points > room:
                        line = dataclasses.replace(line, points=room, cap=cap)
                    room -= line.points
                out.append(line)
        return out

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """The dealer deals again after winning (连庄, the streak grows); otherwise, also after a
        draw or an escape, the next seat deals with a streak of 0."""
        ctx = state.ctx
        if state.outcome == "win" and any(w.seat == ctx.dealer for w in state.wins):
            return TableContext(dealer=ctx.dealer, streak=ctx.streak + 1)
        return TableContext(dealer=(ctx.dealer + 1) % 4, streak=0)


def flower_sets(flowers: list[Tile]) -> int:
    """How many sets of four like flowers (four of one honour, 春夏秋冬, 梅兰竹菊) are laid out."""
    n = 0
    for group in FLOWER_SETS:
        if group[0] == group[-1]:
            n += flowers.count(group[0]) >= 4
        else:
            n += all(t in flowers for t in group)
    return n


def is_golden_pair(counts: list[int], wilds: int) -> bool:
    """金雀: a standard win whose pair is two 金, i.e. the other tiles and wilds form sets only.
    Checked as a standard win of the hand with two 金 replaced by a pair of 东 (no honour ever
    stays in a 福州 hand, so the 东 pair can only be the pair, or a pung with a 金 whose own
    pair then turns into a pung with that 金)."""
    if wilds < 2 or counts[EAST]:
        return False
    work = counts[:]
    work[EAST] = 2
    return is_standard_win(work, wilds - 2)
