"""A variant's house rules as data: one `OptionSpec` per field of its options dataclass.

A room owner picks a variant's options (好友房); `parse_options` checks them against the
specs (JSON-like input: bools, ints, None for no cap, strings for a choice) and
`ruleset_with` makes the ruleset that plays them. The kind, the default, whether None is
allowed and the choices come from the dataclass itself; the bounds and the words are here.

Bounds: `minimum` is the smallest value the rules core handles correctly (self-play in
tests/rules/test_options.py plays every minimum and every maximum at once), `maximum` the
largest sensible one. Two floors are the same everywhere: a payment that could come to 0
points is refused (a score sheet line, or an escape share, of 0 points is not a payment),
so an amount shared by three seats is at least 3.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset
from app.rules.variants.fuzhou import FuzhouOptions
from app.rules.variants.huzhou import HuzhouOptions
from app.rules.variants.lishui import LishuiOptions
from app.rules.variants.shanghai import ShanghaiOptions
from app.rules.variants.wenzhou import WenzhouOptions


@dataclass(frozen=True)
class OptionSpec:
    name: str  # the dataclass field
    kind: Literal["bool", "int", "choice"]
    default: bool | int | str | None
    minimum: int | None  # ints: the smallest value the rules core handles correctly
    maximum: int | None  # ints: the largest sensible value
    nullable: bool  # `int | None` fields (None: no cap)
    choices: tuple[str, ...]  # kind "choice": the allowed strings; () otherwise
    zh: str  # what it means, in Chinese, for a player choosing house rules
    en: str  # the same in English
    rules: str  # where it is decided, e.g. "RULES.md 2"


class OptionError(ValueError):
    """A value a variant's options refuse: `name` is the option, `message` says why."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


# (name, minimum, maximum, zh, en, the rule book is silent: the engine's choice, nullable,
# choices). Nullable and choices are written here, not read from the dataclass's annotations:
# mypyc (bench/compile.py) compiles `int | None` and Literal fields to plain `type`.
_Entry = tuple[str, int | None, int | None, str, str, bool, bool, tuple[str, ...]]
BOOK, CHOICE = False, True


def _o(name: str, zh: str, en: str, lo: int | None = None, hi: int | None = None,
       silent: bool = BOOK, nullable: bool = False, choices: tuple[str, ...] = ()) -> _Entry:
    return (name, lo, hi, zh, en, silent, nullable, choices)


_ESCAPE_ZH = "逃跑：赔底的这么多倍，由其他三家分"
_ESCAPE_EN = "Escape: the escaper pays this times the base, shared by the other three"

_LISHUI = (
    _o("wild_discard_penalized", "误打财神：可以打出财神，但赔其他每家1分；关掉则不许打财神",
       "Discarding a wild (误打财神): allowed, paying each other seat 1; "
       "off: a wild is never discarded"),
    _o("follow_penalty", "被跟：打出的牌被后三家连着跟打，先打的人赔其他每家1分",
       "Followed (被跟): a discard followed by the same tile from the next three seats "
       "costs 1 to each"),
    _o("tongbao", "统包：给下家喂够几次吃后，两人中一人胡牌，另一人包赔所有输家",
       "Covering all (统包): after feeding the next seat enough chows, if either wins the "
       "other pays every share"),
    _o("tongbao_chows", "统包要喂下家吃的次数", "Covering all (统包): how many chows fed to the next seat",
       1, 4),  # a 13-tile hand holds at most four melds
    _o("tongbao_covers_deal_in", "统包的人连犯枪分也一起包",
       "Covering all (统包): the payer also pays the deal-in point (犯枪)"),
    _o("deal_in_point", "犯枪：放炮的人另外多付的分",
       "Deal-in point (犯枪): the discarder pays this much more", 1, 5),
    _o("base_first", "庄家第一手的底", "Base (底) of a dealer's first hand", 1, 20),
    _o("base_step", "牢庄：庄家每连赢一次，底加这么多",
       "Dealer streak (牢庄): the base grows this much per dealer win",
       0, 10),
    _o("base_max", "底最多加到这么多", "The highest base (底)", 1, 50),
    _o("escape_multiple", _ESCAPE_ZH, _ESCAPE_EN, 3, 30),  # the base may be 1
    _o("reseat_after_session", "每打完一版（四圈）重新抽座位",
       "Seats are redrawn after every game of four rounds (版)"),
)

_WENZHOU = (
    # at most 4 x 6 = 24 tiles from the tail: well inside the 70 left after the deal
    _o("indicator_die_factor", "翻财神：从牌尾数第（小点数×这个数）张",
       "Wild (财神): the indicator is the (smaller die x this)-th tile from the tail", 1, 4),
    # 70 tiles are left after the deal: at most 32 kept still leaves 38 to draw
    _o("tail_reserve", "牌尾留这么多张，只给杠后补牌", "Tail tiles kept for kong replacements only",
       0, 32),
    _o("kongs_use_reserve", "留的牌是补杠的牌池，每杠用掉一张，前面能摸的牌不变少",
       "The kept tiles are a pool: each kong uses one, the live wall keeps its length",
       silent=CHOICE),
    _o("honours_first", "出牌先出风字：手里有单张字牌就必须先打单张字牌",
       "Honours first (出牌先出风字): while holding a single honour, discard a single honour"),
    _o("follow_latest_honour", "别人刚打的字牌自己也只有单张时，必须打这张",
       "If the latest discard is an honour held singly, discard that one"),
    _o("eight_pairs", "八对（八个对子加一张）可以胡", "Eight pairs (八对): eight pairs and one tile wins"),
    _o("three_wilds", "三财神：拿齐三个财神就能胡，不管牌型",
       "Three wilds (三财神): holding all three wilds wins, whatever the shape"),
    _o("three_wilds_own_turn_only", "不成牌型的三财神只能自己摸牌时胡",
       "Three wilds (三财神) without a winning shape win on one's own turn only", silent=CHOICE),
    _o("three_wilds_any_shape_multiplier", "不成牌型的三财神算几倍",
       "Three wilds (三财神) without a winning shape: the multiplier", 1, 4, CHOICE),
    _o("hard_eight_pairs_wild_as_face", "财神当本身用的八对也算硬八对",
       "Eight pairs whose wilds stand for their own face are also hard eight pairs (硬八对)",
       silent=CHOICE),
    _o("base_unit", "底分：庄家和闲家之间为这个数×连庄数k",
       "Base (底分): this times the deal count k between the dealer and a non-dealer", 1, 10),
    _o("non_dealer_base", "两个闲家之间的底分", "Base (底分) between two non-dealers", 1, 20),
    _o("max_deal_count", "连庄数k最多算到几", "The highest deal count k", 1, 8),
    _o("buy_in", "买底/顶底：开局前庄家可以买底，闲家可以顶底",
       "Buy-in and counter (买底/顶底): before the deal the dealer may buy in, "
       "the non-dealers counter"),
    _o("buy_unit", "买底的分：这个数×k", "Buy-in (买底): this times k", 1, 10),
    _o("counter_unit", "顶底的分：这个数×k", "Counter (顶底): this times k", 1, 20),
    _o("deal_in_factor", "放冲的人付几倍", "Deal-in (放冲): the discarder pays this many times", 1, 4),
    _o("robbed_pays_as_discarder", "被抢杠的人按放冲付",
       "Robbing the kong (抢杠): the robbed seat pays as a discarder",
       silent=CHOICE),
    _o("wild_bonus", "财神分：最后手里每个财神向其他每家收的分",
       "Wild bonus (财神分): each wild held at the end earns this from each other seat", 0, 5),
    _o("escape_multiple", "逃跑：赔（买底/顶底分＋底分）的这么多倍，由其他三家分",
       "Escape: (its buy-in or counter + base) times this, shared by the other three",
       3, 30),  # base_unit may be 1
    _o("draw_keeps_dealer", "流局后庄家连庄", "After a drawn hand the dealer deals again"),
    _o("escape_keeps_dealer", "有人逃跑后庄家连庄", "After an escape the dealer deals again",
       silent=CHOICE),
)

_HUZHOU = (
    _o("first_dealer", "第一局的庄家座位（0是东家）", "The first hand's dealer seat (0: East)", 0, 3),
    _o("deal_in_share", "点炮：放冲的人付底的几倍", "On a discard: the discarder pays this x base",
       1, 6),
    _o("other_share", "点炮：另外两家各付底的几倍", "On a discard: each other loser pays this x base",
       1, 6),
    _o("self_draw_share", "自摸：每家付底的几倍", "Self-draw (自摸): each other seat pays this x base", 1, 6),
    _o("robbing_kong_share", "拉杠和：被抢杠的人一家付底的几倍",
       "Robbing the kong (拉杠和): the robbed seat alone pays this x base", 1, 36),
    _o("robbing_kong_doubles", "拉杠和也按翻数加倍",
       "Robbing the kong (拉杠和) doubles with the hand's doublings too"),
    _o("dealt_four_wilds_heavenly", "起手四财神也算天胡/地胡加倍",
       "Four wilds dealt (起手四财神) also double as a heavenly or earthly hand (天胡/地胡)"),
    # silver from the house, not from the seats: a room may lower it, never raise it
    _o("dealt_four_wilds_silver", "起手四财神：系统另奖的银两",
       "Four wilds dealt (起手四财神): the silver the house adds", 0, 500000),
    _o("escape_multiple", _ESCAPE_ZH, _ESCAPE_EN, 2, 20),  # the base is at least 2
    _o("draw_keeps_dealer", "流局后没人离桌时庄家连庄",
       "After a drawn hand the dealer deals again if nobody left"),
    _o("escape_passes_deal", "有人逃跑后下家坐庄", "After an escape the next seat deals",
       silent=CHOICE),
    _o("wild_discard_allowed", "可以打出财神（打出就作废）", "A wild may be discarded (it is dead)",
       silent=CHOICE),
    _o("wild_as_itself_is_no_wild", "财神归位（财神都当本身用）也算无财神",
       "Every wild played as itself (财神归位) also counts as no wild (无财神)", silent=CHOICE),
    _o("four_wilds_on_first_draw_earthly", "闲家第一次摸牌成四财神也算地胡",
       "Four wilds on a non-dealer's first draw are also an earthly hand (地胡)", silent=CHOICE),
    _o("carry_points", "每局输赢计入下一局的积分（定底）",
       "Each hand's points carry into the points that set the next base", silent=CHOICE),
)

_FUZHOU = (
    _o("base", "底分", "The table's base", 1, 20),
    # the wall has 79 tiles after the deal and up to 36 flowers to replace from them
    _o("reserve_tiles", "牌尾留这么多张，只给补牌", "Tail tiles kept for replacements only", 8, 30),
    _o("reserve_per_exposed_kong", "每个明杠多留几张", "Tiles kept more per exposed kong", 0, 4),
    _o("reserve_per_concealed_kong", "每个暗杠多留几张", "Tiles kept more per concealed kong", 0, 4),
    _o("reserve_per_flower_set", "每套四张同类花多留几张",
       "Tiles kept more per set of four like flowers", 0, 4),
    _o("rob_gold_multiple", "抢金：底的几倍", "Robbing the gold (抢金): this x base", 1, 200),
    _o("flowerless_multiple", "平胡（无花无杠）：底的几倍", "No flowers or kongs (平胡): this x base",
       1, 200),
    _o("three_golds_multiple", "三金倒：底的几倍", "Three golds (三金倒): this x base", 1, 200),
    _o("golden_pair_multiple", "金雀（两张金做将）：底的几倍", "Golden pair (金雀): a pair of golds, this x base",
       1, 200),
    # below 4 a set would score less than its four flowers
    _o("flower_set_points", "四张同类花一起算的花分",
       "Flower points (花分) of a set of four like flowers", 4, 12),
    _o("flower_points_at_streak_base", "连庄时每点花分也按底加连庄数算",
       "On a dealer's streak each flower point is worth base + streak (not the table's base)",
       silent=CHOICE),
    _o("loss_cap_multiple", "封顶：每人每局最多输底的几倍（空为不封顶）",
       "Cap (封顶): a seat loses at most this x base in a hand (none: no cap)", 1, 1000,
       nullable=True),
    # shares of 0 points are dropped here
    _o("escape_multiple", _ESCAPE_ZH, _ESCAPE_EN, 1, 40),
    _o("rob_gold_non_dealer_puts_out", "闲家抢金时打出的牌：drawn 刚摸的那张，any 任意一张",
       "Robbing the gold (抢金) as a non-dealer puts out: 'drawn' the tile it drew, 'any' any tile",
       silent=CHOICE, choices=("drawn", "any")),
    _o("rob_gold_three_golds", "抢来的金凑成三金倒也算抢金",
       "Taking the turned gold as a third gold (三金倒) is also robbing the gold", silent=CHOICE),
    _o("gold_discard_allowed", "可以打出金（打出就作废）", "A gold (金) may be discarded (it is dead)",
       silent=CHOICE),
    _o("escape_dealer_streak", "庄家逃跑按底加连庄数赔",
       "An escaping dealer pays on base + its streak", silent=CHOICE),
)

_SHANGHAI = (
    _o("flower", "每张花算几花", "Points (花) per flower", 0, 5),
    _o("wind_pung", "风牌碰或暗刻算几花", "Points (花) per wind pung, exposed or concealed", 0, 5),
    _o("dragon_pung", "中发白碰或暗刻算几花", "Points (花) per dragon pung, exposed or concealed", 0, 5),
    _o("exposed_kong", "数牌明杠/上杠算几花", "Points (花) per suited exposed or added kong", 0, 5),
    _o("concealed_kong", "数牌暗杠算几花", "Points (花) per suited concealed kong", 0, 5),
    _o("wind_exposed_kong", "风牌明杠算几花", "Points (花) per wind exposed kong", 0, 10),
    _o("wind_concealed_kong", "风牌暗杠算几花", "Points (花) per wind concealed kong", 0, 10),
    _o("dragon_exposed_kong", "中发白明杠算几花", "Points (花) per dragon exposed kong", 0, 10),
    _o("dragon_concealed_kong", "中发白暗杠算几花", "Points (花) per dragon concealed kong", 0, 10),
    # at least 1: every win is then worth something
    _o("base_flowers", "底注：每手胡牌先算几花",
       "Base points (底注): what every winning hand starts with", 1, 10),
    _o("la", "一喇等于几花", "Points (花) per la (喇)", 1, 50),
    _o("heavenly_la", "天胡几喇", "Heavenly hand (天胡): its la", 1, 20),
    _o("earthly_la", "地胡几喇", "Earthly hand (地胡): its la", 1, 20),
    _o("eight_flowers_la", "八花几喇", "Eight flowers (八花): its la", 1, 20),
    _o("all_honours_la", "字一色几喇", "All honours (字一色): its la", 1, 20),
    _o("loose_honours_la", "乱风向几喇", "Loose honours (乱风向): its la", 1, 20),
    _o("pure_pungs_la", "清碰几喇", "Pure pungs (清碰): its la", 1, 20),
    _o("pure_suit_la", "清一色几喇", "Pure suit (清一色): its la", 1, 20),
    _o("mixed_pungs_la", "混碰几喇", "Mixed pungs (混碰): its la", 1, 20),
    _o("big_crane_la", "大吊车几喇", "Big crane (大吊车): its la", 1, 20),
    _o("kong_win_fan", "杠开算几番", "Win on a kong draw (杠开): its fan", 0, 3),
    _o("concealed_hand_fan", "门清算几番", "Concealed hand (门清): its fan", 0, 3),
    _o("cap_la", "花胡封顶几喇（空为不封顶）", "A hand of points (花) is capped at this many la (none: no cap)",
       1, 10, nullable=True),
    _o("robbing_kong_multiple", "抢杠：被抢的人付几倍",
       "Robbing the kong (抢杠): the robbed seat pays this many times",
       1, 6),
    _o("draw_bonus_multiple", "荒番局付款翻几倍",
       "Drawn-hand bonus (荒番): such a hand's payments x this", 1, 4),
    _o("dice_draw_bonus", "骰子荒番：掷出1-1、4-4加2次，别的对子或带1、4加1次",
       "Dice bonus (骰子荒番): dice 1-1 or 4-4 add 2, another pair or a 1 or 4 add 1"),
    _o("escape_points", "逃跑赔的分，由其他三家分", "Escape: the escaper pays this, shared by three",
       3, 200),
    _o("escape_doubled_by_draw_bonus", "荒番局逃跑也加倍",
       "An escape in a drawn-hand bonus hand (荒番) doubles too",
       silent=CHOICE),
    _o("earthly_ends_on_meld", "有人吃碰杠后就不算地胡", "The earthly hand (地胡) ends once any seat melds",
       silent=CHOICE),
    _o("big_crane_counts_concealed_kongs", "大吊车：暗杠也算一副",
       "Big crane (大吊车): a concealed kong counts as a meld",
       silent=CHOICE),
    _o("eight_flowers_counts_the_hand", "八花时手牌已成胡，也算别的喇",
       "Eight flowers (八花) also count the hand's other la when it is complete", silent=CHOICE),
    # each guard tile is a normal draw fewer while flowers remain (the core plays 40 too)
    _o("flower_tail_guard", "牌墙里还有花时，牌尾再多留几张只给补花",
       "While a flower is in the wall, this many more tail tiles are kept", 0, 8, CHOICE),
    _o("escape_keeps_draw_bonus", "逃跑后荒番数不变（不然加1）",
       "After an escape the drawn-hand bonus (荒番) count stays (else it rises by 1)", silent=CHOICE),
    _o("escape_keeps_dealer", "有人逃跑后庄家连庄", "After an escape the dealer deals again",
       silent=CHOICE),
)

_TABLES: dict[str, tuple[type, str, tuple[_Entry, ...]]] = {
    "lishui": (LishuiOptions, "2", _LISHUI),
    "wenzhou": (WenzhouOptions, "3", _WENZHOU),
    "huzhou": (HuzhouOptions, "4", _HUZHOU),
    "fuzhou": (FuzhouOptions, "5", _FUZHOU),
    "shanghai": (ShanghaiOptions, "6", _SHANGHAI),
}


def _build(cls: type, section: str, entries: tuple[_Entry, ...]) -> tuple[OptionSpec, ...]:
    """The specs of `entries`, defaults from `cls`'s fields, in field order."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    order = list(fields)
    specs = []
    for name, lo, hi, zh, en, silent, nullable, choices in sorted(
        entries, key=lambda e: order.index(e[0])
    ):
        default: bool | int | str | None = fields[name].default  # type: ignore[assignment]
        kind: Literal["bool", "int", "choice"] = (
            "choice" if choices else "bool" if type(default) is bool else "int"
        )
        rules = f"RULES.md {section}" + (", a choice where it is silent" if silent else "")
        specs.append(OptionSpec(name, kind, default, lo, hi, nullable, choices, zh, en, rules))
    return tuple(specs)


_SPECS: dict[str, tuple[OptionSpec, ...]] = {
    variant: _build(cls, section, entries) for variant, (cls, section, entries) in _TABLES.items()
}


def option_specs(variant: str) -> tuple[OptionSpec, ...]:
    """The variant's options, in the order of its dataclass's fields."""
    try:
        return _SPECS[variant]
    except KeyError:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(_SPECS)}") from None


def _check(spec: OptionSpec, value: object) -> None:
    if value is None:
        if not spec.nullable:
            raise OptionError(spec.name, "must not be null")
        return
    if spec.kind == "bool":
        if type(value) is not bool:
            raise OptionError(spec.name, "must be true or false")
    elif spec.kind == "choice":
        if not isinstance(value, str) or value not in spec.choices:
            raise OptionError(spec.name, f"must be one of {', '.join(spec.choices)}")
    else:
        if type(value) is not int:
            raise OptionError(spec.name, "must be a whole number")
        assert spec.minimum is not None and spec.maximum is not None
        if not spec.minimum <= value <= spec.maximum:
            raise OptionError(spec.name, f"must be from {spec.minimum} to {spec.maximum}")


def parse_options(variant: str, values: Mapping[str, object]) -> object:
    """The variant's options dataclass: its defaults with `values` over them, every value
    checked. OptionError names the first option refused."""
    specs = {spec.name: spec for spec in option_specs(variant)}
    for name, value in values.items():
        spec = specs.get(name)
        if spec is None:
            raise OptionError(name, f"is not an option of {variant}")
        _check(spec, value)
    cls = _TABLES[variant][0]
    return cls(**values)


def options_json(options: object) -> dict[str, object]:
    """Every field of an options dataclass with its value (bools, ints, None, strings)."""
    if not dataclasses.is_dataclass(options) or isinstance(options, type):
        raise TypeError(f"not an options dataclass: {options!r}")
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def ruleset_with(variant: str, values: Mapping[str, object] | None) -> Ruleset:
    """The variant's ruleset playing `values` (None or empty: the default ruleset)."""
    ruleset = get_ruleset(variant)
    if not values:
        return ruleset
    return dataclasses.replace(ruleset, options=parse_options(variant, values))


def changed_options(variant: str, options: object) -> dict[str, object]:
    """The options that differ from the variant's defaults: a room's house rules."""
    default = get_ruleset(variant).options
    if type(options) is not type(default):
        raise ValueError(f"{options!r} are not options of {variant!r}")
    defaults = options_json(default)
    return {k: v for k, v in options_json(options).items() if defaults[k] != v}
