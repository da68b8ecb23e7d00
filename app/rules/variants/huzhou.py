"""湖州 Huzhou rules (RULES.md section 4; seed 002).

136 tiles, no flowers; 13-tile hands, the dealer 14. Seat 0 (东家) deals the table's first
hand. After the deal the next tile to be drawn is turned face up and left in place: the wild
indicator (前导牌); no draw ever takes it. The wild (财神) is the same rank in the next suit
(万 -> 筒 -> 条 -> 万: 5m turns 5p, 5s turns 5m), the next wind (东 -> 南 -> 西 -> 北 -> 东) or
the next dragon (中 -> 发 -> 白 -> 中); all four copies are live. Replacement draws after a kong
come from the tail. 吃, 碰 and 杠 as usual; a wild never helps to claim, and a discarded wild
is dead.

Winning: one pair and four sets (a kong counts as a set), wilds standing for any tile; or
four wilds (四财神), which win at once, without declaring. Only one seat wins a discard:
the first after the discarder in turn order (截和). 天胡: the dealer's dealt hand is
complete. 地胡: a non-dealer's first draw completes its dealt hand.

Base: every account has a level in this variant from its cumulative points (积分):
科员 0 -> base 2, 助科 6 -> 2, 副科 18 -> 3, 科长 42 -> 4, 助处 90 -> 6, 副处 186 -> 10,
处长 378 -> 15, 助局 762 -> 20, 副局 1530 -> 30, 局长 3066 -> 50, 助市 6138 -> 80,
副市 12282 -> 150, 市长 24570 -> 300, 助省 49146 -> 500, 副省 98298 -> 800,
省长 196602 -> 1500, 麻将王 393210 -> 3000. A hand's base is the base of the lowest-level
player at the table.

Payments: a win on a discard: the discarder pays 2 x base, each other seat 1 x base. A
self-draw (自摸): every other seat pays 2 x base. Each of these doubles the payments, and
doublings multiply: a kong win (杠开: won on the replacement after a kong), 天胡 or 地胡, no
wild in the winning hand (无财神), four wilds (四财神). Robbing an added kong (拉杠和): the
robbed seat alone pays 12 x base, times the doublings. Four wilds in the dealt hand
(起手四财神) win before the dealer's first discard, paid as a self-draw with the four-wilds
doubling only, and the winner also receives 500000 silver from the house. Escape: the
escaper pays 8 x base, shared by the other three. A drawn hand pays nothing.

Dealer: the winner deals the next hand; after a drawn hand the dealer deals again if
nobody left the table, else the next seat deals. A player left the table when the account
at some seat changed between the drawn hand's end and the next deal: a seat freed at the
hand's end because its player was away, a player who got up between hands, somebody else
sitting down in a freed seat (the table tells `next_context` with `departed`). An escape
(leaving during the hand) is a player leaving the table: the deal passes to the next seat.
After a win the winner deals whoever left. `TableContext.streak` counts the consecutive
hands the same seat has dealt (it changes no payment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.rules.context import Settlement, TableContext, Transfer
from app.rules.scoring import (
    ANY_SHAPE,
    DOUBLING,
    HOUSE_SILVER,
    RULE_DOUBLINGS,
    SHARE,
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
from app.rules.tiles import EAST, GREEN, NORTH, RED, WHITE, Tile
from app.rules.variants.base import Ruleset, split, win_transfers
from app.rules.wall import Dice, Wall
from app.rules.winning import is_standard_win


@dataclass(frozen=True)
class HuzhouOptions:
    """Every [decided] point of RULES.md section 4 and every choice where it is silent, named,
    with its default."""

    # "First dealer: seat 0 (东家)."
    first_dealer: int = 0
    # "a win on a discard: the discarder pays 2 x base, the others 1 x base"
    deal_in_share: int = 2
    other_share: int = 1
    # "自摸: all pay 2 x base"
    self_draw_share: int = 2
    # "拉杠和 (robbing a 加杠): the winner gets 12 x base, all paid by the robbed seat"
    robbing_kong_share: int = 12
    # "the doublings multiply it [decided]"
    robbing_kong_doubles: bool = True
    # "起手四财神 ... paid as 自摸 with the 四财神 doubling (no 天胡/地胡 doubling) [decided]"
    dealt_four_wilds_heavenly: bool = False
    # "and also receives 500000 silver from the house (not from the players)"
    dealt_four_wilds_silver: int = 500000
    # "Escape [decided]: 8 x base."
    escape_multiple: int = 8
    # "after a draw the dealer stays"
    draw_keeps_dealer: bool = True
    # Not in RULES.md: "after a draw the dealer stays if nobody left the table, else the
    # next seat deals": an escape is a player leaving the table, so the next seat deals.
    escape_passes_deal: bool = True
    # Not in RULES.md: the seed never forbids discarding a 财神; RULES.md 1 makes a discarded
    # wild dead. True: a wild may be discarded (dead, no penalty); False forbids it.
    wild_discard_allowed: bool = True
    # Not in RULES.md: "no 财神 in the hand" (无财神) is read literally: any wild held spoils
    # it. True also counts a hand whose wilds all stand for their own kind (财神归位).
    wild_as_itself_is_no_wild: bool = False
    # Not in RULES.md: 四财神 completed by a non-dealer's first draw is also 地胡 ("地胡: a
    # non-dealer's first draw completes"), both doublings applying.
    four_wilds_on_first_draw_earthly: bool = True
    # Not in RULES.md: after each hand the seats' 积分 in the next context are the old ones
    # plus the hand's net points, never below 0 (the table may replace them from accounts).
    carry_points: bool = True


# 积分 threshold, title, base score (RULES.md 4)
LEVELS: tuple[tuple[int, str, int], ...] = (
    (0, "科员", 2),
    (6, "助科", 2),
    (18, "副科", 3),
    (42, "科长", 4),
    (90, "助处", 6),
    (186, "副处", 10),
    (378, "处长", 15),
    (762, "助局", 20),
    (1530, "副局", 30),
    (3066, "局长", 50),
    (6138, "助市", 80),
    (12282, "副市", 150),
    (24570, "市长", 300),
    (49146, "助省", 500),
    (98298, "副省", 800),
    (196602, "省长", 1500),
    (393210, "麻将王", 3000),
)


def level_of(points: int) -> tuple[str, int]:
    """The 湖州 level (title, base score) of an account with `points` 积分 (never below 0)."""
    points = max(0, points)
    title, base = LEVELS[0][1], LEVELS[0][2]
    for threshold, name, score in LEVELS:
        if points < threshold:
            break
        title, base = name, score
    return title, base


def wild_for(indicator: Tile) -> Tile:
    """The 财神 shown by a 前导牌: same rank in the next suit (m -> p -> s -> m), the next wind
    (东 -> 南 -> 西 -> 北 -> 东) or the next dragon (中 -> 发 -> 白 -> 中)."""
    if indicator < 27:
        return (indicator + 9) % 27
    if indicator <= NORTH:
        return EAST + (indicator - EAST + 1) % 4
    return {RED: GREEN, GREEN: WHITE, WHITE: RED}[indicator]


# what 湖州 calls an item differently from the other variants
_NAMES = {"robbing_kong": "拉杠和", "kong_win": "杠开"}
# the named doublings (each x2, multiplying), and the other specials
DOUBLINGS = ("kong_win", "heavenly", "earthly", "no_wild", "four_wilds")
# kong_win 杠开, heavenly 天胡, earthly 地胡, no_wild 无财神, four_wilds 四财神;
# robbing_kong 拉杠和 (12 x base from the robbed seat); dealt_four_wilds 起手四财神 (the silver)


@dataclass(frozen=True)
class Huzhou(Ruleset):
    name: str = "huzhou"
    score_rule: str = RULE_DOUBLINGS
    hand_size: int = 13
    grants_house_rewards: bool = True  # 起手四财神: silver from the house

    def default_options(self) -> HuzhouOptions:
        return HuzhouOptions()

    @property
    def opts(self) -> HuzhouOptions:
        """`options`, typed."""
        return self.options

    @property
    def win_depends_on_hand_only(self) -> bool:
        return True

    def __post_init__(self) -> None:
        super().__post_init__()
        mode = "allowed" if self.opts.wild_discard_allowed else "forbidden"
        object.__setattr__(self, "wild_discard", mode)

    def first_dealer(self, dice: Dice) -> int:
        """The table's first dealer: 东家 (seat 0), whatever the dice."""
        return self.opts.first_dealer

    # --- the 财神 --------------------------------------------------------------------

    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]:
        """The next tile to be drawn is the 前导牌: turned up in place, skipped by draws."""
        indicator, wall = wall.draw_front()
        return WildSetup(wild_for(indicator), indicator, None, None), wall

    def indicator_slot(self, dice: Dice) -> tuple[Literal["front", "tail"], int] | None:
        return "front", 1

    # --- winning -----------------------------------------------------------------------

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        return wilds >= 4 or is_standard_win(counts, wilds)

    def instant_win(self, state: HandState, seat: int) -> bool:
        """四财神: a seat holding four 财神 wins at once."""
        wild = state.wild.wild
        return wild is not None and state.concealed[seat][wild] >= 4

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """The named doublings (and 拉杠和, 起手四财神); the total is 2 ** doublings applied.
        The base is the lowest-level seat's."""
        counts, wilds = state.winning_counts(win)
        o = self.opts
        names: list[str] = []
        dealt_four = win.instant and win.dealt_hand
        if win.robbed_kong:
            names.append("robbing_kong")
        if win.kong_win:
            names.append("kong_win")
        if win.dealt_hand and (not dealt_four or o.dealt_four_wilds_heavenly):
            names.append("heavenly" if win.seat == state.dealer else "earthly")
        elif (win.instant and not win.dealt_hand and o.four_wilds_on_first_draw_earthly
              and _first_draw(state, win.seat)):
            names.append("earthly")
        if wilds >= 4:
            names.append("four_wilds")
        elif wilds == 0 or (o.wild_as_itself_is_no_wild and self._wilds_as_themselves(
                state, counts, wilds)):
            names.append("no_wild")
        if dealt_four:
            names.append("dealt_four_wilds")
        doubles = not win.robbed_kong or o.robbing_kong_doubles
        items: list[ScoreItem] = []
        for name in names:
            if name == "robbing_kong":
                items.append(item(name, o.robbing_kong_share, SHARE, name=_NAMES[name]))
            elif name == "dealt_four_wilds":
                items.append(item(name, o.dealt_four_wilds_silver, HOUSE_SILVER))
            else:
                items.append(item(name, 2, DOUBLING, counted=doubles, name=_NAMES.get(name)))
        doublings = sum(it.kind == DOUBLING and it.counted for it in items)
        points = state.ctx.seat_points
        lowest = points.index(min(points))
        title, base = level_of(points[lowest])
        return Appraisal(
            base=base,
            base_reason=BaseReason("lowest_level", level=title, seat=lowest),
            items=tuple(items),
            rule=self.score_rule,
            total=2**doublings,
            shape=STANDARD if is_standard_win(counts, wilds) else ANY_SHAPE,
        )

    def score(self, state: HandState, win: WinRecord) -> Score:
        appraisal = self.appraise(state, win)
        return Score(appraisal.item_keys(), appraisal.total)

    @staticmethod
    def _wilds_as_themselves(state: HandState, counts: list[int], wilds: int) -> bool:
        """财神归位: the hand also wins with every wild standing for its own kind."""
        wild = state.wild.wild
        assert wild is not None
        own = counts[:]
        own[wild] += wilds
        return is_standard_win(own, 0)

    # --- settlement --------------------------------------------------------------------

    def base(self, ctx: TableContext) -> int:
        """The base of the lowest-level seat at the table."""
        return level_of(min(ctx.seat_points))[1]

    def settle(self, state: HandState) -> Settlement:
        base = self.base(state.ctx)
        o = self.opts
        if state.outcome == "escape":
            assert state.escaped is not None
            payer = state.escaped
            others = [s for s in range(4) if s != payer]
            amount = o.escape_multiple * base
            return Settlement(
                tuple(Transfer(payer, s, p, "escape") for s, p in split(amount, payer, others))
            )
        if state.outcome != "win":
            return Settlement()
        win = state.wins[0]  # 截和: one winner
        winner = win.seat
        transfers = win_transfers(self, state, win)
        silver = [0, 0, 0, 0]
        if win.instant and win.dealt_hand:
            silver[winner] = o.dealt_four_wilds_silver  # 起手四财神
        house_silver = (silver[0], silver[1], silver[2], silver[3])
        return Settlement(tuple(transfers), house_silver=house_silver)

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """Each payer's share (2 from the discarder and 1 from the others on a discard, 2 from
        each on a self-draw, 12 from a robbed seat) x the base x the total."""
        o = self.opts
        winner = win.seat
        base = Term("base", appraisal.base)
        total = Term("total", appraisal.total)
        if win.robbed_kong:
            assert win.from_seat is not None
            share = Term("robbing_kong_share", o.robbing_kong_share)
            return [pays(win.from_seat, "robbing_kong", [base], [share, total])]
        if win.self_draw:
            share = Term("self_draw_share", o.self_draw_share)
            return [pays(s, "win", [base], [share, total]) for s in range(4) if s != winner]
        out: list[Payment] = []
        for s in range(4):
            if s == win.from_seat:
                share = Term("deal_in_share", o.deal_in_share)
                out.append(pays(s, "deal_in", [base], [share, total]))
            elif s != winner:
                share = Term("other_share", o.other_share)
                out.append(pays(s, "win", [base], [share, total]))
        return out

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """The winner deals next; after a draw the dealer stays unless a player left the
        table (`departed`: the table says so), then the next seat deals; an escape passes
        the deal (the escaper left the table), whatever `departed` says."""
        ctx = state.ctx
        o = self.opts
        keeps_deal = (state.outcome == "draw" and o.draw_keeps_dealer and not departed) or (
            state.outcome == "escape" and not o.escape_passes_deal
        )
        if state.outcome == "win":
            dealer = state.wins[0].seat
        elif keeps_deal:
            dealer = ctx.dealer
        else:
            dealer = (ctx.dealer + 1) % 4
        streak = ctx.streak + 1 if dealer == ctx.dealer else 0
        points = ctx.seat_points
        if o.carry_points and state.settlement is not None:
            net = state.settlement.net()
            points = (
                max(0, points[0] + net[0]),
                max(0, points[1] + net[1]),
                max(0, points[2] + net[2]),
                max(0, points[3] + net[3]),
            )
        return TableContext(dealer=dealer, streak=streak, seat_points=points,
                            draw_bonus=ctx.draw_bonus)


def _first_draw(state: HandState, seat: int) -> bool:
    """A non-dealer's first draw, before any meld or discard of its own (地胡)."""
    return (
        seat != state.dealer
        and state.draws[seat] == 1
        and not state.from_tail
        and not state.melds[seat]
        and all(r.seat != seat for r in state.river)
    )
