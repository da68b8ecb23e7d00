"""丽水 Lishui rules (RULES.md section 2; seeds 000 and 001).

136 tiles, no flowers; 13-tile hands, the dealer 14. After the deal the dealer rolls
again: with sum N, the N-th tile from the tail is turned and its kind is the 财神 (wild,
3 live copies). 白板 plays as an ordinary copy of the 财神's face (it may be discarded,
chowed, punged); if the turned tile is 白板, 白板 is the 财神. Throwing a 财神 is allowed
but costs 1 point to each other seat (误打财神), and nobody may claim it.

**How to win** (14 tiles, a 财神 standing for any tile): a pair plus four sets (runs or
triplets); seven pairs (七对子, four alike count as two pairs); or 不搭 (十三不搭: 14
different tiles, honours all different, tiles of one suit at least 3 apart).

**How a hand is scored**: the multiplier is the sum of every special that applies
(self-drawn / on a discard): 清一色 8/4, 字一色 8/4, 七对子 4/2, 大对子 4/2, 不搭 4/2, 财神会 4
(self-drawing a 财神 while holding another), 抢杠 4, 天胡 8, 地胡 4, 杠上开花 4; a win with no
special is 2 self-drawn (自摸), 1 on a discard (平胡). The base (底) is 3 for a dealer's first
hand, then 5, 7, 9 while the dealer keeps winning (牢庄). If the dealer wins, each other
seat pays base x multiplier; if another seat wins, the dealer pays base x multiplier and
the other two 1 x multiplier. The discarder (犯枪) pays 1 point more. Penalties: 被跟 (your
discard followed by the same tile from the next three seats: you pay each other seat 1);
统包 (a seat that fed three 吃 to its next seat pays everyone's share if either of the two
wins); 抢杠 (the robbed seat pays everyone's share). The dealer keeps the deal only by
winning. Leaving during a hand costs 10 x base, shared by the other three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.rules.context import Settlement, TableContext, Transfer
from app.rules.events import Event, Penalized
from app.rules.scoring import (
    BU_DA,
    MULTIPLIER,
    RULE_SUM,
    SEVEN_PAIRS,
    STANDARD,
    Appraisal,
    BaseReason,
    Payment,
    Score,
    ScoreItem,
    Term,
    item,
    pays,
)
from app.rules.state import HandState, WildSetup, WinRecord
from app.rules.tiles import WHITE, Tile
from app.rules.variants.base import Ruleset, split, win_transfers
from app.rules.wall import Dice, Wall
from app.rules.winning import is_bu_da, is_seven_pairs, is_standard_win


@dataclass(frozen=True)
class LishuiOptions:
    """Every [decided] point of RULES.md section 2, named, with its default."""

    wild_discard_penalized: bool = True  # 误打财神 allowed with a penalty; False forbids it
    follow_penalty: bool = True  # 被跟
    tongbao: bool = True  # 统包 after three 吃 fed to the next seat
    tongbao_chows: int = 3
    tongbao_covers_deal_in: bool = True  # the 统包 payer also pays the 犯枪 point
    deal_in_point: int = 1  # 犯枪 pays this much more
    base_first: int = 3  # 底 for a dealer's first hand
    base_step: int = 2  # +2 per consecutive dealer win (3, 5, 7, 9)
    base_max: int = 9
    escape_multiple: int = 10  # escape: 10 x base, shared by the other three
    reseat_after_session: bool = True  # seats redrawn after every 版 (the table's concern)


# name -> (self-drawn, not self-drawn); None: cannot apply that way
SPECIALS: dict[str, tuple[int | None, int | None]] = {
    "pure_suit": (8, 4),  # 清一色
    "all_honours": (8, 4),  # 字一色
    "seven_pairs": (4, 2),  # 七对子
    "all_pungs": (4, 2),  # 大对子
    "bu_da": (4, 2),  # 不搭 (十三不搭)
    "wild_meets_wild": (4, None),  # 财神会
    "robbing_kong": (None, 4),  # 抢杠
    "heavenly": (8, None),  # 天胡
    "earthly": (4, None),  # 地胡
    "kong_win": (4, None),  # 杠上开花
}
# 自摸 / 平胡: a win with no special is 2 self-drawn, 1 on a discard. Seed 000: "15、平胡 胡他人打出的
# 牌" and "平胡一倍，自摸的牌型若非特殊牌型則是二倍": only the win on a discard is 平胡; a plain
# self-drawn win is called 自摸.
PLAIN = (("self_drawn", 2), ("plain", 1))


def _pung_cost(c: int) -> int:
    return (-c) % 3


def is_all_pungs(counts: list[int], wilds: int) -> bool:
    """大对子 for the concealed part: one pair and only pungs, wilds filling in."""
    need = 0
    best_pair = 2  # a pair of two wilds
    for c in counts:
        if c:
            need += _pung_cost(c)
            best_pair = min(best_pair, (2 - c) % 3 - _pung_cost(c))
    return (sum(counts) + wilds) % 3 == 2 and need + best_pair <= wilds


@dataclass(frozen=True)
class Lishui(Ruleset):
    name: str = "lishui"
    score_rule: str = RULE_SUM
    hand_size: int = 13

    def default_options(self) -> LishuiOptions:
        return LishuiOptions()

    @property
    def opts(self) -> LishuiOptions:
        """`options`, typed."""
        return self.options

    @property
    def win_depends_on_hand_only(self) -> bool:
        return True

    def __post_init__(self) -> None:
        super().__post_init__()
        mode = "allowed" if self.opts.wild_discard_penalized else "forbidden"
        object.__setattr__(self, "wild_discard", mode)

    # --- the 财神 --------------------------------------------------------------------

    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]:
        """The dealer rolls; the N-th tile counted from the tail is turned up (RULES.md 2)."""
        indicator, wall = wall.take_from_tail(sum(dice))
        substitute = None if indicator == WHITE else WHITE
        return WildSetup(indicator, indicator, substitute, dice), wall

    def indicator_slot(self, dice: Dice) -> tuple[Literal["front", "tail"], int] | None:
        return "tail", sum(dice)

    # --- winning -----------------------------------------------------------------------

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        if is_standard_win(counts, wilds):
            return True
        if state.melds[seat]:
            return False
        held = bytes(counts)  # cheap necessary conditions first: this runs on every discard
        if held.count(1) + held.count(3) <= wilds and is_seven_pairs(counts, wilds):
            return True
        return max(held) <= 1 and is_bu_da(counts, wilds)

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """The specials of the reading that pays most; multipliers add (RULES.md 2), the
        plain win's 2 / 1 only when none applies."""
        counts, wilds = state.winning_counts(win)
        melds = state.melds[win.seat]
        kinds = [k for k, c in enumerate(counts) if c] + [m.plays_as for m in melds]
        common: list[str] = []
        if kinds and all(k < 27 for k in kinds) and len({k // 9 for k in kinds}) == 1:
            common.append("pure_suit")
        if kinds and all(k >= 27 for k in kinds):
            common.append("all_honours")
        if win.self_draw and win.tile == state.wild.wild and wilds >= 2:
            common.append("wild_meets_wild")
        if win.robbed_kong:
            common.append("robbing_kong")
        if win.dealt_hand:
            common.append("heavenly" if win.seat == state.dealer else "earthly")
        if win.kong_win:
            common.append("kong_win")

        shapes: list[tuple[str, list[str]]] = []
        if is_standard_win(counts, wilds):
            chows = any(m.kind == "chow" for m in melds)
            pungs = not chows and is_all_pungs(counts, wilds)
            shapes.append((STANDARD, ["all_pungs"] if pungs else []))
        if not melds and is_seven_pairs(counts, wilds):
            shapes.append((SEVEN_PAIRS, ["seven_pairs"]))
        if not melds and is_bu_da(counts, wilds):
            shapes.append((BU_DA, ["bu_da"]))
        column = 0 if win.self_draw else 1
        values = [self._items(common + names, column) for _, names in shapes]
        best = max(range(len(shapes)), key=lambda i: sum(it.value for it in values[i]))
        items = values[best]
        return Appraisal(
            base=self.base(state.ctx),
            base_reason=BaseReason("dealer_streak", streak=state.ctx.streak),
            items=items,
            rule=self.score_rule,
            total=sum(it.value for it in items),
            shape=shapes[best][0],
            pungs="all_pungs" in shapes[best][1],
        )

    @staticmethod
    def _items(names: list[str], column: int) -> tuple[ScoreItem, ...]:
        """The multipliers of `names` that apply this way (self-drawn or not), or the plain
        win's."""
        applied: list[ScoreItem] = []
        for name in names:
            value = SPECIALS[name][column]
            if value is not None:
                applied.append(item(name, value, MULTIPLIER))
        key, value = PLAIN[column]
        return tuple(applied) or (item(key, value, MULTIPLIER),)

    def score(self, state: HandState, win: WinRecord) -> Score:
        appraisal = self.appraise(state, win)
        plain = {key for key, _ in PLAIN}
        return Score(tuple(k for k in appraisal.item_keys() if k not in plain), appraisal.total)

    # --- penalties during play ---------------------------------------------------------

    def after_discard(self, state: HandState, seat: int, tile: Tile) -> list[Event]:
        events: list[Event] = []
        if tile == state.wild.wild:
            events.append(Penalized(seat, "wild_discard", tile))  # 误打财神
        river = state.river
        # the previous discard must match before the whole run is worth looking at
        if self.opts.follow_penalty and len(river) >= 4 and river[-2].tile == tile:
            run = river[-4:]
            if (
                all(r.tile == tile for r in run)
                and not any(r.claimed for r in run[:3])
                and all(run[i + 1].seat == (run[i].seat + 1) % 4 for i in range(3))
            ):
                events.append(Penalized(run[0].seat, "followed", tile))  # 被跟
        return events

    # --- settlement --------------------------------------------------------------------

    def base(self, ctx: TableContext) -> int:
        o = self.opts
        return min(o.base_first + o.base_step * ctx.streak, o.base_max)

    def settle(self, state: HandState) -> Settlement:
        base = self.base(state.ctx)
        if state.outcome == "escape":
            assert state.escaped is not None
            payer = state.escaped
            others = [s for s in range(4) if s != payer]
            amount = self.opts.escape_multiple * base
            return Settlement(
                tuple(Transfer(payer, s, p, "escape") for s, p in split(amount, payer, others))
            )
        transfers: list[Transfer] = []
        for penalty in state.penalties:
            assert isinstance(penalty, Penalized)
            transfers += [
                Transfer(penalty.seat, s, 1, penalty.reason) for s in range(4) if s != penalty.seat
            ]
        if state.outcome == "win":
            transfers += win_transfers(self, state, state.wins[0])
        return Settlement(tuple(transfers))

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """Each loser's base (the dealer's, between the dealer and another seat; 1 between
        two non-dealers) x the total, paid by the 统包 or robbed seat if there is one; then
        the discarder's 犯枪 point."""
        winner = win.seat
        dealer = state.dealer
        total = Term("total", appraisal.total)
        deal_in = win.from_seat
        covering = deal_in if win.robbed_kong else self._tongbao_payer(state, winner)
        out: list[Payment] = []
        for loser in range(4):
            if loser == winner:
                continue
            if dealer in (winner, loser):
                unit = Term("base", appraisal.base)
            else:
                unit = Term("non_dealer_base", 1)
            payer = covering if covering is not None else loser
            reason = "win" if payer == loser else "covers"
            out.append(pays(payer, reason, [unit], [total], share_of=loser))
        if deal_in is not None:
            payer = deal_in
            if covering is not None and (win.robbed_kong or self.opts.tongbao_covers_deal_in):
                payer = covering
            point = Term("deal_in_point", self.opts.deal_in_point)
            out.append(pays(payer, "deal_in", [point], share_of=deal_in))
        return out

    def _tongbao_payer(self, state: HandState, winner: int) -> int | None:
        """统包: seat A fed three 吃 to its next seat B; if A or B wins, the other pays all."""
        if not self.opts.tongbao:
            return None
        need = self.opts.tongbao_chows
        before, after = (winner - 1) % 4, (winner + 1) % 4
        if sum(m.kind == "chow" and m.from_seat == before for m in state.melds[winner]) >= need:
            return before
        if sum(m.kind == "chow" and m.from_seat == winner for m in state.melds[after]) >= need:
            return after
        return None

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """The dealer stays only by winning (牢庄); otherwise, also after a draw, the next seat."""
        ctx = state.ctx
        if state.outcome == "win" and any(w.seat == ctx.dealer for w in state.wins):
            return TableContext(dealer=ctx.dealer, streak=ctx.streak + 1)
        return TableContext(dealer=(ctx.dealer + 1) % 4, streak=0)
