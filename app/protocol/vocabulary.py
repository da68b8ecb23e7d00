"""The closed vocabularies of the protocol: every value a string field may take, and what
each means to a player. They are enumerations in the published JSON Schema
(`app.protocol.schema`), each value with its meaning (``x-enum-descriptions``), and the tables
of docs/protocol.md are generated from them.

Each vocabulary is a `Literal` (so the type checker knows the values) with a dict of
meanings; `Meanings` attaches the meanings to the schema and refuses a dict that does not
name exactly the Literal's values. Values are stable: a client may branch on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

_Variant = Literal["lishui", "wenzhou", "huzhou", "fuzhou", "shanghai"]
VARIANTS: dict[str, str] = {
    "lishui": "丽水 Lishui: 财神 wild, 13 + 1 tiles, specials add (RULES.md 2)",
    "wenzhou": "温州 Wenzhou: 财神 wild, 16 + 1 tiles, 买底 / 顶底, 财神分 (RULES.md 3)",
    "huzhou": "湖州 Huzhou: 百搭 wild, the 积分 level ladder sets the base, doublings multiply "
    "(RULES.md 4)",
    "fuzhou": "福州 Fuzhou: 金 wild, 16 + 1 tiles, flowers, 抢金 (RULES.md 5)",
    "shanghai": "上海 Shanghai: 清混碰, 花 and 喇, 荒番, several winners on one discard "
    "(RULES.md 6)",
}

_Special = Literal[
    "heavenly", "earthly", "kong_win", "robbing_kong",
    "pure_suit", "mixed_suit", "all_honours", "all_pungs", "pure_pungs", "mixed_pungs",
    "seven_pairs", "soft_eight_pairs", "hard_eight_pairs", "bu_da",
    "hard", "no_wild", "three_wilds", "three_wilds_any_shape", "four_wilds", "dealt_four_wilds",
    "wild_meets_wild", "single_wait", "concealed_hand", "eight_flowers", "flowerless",
    "three_golds", "golden_pair", "rob_gold", "loose_honours", "big_crane", "draw_bonus",
]  # fmt: skip
SPECIALS: dict[str, str] = {
    "heavenly": "天胡: the dealer's dealt hand is complete (丽水 温州 湖州 上海)",
    "earthly": "地胡: a non-dealer's first draw completes its dealt hand (丽水 温州 湖州 上海)",
    "kong_win": "杠上开花 (杠开): the win is the replacement tile drawn after a kong "
    "(丽水 湖州 上海)",
    "robbing_kong": "抢杠 (湖州 拉杠和): the win is the tile another seat added to its 碰 "
    "(丽水 湖州 上海)",
    "pure_suit": "清一色: one suit only (丽水 上海)",
    "mixed_suit": "混一色: one suit and honours (上海, a 0-番 hand)",
    "all_honours": "字一色: honours only (丽水 上海)",
    "all_pungs": "大对子 / 碰碰胡: no sequence (丽水; 上海, a 0-番 hand)",
    "pure_pungs": "清碰: one suit, no sequence (上海)",
    "mixed_pungs": "混碰: one suit and honours, no sequence (上海)",
    "seven_pairs": "七对子: seven pairs (丽水)",
    "soft_eight_pairs": "软八对: eight pairs with a 财神 standing in (温州)",
    "hard_eight_pairs": "硬八对: eight pairs with no 财神 standing in (温州)",
    "bu_da": "不搭 (十三不搭): 14 different tiles with no two of a suit within two (丽水)",
    "hard": "硬牌: no 财神 stands in for another tile (温州)",
    "no_wild": "无财神: no 百搭 in the hand (湖州, a doubling)",
    "three_wilds": "三财神: three 财神 in a standard winning shape (温州)",
    "three_wilds_any_shape": "三财神 in any shape, declared on one's own turn (温州 option)",
    "four_wilds": "四财神: four 百搭 in the hand (湖州, a doubling)",
    "dealt_four_wilds": "起手四财神: dealt four 百搭, wins at once and is paid silver by the "
    "house (湖州)",
    "wild_meets_wild": "财神会: the self-drawn winning tile is a 财神 (丽水)",
    "single_wait": "单吊: waiting on one tile for the pair (温州)",
    "concealed_hand": "门清: no claimed meld (上海, 1 番)",
    "eight_flowers": "八花: all eight flowers, wins at once (上海)",
    "flowerless": "平胡: no flower and no kong, scored as 抢金 (福州)",
    "three_golds": "三金倒: holding three 金 wins at once, any shape (福州)",
    "golden_pair": "金雀: the pair is two 金 (福州)",
    "rob_gold": "抢金: a dealt hand one tile from complete takes the turned 金 (福州)",
    "loose_honours": "乱风向: honours only, in any arrangement (上海)",
    "big_crane": "大吊车: after melding, one tile left in hand (上海)",
    "draw_bonus": "荒番: the hand follows drawn hands and its payments double (上海)",
}

_TransferReason = Literal[
    "win", "deal_in", "covers", "robbing_kong", "catch_dealer", "wild_bonus", "escape",
    "followed", "wild_discard",
]  # fmt: skip
TRANSFER_REASONS: dict[str, str] = {
    "win": "胡: a payment for the win (each payer's share, or the discarder's whole payment)",
    "deal_in": "放炮 (犯枪, 放冲): what the discarder of the winning tile pays (丽水 1 more; "
    "温州 double; 湖州 and 福州 the whole payment)",
    "covers": "统包 (丽水): a seat that fed three 吃 pays the winner's whole bill",
    "robbing_kong": "抢杠: the robbed seat pays the winner",
    "catch_dealer": "抓庄 (福州): the dealer pays the winner extra, whoever dealt in",
    "wild_bonus": "财神分 (温州): each 财神 held is paid for at the end of every hand",
    "escape": "逃跑: the seat that left pays the others the variant's escape penalty",
    "followed": "被跟 (丽水): the next three discards repeated a seat's discard; it pays 1 each",
    "wild_discard": "误打财神 (丽水): a discarded 财神 costs 1 to each other seat",
}

_Outcome = Literal["win", "draw", "escape"]
OUTCOMES: dict[str, str] = {
    "win": "胡: one seat won (or several, 上海 一炮多响)",
    "draw": "流局 / 荒牌: the wall ran out and nobody won",
    "escape": "逃跑: a seat left during the hand, which ended at once",
}

_PenaltyReason = Literal["followed", "wild_discard"]
PENALTY_REASONS: dict[str, str] = {
    "followed": "被跟 (丽水): the next three discards, with no claim between, were the same "
    "tile as this seat's discard",
    "wild_discard": "误打财神 (丽水): a 财神 was discarded",
}

_Decision = Literal["buy", "counter", "decline"]
DECISIONS: dict[str, str] = {
    "buy": "买底 (温州): the dealer raises the hand's stake before the deal",
    "counter": "顶底 (温州): a non-dealer answers the 买底 and raises it too",
    "decline": "不买 / 不顶 (温州): no raise",
}

_SpecialActionName = Literal["rob_gold"]
SPECIAL_ACTIONS: dict[str, str] = {
    "rob_gold": "抢金 (福州): put out `tile` and take the turned 金 in its place, winning",
}

_MeldKind = Literal["chow", "pung", "exposed_kong", "concealed_kong", "added_kong"]
MELD_KINDS: dict[str, str] = {
    "chow": "吃: a run completed with the previous seat's discard",
    "pung": "碰: three alike, one of them another seat's discard",
    "exposed_kong": "明杠: four alike, one of them another seat's discard",
    "concealed_kong": "暗杠: four alike from the hand (its tiles hidden from the others)",
    "added_kong": "加杠: a fourth tile added to one's own 碰",
}

_Phase = Literal["decide", "turn", "claim", "waiting", "ended"]
PHASES: dict[str, str] = {
    "decide": "decisions before the deal are pending (温州 买底 / 顶底)",
    "turn": "the seat `turn` draws or discards",
    "claim": "this seat is offered a claim on the last discard (only the offered seat sees it)",
    "waiting": "another seat is deciding (a claim window looks the same for every other seat)",
    "ended": "the hand is over",
}

_LedgerReason = Literal[
    "signup_grant", "hand_settlement", "escape_penalty", "disconnect_penalty", "house_reward",
    "admin_adjustment", "house_funding", "house_float",
]  # fmt: skip
LEDGER_REASONS: dict[str, str] = {
    "signup_grant": "a new account's silver (made)",
    "hand_settlement": "a hand's payments between its seats (net x stake)",
    "escape_penalty": "an escape (逃跑) paid to the other seats",
    "disconnect_penalty": "the third disconnect in 24 hours, paid to the other seats",
    "house_reward": "points or silver the rules pay from the house, 湖州 起手四财神 (made)",
    "admin_adjustment": "an operator's change, the house account's funding included (made)",
    "house_funding": "between the house account and one of its bots: one row each side",
    "house_float": "the house account's opening float, once per database (made)",
}


class Meanings:
    """Annotate a Literal with the meaning of each value: the schema gets ``enum`` (from the
    Literal) and ``x-enum-descriptions`` (in the same order). Validation is the Literal's."""

    def __init__(self, literal: Any, meanings: Mapping[str, str]) -> None:
        values = get_args(literal)
        if set(values) != set(meanings) or len(values) != len(meanings):
            raise ValueError(f"meanings {sorted(meanings)} do not match {sorted(values)}")
        self.values: tuple[str, ...] = values
        self.meanings = meanings

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        value = handler(schema)
        value["enum"] = list(self.values)
        value["x-enum-descriptions"] = [self.meanings[v] for v in self.values]
        return value

Variant = Annotated[_Variant, Meanings(_Variant, VARIANTS)]
Special = Annotated[_Special, Meanings(_Special, SPECIALS)]
TransferReason = Annotated[_TransferReason, Meanings(_TransferReason, TRANSFER_REASONS)]
Outcome = Annotated[_Outcome, Meanings(_Outcome, OUTCOMES)]
PenaltyReason = Annotated[_PenaltyReason, Meanings(_PenaltyReason, PENALTY_REASONS)]
Decision = Annotated[_Decision, Meanings(_Decision, DECISIONS)]
SpecialActionName = Annotated[_SpecialActionName, Meanings(_SpecialActionName, SPECIAL_ACTIONS)]
MeldKind = Annotated[_MeldKind, Meanings(_MeldKind, MELD_KINDS)]
Phase = Annotated[_Phase, Meanings(_Phase, PHASES)]
LedgerReason = Annotated[_LedgerReason, Meanings(_LedgerReason, LEDGER_REASONS)]


def as_variant(name: str) -> _Variant:
    """`name` as a `Variant`, or ValueError when it names none."""
    if name not in VARIANTS:
        raise ValueError(f"not a variant: {name!r}")
    return name  # type: ignore[return-value]
