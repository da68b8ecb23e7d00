"""上海 Shanghai rules, 清混碰 (RULES.md section 6; seed 003, 篇一).

144 tiles: the 136 suited tiles and honours plus the eight flowers (春夏秋冬梅兰竹菊); no
wild. Hands 13, the dealer 14. A flower is laid out at once and replaced from the tail
(补花), at the deal and on every draw. 吃, 碰 and 杠 as usual; replacements for a kong come
from the tail. The hand is drawn (荒) when no normal draw is left and nobody wins the last
discard: normal draws stop once only flowers are left in the wall (no other tile is kept
back at the tail: every tile that is not a flower is played). A flower drawn as a
replacement when nothing is left to replace it draws the hand, unless it is the seat's
eighth: 八花 wins first.

Only special hands win (no plain win). With the standard shape (one pair and four sets):
清一色 (one suit), 混一色 (one suit and honours), 碰碰胡 (no runs), 混碰 (混一色 + 碰碰胡),
清碰 (清一色 + 碰碰胡), 字一色 (honours only), 大吊车 (four melds, the last tile paired),
天胡 (the dealer's dealt hand), 地胡 (any non-dealer win in the first go-round, on a draw or
a discard: until the dealer draws again, and no seat has declared a meld) and 杠开 (a
replacement draw after a kong or a flower completes the hand). Any shape: 乱风向 (every
tile an honour). 八花 (all eight flowers) wins at once, without declaring. Several seats may
win on one discard (一炮多响); each winner is paid separately.

花 (flower points) of a hand: each flower 1; a wind 碰 or concealed wind 刻 1; a dragon 碰
or concealed dragon 刻 2; a suited 明杠 or 上杠 (added kong) 1, suited 暗杠 2; wind 明杠 2,
wind 暗杠 3; dragon 明杠 3, dragon 暗杠 4; plus 3 (底注).

A 喇子 hand (1 喇 = 20 花) is worth its highest 喇 x 20: 天胡 10, 地胡 8, 八花 6, 字一色 4,
乱风向 2, 清碰 2, 清一色 1, 混碰 1, 大吊车 1. Any other winning hand (混一色, 碰碰胡, or a plain
hand completed by 杠开) is worth 花 x 2^番, where 杠开 and 门清 (no claimed meld; concealed
kongs allowed, also when won on a discard) are 1 番 each, capped at 1 喇 (20).

Payments: 自摸: each other seat pays the value; a win on a discard: the discarder pays it;
robbing an added kong (抢杠): the robbed seat pays 3 x the value. The order is: value, cap,
x3 for 抢杠, x2 in a 荒番 hand. An escape costs the escaper 40 (2 喇), shared by the other
three (14, 13, 13: the remainder to the seats following the escaper). A drawn hand pays
nothing.

荒番 (draw bonus): the table's count `TableContext.draw_bonus` is carried from hand to hand.
At the start of a hand this hand's dice are added to it: 1-1 or 4-4 add 2; any other pair,
or any roll with a 1 or a 4, add 1. While this count is above 0 the hand is a 荒番 hand and
every payment doubles once, whatever the count. After the hand the count (dice included)
falls by 1 if somebody won (not below 0), rises by 1 after a drawn hand, and stays as it is
after an escape; that is the next hand's `draw_bonus`.

Dealer: the winner deals next (with several winners on one discard, the first after the
discarder in turn order); after a drawn hand or an escape the dealer stays.
`TableContext.streak` counts the consecutive hands the same seat has dealt (it changes no
payment).

`Score.multiplier` of a win is what each paying seat pays for it (all doublings included);
`Score.specials` names the hand's 喇 (highest first) or, for a 花 hand, its 0-番 hand and its
番, then "robbing_kong" and "draw_bonus" where they apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.context import Settlement, TableContext, Transfer
from app.rules.scoring import (
    ANY_SHAPE,
    FAN,
    FLOWER_POINTS,
    LA,
    PAYMENT_FACTOR,
    RULE_LA_OR_FLOWERS,
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
from app.rules.state import HandState, Meld, WinRecord
from app.rules.tiles import FLOWERS, NUM_KINDS, Tile
from app.rules.variants.base import Ruleset, split, win_transfers
from app.rules.wall import Dice
from app.rules.winning import is_standard_win


@dataclass(frozen=True)
class ShanghaiOptions:
    """Every [decided] point of RULES.md section 6 and every choice where it is silent, named,
    with its default."""

    # "花 count: each flower 1"
    flower: int = 1
    # "wind 碰 or concealed wind 刻 1; dragon 碰 or concealed 刻 2"
    wind_pung: int = 1
    dragon_pung: int = 2
    # "明杠/上杠 1; 暗杠 2"
    exposed_kong: int = 1
    concealed_kong: int = 2
    # "wind 明杠 2; wind 暗杠 3"
    wind_exposed_kong: int = 2
    wind_concealed_kong: int = 3
    # "dragon 明杠 3; dragon 暗杠 4"
    dragon_exposed_kong: int = 3
    dragon_concealed_kong: int = 4
    # "plus 底注 3"
    base_flowers: int = 3
    # "1 喇 = 20 花"
    la: int = 20
    # "天胡 10, 地胡 8, 八花 6, 字一色 4, 乱风向 2, 清碰 2, 清一色 1, 混碰 1, 大吊车 1"
    heavenly_la: int = 10
    earthly_la: int = 8
    eight_flowers_la: int = 6
    all_honours_la: int = 4
    loose_honours_la: int = 2
    pure_pungs_la: int = 2
    pure_suit_la: int = 1
    mixed_pungs_la: int = 1
    big_crane_la: int = 1
    # "杠开 and 门清 (no claimed melds) are 1 番 each"
    kong_win_fan: int = 1
    concealed_hand_fan: int = 1
    # "capped at 1 喇 (the 喇子 cap, option) [decided]"; None: no cap
    cap_la: int | None = 1
    # "抢杠: the robbed seat pays 3 x the value"
    robbing_kong_multiple: int = 3
    # "While the count is above 0 the hand is a 荒番 hand: payments double once"
    draw_bonus_multiple: int = 2
    # "Dice at the start of a hand: 1-1 or 4-4 add 2; any other pair, or any roll with a 1
    # or a 4, add 1"; False: the dice add nothing
    dice_draw_bonus: bool = True
    # "Escape [decided]: 2 喇 (40 花)"
    escape_points: int = 40
    # Not in RULES.md: the escape penalty is a fixed 40, not doubled in a 荒番 hand.
    escape_doubled_by_draw_bonus: bool = False
    # Not in RULES.md: "地胡 (any non-dealer win during the first go-round)": the first
    # go-round lasts until the dealer draws again, and (True) ends as soon as any seat
    # declares a meld (吃 / 碰 / 杠 break the round's order).
    earthly_ends_on_meld: bool = True
    # Not in RULES.md: "大吊车 (after melding, one tile left in hand)": a concealed kong
    # counts as one of the four melds ("通过吃,碰,杠").
    big_crane_counts_concealed_kongs: bool = True
    # Not in RULES.md: an 八花 win also counts the hand's other 喇 (天胡, 地胡, 清一色 ...)
    # when the concealed tiles are a complete winning hand at that moment; the highest 喇
    # counts, as for any 喇 hand.
    eight_flowers_counts_the_hand: bool = True
    # Not in RULES.md (section 6 keeps no tiles back: "Flowers are laid out and replaced
    # from the tail"): while a flower is still in the wall, this many tiles besides the
    # flowers stay at the tail for replacement draws only. 0: every tile that is not a
    # flower is played (a flower whose replacement finds the wall empty draws the hand,
    # unless it makes 八花, which wins first).
    flower_tail_guard: int = 0
    # Not in RULES.md: after an escape the 荒番 count (with this hand's dice) carries
    # unchanged; False: it rises by 1 as after a drawn hand.
    escape_keeps_draw_bonus: bool = True
    # Not in RULES.md: "after a draw the dealer stays"; an escape ends the hand with no
    # winner, so the dealer stays too. False: the next seat deals after an escape.
    escape_keeps_dealer: bool = True


# The 喇 hands in the rule book's order (kept among equal 喇): name and Chinese term; the 喇
# of each is the option `<name>_la`
LA_HANDS: tuple[tuple[str, str], ...] = (
    ("heavenly", "天胡"),
    ("earthly", "地胡"),
    ("eight_flowers", "八花"),
    ("all_honours", "字一色"),
    ("loose_honours", "乱风向"),
    ("pure_pungs", "清碰"),
    ("pure_suit", "清一色"),
    ("mixed_pungs", "混碰"),
    ("big_crane", "大吊车"),
)
# 0-番 hands that may win: 混一色 (mixed_suit), 碰碰胡 (all_pungs); 番: 杠开 (kong_win),
# 门清 (concealed_hand)

# what 上海 calls an item differently from the other variants
_NAMES = {"kong_win": "杠开", "all_pungs": "碰碰胡"}

WINDS_FIRST, WINDS_LAST = 27, 30  # 东 .. 北
HONOURS_FIRST = 27


def dice_draw_bonus(dice: Dice) -> int:
    """骰子荒番: 1-1 or 4-4 add 2; any other pair, or any roll with a 1 or a 4, add 1."""
    a, b = dice
    if a == b and a in (1, 4):
        return 2
    if a == b or 1 in dice or 4 in dice:
        return 1
    return 0


def _is_all_pungs(counts: list[int], wilds: int) -> bool:
    """碰碰胡 for the concealed part: one pair and only pungs, wilds filling in."""
    need = 0
    best_pair = 2  # a pair of two wilds
    for c in counts:
        if c:
            cost = (-c) % 3
            need += cost
            best_pair = min(best_pair, (2 - c) % 3 - cost)
    return (sum(counts) + wilds) % 3 == 2 and need + best_pair <= wilds


@dataclass(frozen=True, slots=True)
class HandValue:
    """How a winning hand is valued, before 抢杠 and 荒番.

    `la` lists the 喇 hands that apply (highest first): the value is then the highest x 20.
    Otherwise `plain` (混一色 / 碰碰胡, 0 番) and `fans` (杠开 / 门清) apply and the value is
    `flowers` x 2^番, capped."""

    la: tuple[tuple[str, int], ...]
    plain: tuple[str, ...]
    fans: tuple[str, ...]
    flowers: int  # 花, 底注 included
    value: int
    capped: bool


@dataclass(frozen=True)
class Shanghai(Ruleset):
    name: str = "shanghai"
    score_rule: str = RULE_LA_OR_FLOWERS
    hand_size: int = 13
    with_flowers: bool = True
    multi_win: bool = True  # 一炮多响
    allow_chow: bool = True
    flower_kinds: frozenset[Tile] = frozenset(FLOWERS)

    def default_options(self) -> ShanghaiOptions:
        return ShanghaiOptions()

    @property
    def opts(self) -> ShanghaiOptions:
        """`options`, typed."""
        return self.options

    # --- the wall -------------------------------------------------------------------------

    def reserve(self, state: HandState) -> int:
        """Tail tiles kept for replacement draws: the flowers still in the wall, so that a
        normal draw is possible only while the wall holds a tile that is not a flower (the
        hand is drawn once only flowers are left), plus, while a flower is in the wall,
        `flower_tail_guard` more (see the option). Asked after the deal and before every
        replacement draw, which is whenever the number of flowers in the wall changes."""
        flowers = sum(1 for t in state.wall.remaining_tiles() if t in self.flower_kinds)
        return flowers + self.opts.flower_tail_guard if flowers else 0

    # --- the first go-round --------------------------------------------------------------

    def first_go_round(self, state: HandState) -> bool:
        """Whether the hand is still in its first go-round (地胡): the dealer has not drawn
        since the deal and (by default) no seat has declared a meld."""
        if state.draws[state.dealer]:
            return False
        return not (self.opts.earthly_ends_on_meld and any(state.melds))

    @staticmethod
    def _heavenly(state: HandState, seat: int) -> bool:
        """The dealer's dealt hand, before any discard, draw or meld (天胡)."""
        return (
            seat == state.dealer
            and not state.river
            and not state.draws[seat]
            and not state.melds[seat]
        )

    @staticmethod
    def _kong_draw(state: HandState, seat: int) -> bool:
        """The seat in turn holds a replacement draw after a kong or a flower (杠开)."""
        return (
            state.phase == "turn"
            and state.turn == seat
            and state.from_tail
            and state.drawn is not None
        )

    def _big_crane(self, melds: list[Meld]) -> bool:
        if len(melds) < 4:
            return False
        return self.opts.big_crane_counts_concealed_kongs or all(
            m.kind != "concealed_kong" for m in melds
        )

    # --- winning -----------------------------------------------------------------------

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        """Only the special hands win (RULES.md 6): a plain standard hand wins only as 天胡,
        地胡 or 杠开. This runs on every discard (through the 听 cache) and every turn."""
        melds = state.melds[seat]
        held = bytes(counts)
        suited = any(held[:27]) or any(m.plays_as < 27 for m in melds)
        if not suited:  # 乱风向 / 字一色: honours only, any arrangement
            return (sum(held) + wilds) % 3 == 2
        if not is_standard_win(counts, wilds):
            return False
        suits = {k // 9 for k in range(27) if held[k]}
        suits.update(m.plays_as // 9 for m in melds if m.plays_as < 27)
        if len(suits) == 1:  # 清一色 / 混一色 (and their 碰 forms)
            return True
        if all(m.kind != "chow" for m in melds) and _is_all_pungs(counts, wilds):
            return True  # 碰碰胡
        if self._big_crane(melds):
            return True
        if self._kong_draw(state, seat):
            return True
        if seat == state.dealer:
            return state.phase == "turn" and self._heavenly(state, seat)
        return self.first_go_round(state)

    def instant_win(self, state: HandState, seat: int) -> bool:
        """八花: the seat holds all eight flowers."""
        return len(state.flowers[seat]) >= len(self.flower_kinds)

    # --- valuing a win -----------------------------------------------------------------

    def flower_items(self, state: HandState, seat: int, counts: list[int]) -> list[ScoreItem]:
        """What earns the seat's hand 花 (`counts`: its concealed tiles with the winning
        tile), by kind: 底注, flowers, honour pungs (碰 or concealed 刻) and kongs."""
        o = self.opts
        found: dict[str, list[int]] = {}  # key -> [count, points]

        def add(key: str, points: int) -> None:
            if points:
                entry = found.setdefault(key, [0, 0])
                entry[0] += 1
                entry[1] += points

        add("base_flowers", o.base_flowers)
        for _ in state.flowers[seat]:
            add("flowers", o.flower)
        for meld in state.melds[seat]:
            kind = meld.plays_as
            wind = WINDS_FIRST <= kind <= WINDS_LAST
            dragon = kind > WINDS_LAST
            if meld.kind == "pung":
                if wind:
                    add("wind_pungs", o.wind_pung)
                elif dragon:
                    add("dragon_pungs", o.dragon_pung)
            elif meld.kind == "concealed_kong":
                if wind:
                    add("wind_concealed_kongs", o.wind_concealed_kong)
                elif dragon:
                    add("dragon_concealed_kongs", o.dragon_concealed_kong)
                else:
                    add("concealed_kongs", o.concealed_kong)
            elif meld.kind != "chow":  # exposed or added (上杠) kong
                if wind:
                    add("wind_exposed_kongs", o.wind_exposed_kong)
                elif dragon:
                    add("dragon_exposed_kongs", o.dragon_exposed_kong)
                else:
                    add("exposed_kongs", o.exposed_kong)
        for kind in range(HONOURS_FIRST, NUM_KINDS):
            if counts[kind] >= 3:  # a concealed honour 刻 (an honour never makes a run)
                if kind <= WINDS_LAST:
                    add("wind_pungs", o.wind_pung)
                else:
                    add("dragon_pungs", o.dragon_pung)
        return [item(key, points, FLOWER_POINTS, count) for key, (count, points) in found.items()]

    def flower_points(self, state: HandState, seat: int, counts: list[int]) -> int:
        """花 of the seat's hand (`counts`: its concealed tiles with the winning tile)."""
        return sum(it.value for it in self.flower_items(state, seat, counts))

    def la_of(self, name: str) -> int:
        return int(getattr(self.opts, f"{name}_la"))

    def value(self, state: HandState, win: WinRecord) -> HandValue:
        """The hand's 喇, or its 花 and 番 (RULES.md 6), before 抢杠 and 荒番."""
        o = self.opts
        seat = win.seat
        counts, wilds = state.winning_counts(win)
        melds = state.melds[seat]
        la: set[str] = set()
        plain: list[str] = []
        complete = sum(counts) + wilds + 3 * len(melds) == 14
        if win.instant:
            la.add("eight_flowers")
            complete = complete and o.eight_flowers_counts_the_hand
        if complete:
            kinds = [k for k in range(NUM_KINDS) if counts[k]] + [m.plays_as for m in melds]
            suits = {k // 9 for k in kinds if k < 27}
            honours = any(k >= HONOURS_FIRST for k in kinds)
            standard = is_standard_win(counts, wilds)
            if not suits:
                la.add("all_honours" if standard else "loose_honours")
            if standard:
                pungs = all(m.kind != "chow" for m in melds) and _is_all_pungs(counts, wilds)
                if len(suits) == 1 and not honours:
                    la.add("pure_pungs" if pungs else "pure_suit")
                elif len(suits) == 1:
                    if pungs:
                        la.add("mixed_pungs")
                    else:
                        plain.append("mixed_suit")
                elif suits and pungs:
                    plain.append("all_pungs")
                if self._big_crane(melds):
                    la.add("big_crane")
            if standard or not suits:
                if seat == state.dealer:
                    if win.self_draw and self._heavenly(state, seat):
                        la.add("heavenly")
                elif self.first_go_round(state):
                    la.add("earthly")
        flowers = self.flower_points(state, seat, counts)
        if la:
            ranked = sorted(
                ((name, self.la_of(name)) for name, _ in LA_HANDS if name in la),
                key=lambda item: -item[1],
            )
            return HandValue(tuple(ranked), (), (), flowers, ranked[0][1] * o.la, False)
        fans: list[str] = []
        if win.kong_win:
            fans.append("kong_win")
        if all(m.kind == "concealed_kong" for m in melds):
            fans.append("concealed_hand")
        fan = (o.kong_win_fan if "kong_win" in fans else 0) + (
            o.concealed_hand_fan if "concealed_hand" in fans else 0
        )
        value = flowers * 2**fan
        capped = o.cap_la is not None and value > o.cap_la * o.la
        if capped:
            assert o.cap_la is not None
            value = o.cap_la * o.la
        return HandValue((), tuple(plain), tuple(fans), flowers, value, capped)

    def is_draw_bonus_hand(self, state: HandState) -> bool:
        """荒番: the table's count with this hand's dice is above 0."""
        return self.draw_bonus_count(state) > 0

    def draw_bonus_count(self, state: HandState) -> int:
        """The 荒番 count of this hand: the count carried in plus this hand's dice."""
        dice = dice_draw_bonus(state.dice) if self.opts.dice_draw_bonus else 0
        return state.ctx.draw_bonus + dice

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """The hand's 喇 (the highest counts), or its 0-番 hand, 番 and 花 items; the total is
        the hand's value (`value`); then 抢杠 and 荒番, which multiply each payment."""
        o = self.opts
        worth = self.value(state, win)
        counts, wilds = state.winning_counts(win)
        items: list[ScoreItem] = []
        if worth.la:
            items += [item(name, la, LA, counted=i == 0) for i, (name, la) in enumerate(worth.la)]
        else:
            items += [item(name, 0, FAN, name=_NAMES.get(name)) for name in worth.plain]
            fan = {"kong_win": o.kong_win_fan, "concealed_hand": o.concealed_hand_fan}
            items += [item(name, fan[name], FAN, name=_NAMES.get(name)) for name in worth.fans]
            items += self.flower_items(state, win.seat, counts)
        if win.robbed_kong:
            items.append(item("robbing_kong", o.robbing_kong_multiple, PAYMENT_FACTOR))
        if self.is_draw_bonus_hand(state):
            items.append(item("draw_bonus", o.draw_bonus_multiple, PAYMENT_FACTOR,
                              count=self.draw_bonus_count(state)))
        pungs = any(name in ("pure_pungs", "mixed_pungs") for name, _ in worth.la)
        return Appraisal(
            base=1,
            base_reason=BaseReason("flower_point"),
            items=tuple(items),
            rule=self.score_rule,
            total=worth.value,
            cap=o.cap_la * o.la if worth.capped and o.cap_la is not None else None,
            shape=STANDARD if is_standard_win(counts, wilds) else ANY_SHAPE,
            pungs=pungs or "all_pungs" in worth.plain,
        )

    def payment(self, state: HandState, win: WinRecord) -> int:
        """What each paying seat pays for `win`: value, cap, x3 抢杠, x2 荒番."""
        appraisal = self.appraise(state, win)
        return formula_points([Term("total", appraisal.total)], _factors(appraisal))

    def score(self, state: HandState, win: WinRecord) -> Score:
        appraisal = self.appraise(state, win)
        names = tuple(it.key for it in appraisal.items if it.kind != FLOWER_POINTS)
        return Score(names, formula_points([Term("total", appraisal.total)], _factors(appraisal)))

    # --- settlement --------------------------------------------------------------------

    def settle(self, state: HandState) -> Settlement:
        o = self.opts
        if state.outcome == "escape":
            assert state.escaped is not None
            payer = state.escaped
            amount = o.escape_points
            if o.escape_doubled_by_draw_bonus and self.is_draw_bonus_hand(state):
                amount *= o.draw_bonus_multiple
            others = [s for s in range(4) if s != payer]
            return Settlement(
                tuple(Transfer(payer, s, p, "escape") for s, p in split(amount, payer, others))
            )
        if state.outcome != "win":
            return Settlement()
        transfers: list[Transfer] = []
        for win in state.wins:  # 一炮多响: each winner is paid separately
            transfers += win_transfers(self, state, win)
        return Settlement(tuple(transfers))

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """自摸: each other seat pays the value; on a discard the discarder, on a robbed kong
        the robbed seat; times 抢杠's 3 and 荒番's 2 where they apply."""
        terms = [Term("total", appraisal.total)]
        factors = _factors(appraisal)
        if win.self_draw:
            return [pays(s, "win", terms, factors) for s in range(4) if s != win.seat]
        assert win.from_seat is not None
        reason = "robbing_kong" if win.robbed_kong else "win"
        return [pays(win.from_seat, reason, terms, factors)]

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """The winner deals (the first after the discarder, with several); after a draw or an
        escape the dealer stays. The 荒番 count: -1 after a win (not below 0), +1 after a
        drawn hand, unchanged after an escape; this hand's dice included."""
        ctx = state.ctx
        o = self.opts
        count = self.draw_bonus_count(state)
        if state.outcome == "win":
            dealer = state.wins[0].seat
            count = max(0, count - 1)
        elif state.outcome == "draw":
            dealer = ctx.dealer
            count += 1
        else:
            dealer = ctx.dealer if o.escape_keeps_dealer else (ctx.dealer + 1) % 4
            if not o.escape_keeps_draw_bonus:
                count += 1
        streak = ctx.streak + 1 if dealer == ctx.dealer else 0
        return TableContext(dealer=dealer, streak=streak, seat_points=ctx.seat_points,
                            draw_bonus=count)


def _factors(appraisal: Appraisal) -> list[Term]:
    """The factors of every payment of a win: 抢杠 x3, 荒番 x2."""
    return [Term(it.key, it.value) for it in appraisal.items if it.kind == PAYMENT_FACTOR]
