"""A win explained: the values every variant's scoring and settlement are built on.

Each variant appraises a win (`Ruleset.appraise`): the base and why, the named items with
their values, the rule that combines them into the total, and the reading of the hand that
scored. Its `score` and its `settle` are computed from that appraisal and from its payment
lines (`Ruleset.payments`), so the explanation a player sees is, by construction, the
arithmetic the settlement did. `Ruleset.explain` puts it all in one `ScoreSheet`, with the
winner's hand grouped into the sets of the reading (app/rules/explain.py).

Only values and the arithmetic on them live here, no hand: this module sits below the
events (`HandEnded` carries the score sheets), the hand's state and the variants.

Keys are stable (a client may branch on them); `ITEM_NAMES` gives each item key its Chinese
name, the name a variant shows unless it calls the item differently (湖州's 拉杠和).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.tiles import Tile

ITEM_NAMES: dict[str, str] = {
    # the named hands and specials (番种)
    "plain": "平胡",
    "self_drawn": "自摸",
    "soft": "软牌",
    "hard": "硬牌",
    "heavenly": "天胡",
    "earthly": "地胡",
    "kong_win": "杠上开花",
    "robbing_kong": "抢杠",
    "pure_suit": "清一色",
    "mixed_suit": "混一色",
    "all_honours": "字一色",
    "all_pungs": "大对子",
    "pure_pungs": "清碰",
    "mixed_pungs": "混碰",
    "seven_pairs": "七对子",
    "soft_eight_pairs": "软八对",
    "hard_eight_pairs": "硬八对",
    "bu_da": "不搭",
    "no_wild": "无财神",
    "three_wilds": "三财神",
    "three_wilds_any_shape": "三财神",
    "four_wilds": "四财神",
    "dealt_four_wilds": "起手四财神",
    "wild_meets_wild": "财神会",
    "single_wait": "单吊",
    "concealed_hand": "门清",
    "eight_flowers": "八花",
    "flowerless": "平胡",
    "three_golds": "三金倒",
    "golden_pair": "金雀",
    "rob_gold": "抢金",
    "loose_honours": "乱风向",
    "big_crane": "大吊车",
    "draw_bonus": "荒番",
    # flower points (花 / 花分) and what earns them
    "base_flowers": "底注",
    "flowers": "花",
    "flower_sets": "四花",
    "golds": "金",
    "wind_pungs": "风刻",
    "dragon_pungs": "箭刻",
    "exposed_kongs": "明杠",
    "concealed_kongs": "暗杠",
    "wind_exposed_kongs": "风明杠",
    "wind_concealed_kongs": "风暗杠",
    "dragon_exposed_kongs": "箭明杠",
    "dragon_concealed_kongs": "箭暗杠",
}
"""Item key -> its Chinese name (the protocol's vocabulary of item keys is this key set)."""

# what kind of value an item holds
MULTIPLIER = "multiplier"  # x the base; 丽水: they add up, 温州: the highest counts
DOUBLING = "doubling"  # x2 each, doublings multiply (湖州)
BASE_MULTIPLE = "base_multiple"  # a special worth this many bases, the highest counts (福州)
FLOWER_POINTS = "flower_points"  # 花 / 花分, added up (福州, 上海)
FAN = "fan"  # 番: each doubles the 花 (上海); a 0-番 hand that may win is worth 0
LA = "la"  # 喇 (= 20 花), the highest counts (上海)
PAYMENT_FACTOR = "payment_factor"  # multiplies each payment, not the total (上海 抢杠, 荒番)
SHARE = "share"  # a payment of its own: this many x base x the total (湖州 拉杠和)
HOUSE_SILVER = "house_silver"  # silver the house pays the winner (湖州 起手四财神)

# how the items combine into the total
RULE_SUM = "sum"  # 丽水
RULE_HIGHEST = "highest"  # 温州
RULE_DOUBLINGS = "doublings"  # 湖州
RULE_BASE_AND_FLOWERS = "base_and_flowers"  # 福州
RULE_LA_OR_FLOWERS = "la_or_flowers"  # 上海

RULE_TEXTS: dict[str, str] = {
    RULE_SUM: (
        "**Additive.** Every special that applies adds its multiplier (the self-drawn or the "
        "discard column); the plain win's 2 / 1 counts only when no special applies. The total "
        "multiplies each payment's base: the dealer's base (3, 5, 7, 9) between the dealer and "
        "another seat, 1 between two non-dealers. The discarder pays 1 point more (犯枪, a "
        "payment of its own); 统包 and a robbed kong make one seat pay the others' shares."
    ),
    RULE_HIGHEST: (
        "**Highest.** Every special that applies is listed, highest first; only the highest "
        "multiplier counts (the others are listed as not counted), 软牌 x1 when none applies. "
        "Each payment is (底分 + the 买底 or 顶底 amount where it applies) x the total, "
        "doubled for the discarder (放冲) and for a robbed seat. 财神分 is paid apart, "
        "outside the score."
    ),
    RULE_DOUBLINGS: (
        "**Multiplied.** Each doubling that applies (杠开, 天胡 or 地胡, 无财神, 四财神) "
        "doubles: the total is 2 to the number of doublings. Each payment is the base x the "
        "payer's share (the discarder 2 and the others 1 on a discard, everyone 2 on a "
        "self-draw, the robbed seat alone 12 for 拉杠和) x the total. 起手四财神 adds 500000 "
        "silver from the house, outside the points."
    ),
    RULE_BASE_AND_FLOWERS: (
        "**Additive, with the highest special.** The 花分 items add up (each flower 1, a set "
        "of four like flowers 6 instead of 4, each 金 held 1, each 明杠 1, each 暗杠 2). Of "
        "the specials (抢金 / 平胡 30, 三金倒 40, 金雀 60) only the highest counts. The "
        "hand's value is base + 花分 for a plain win and special x base + 2 x 花分 for a "
        "special; the sheet's total is the value at its base. Each payment: on a self-draw "
        "every other seat pays 2 x a plain value or 1 x a special's; on a discard the "
        "discarder alone pays 2 x the value; between the dealer and another seat the base is "
        "base + c (连庄), and a non-dealer winner collects c more from the dealer (抓庄). "
        "**Capped**: no seat pays more than 100 x base in a hand (封顶)."
    ),
    RULE_LA_OR_FLOWERS: (
        "**Highest 喇, or 花 multiplied and capped.** A 喇 hand is worth its highest 喇 x 20 "
        "(the other 喇 are listed as not counted). Any other winning hand adds up its 花 "
        "items (底注 3, each flower 1, honour pungs and kongs) and doubles them for each 番 "
        "(杠开, 门清; 混一色 and 碰碰胡 are 0 番): 花 x 2^番, **capped** at 1 喇 (20). Each "
        "payment is the total x 3 for 抢杠 and x 2 in a 荒番 hand."
    ),
}
"""How a variant's items combine into its total (docs/rules.md)."""

# the shapes a hand is read as
STANDARD = "standard"
SEVEN_PAIRS = "seven_pairs"
EIGHT_PAIRS = "eight_pairs"
BU_DA = "bu_da"
ANY_SHAPE = "any"  # a win that needs no shape: read as the standard shape if it is one


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One named item of a win: `count` things (3 flowers, 2 暗杠; 1 for a named hand) worth
    `value` in all, of `kind`. `counted` is False for an item outdone by a higher one where
    only the highest counts (温州, 福州 specials, 上海 喇)."""

    key: str
    name: str
    value: int
    kind: str
    count: int = 1
    counted: bool = True


@dataclass(frozen=True, slots=True)
class BaseReason:
    """Why the base is what it is: a key, with the numbers it depends on."""

    key: str
    streak: int | None = None  # the dealer's consecutive wins before the hand (丽水, 福州)
    deal_count: int | None = None  # k, the dealer's consecutive deals (温州)
    level: str | None = None  # the 湖州 level that sets the base
    seat: int | None = None  # the seat of that level (the lowest at the table)


@dataclass(frozen=True, slots=True)
class Term:
    """One part of a payment's formula: `value` x `times` (times is 1 but for a 福州 special,
    its multiple x the base, and its doubled 花分)."""

    key: str
    value: int
    times: int = 1


@dataclass(frozen=True, slots=True)
class Payment:
    """One payment of a win: ``points = min(sum(term.value * term.times) * prod(factor.value),
    cap)``; `cap` is None when no cap cut it. `share_of` is the seat whose share it is (the
    payer, unless 丽水's 统包 or a robbed kong makes another seat pay it); `reason` is the
    transfer's."""

    payer: int
    share_of: int
    reason: str
    terms: tuple[Term, ...]
    factors: tuple[Term, ...]
    points: int
    cap: int | None = None


def formula_points(terms: Sequence[Term], factors: Sequence[Term]) -> int:
    """What a payment's terms and factors make, before any cap."""
    points = sum(t.value * t.times for t in terms)
    for factor in factors:
        points *= factor.value
    return points


def pays(
    payer: int, reason: str, terms: Sequence[Term], factors: Sequence[Term] = (),
    share_of: int | None = None,
) -> Payment:
    """A payment whose points are its formula's."""
    return Payment(
        payer, payer if share_of is None else share_of, reason, tuple(terms), tuple(factors),
        formula_points(terms, factors),
    )


@dataclass(frozen=True, slots=True)
class Appraisal:
    """A win valued: the base and why, the items, the rule that combines them and the total
    it gives, the cap that cut the total (上海) and how the hand was read for it (`shape`,
    and the preferences among readings of that shape that the items imply)."""

    base: int
    base_reason: BaseReason
    items: tuple[ScoreItem, ...]
    rule: str
    total: int
    cap: int | None = None
    shape: str = STANDARD
    pungs: bool = False  # the items need a reading without chows (大对子, 碰碰胡, 清碰 ...)
    wild_pair: bool = False  # the pair is two wilds (福州 金雀)
    wilds_as_face: bool = False  # every wild stands for its own face (温州 硬牌)

    def item_keys(self) -> tuple[str, ...]:
        return tuple(item.key for item in self.items)


@dataclass(frozen=True, slots=True)
class Score:
    """How a win is valued: its named specials and the resulting multiplier."""

    specials: tuple[str, ...]
    multiplier: int


@dataclass(frozen=True, slots=True)
class TileGroup:
    """One group of the winner's concealed tiles in the reading that scored: `tiles` as held,
    `plays_as` the kind each plays as (a wild: the kind it stands for; 白板: the wild's face)."""

    shape: str  # pair, chow, pung, single, loose
    tiles: tuple[Tile, ...]
    plays_as: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class MeldRecord:
    """A declared set as revealed at the end of a hand (a 暗杠's tiles too)."""

    meld: str
    tiles: tuple[Tile, ...]
    claimed: Tile | None
    from_seat: int | None


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """Everything a player needs to check a win's score: see the protocol's ``ScoreSheet``."""

    seat: int
    base: int
    base_reason: BaseReason
    items: tuple[ScoreItem, ...]
    rule: str
    total: int
    cap: int | None
    payments: tuple[Payment, ...]
    groups: tuple[TileGroup, ...]
    melds: tuple[MeldRecord, ...]
    flowers: tuple[Tile, ...]
    winning_tile: Tile | None


def item(key: str, value: int, kind: str, count: int = 1, counted: bool = True,
         name: str | None = None) -> ScoreItem:
    """An item with its Chinese name from `ITEM_NAMES` (or `name`)."""
    return ScoreItem(key, ITEM_NAMES[key] if name is None else name, value, kind, count, counted)
