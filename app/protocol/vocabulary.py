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

from app.rules.scoring import ITEM_NAMES

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

_ScoreItemKey = Literal[
    "heavenly", "earthly", "kong_win", "robbing_kong",
    "pure_suit", "mixed_suit", "all_honours", "all_pungs", "pure_pungs", "mixed_pungs",
    "seven_pairs", "soft_eight_pairs", "hard_eight_pairs", "bu_da",
    "hard", "no_wild", "three_wilds", "three_wilds_any_shape", "four_wilds", "dealt_four_wilds",
    "wild_meets_wild", "single_wait", "concealed_hand", "eight_flowers", "flowerless",
    "three_golds", "golden_pair", "rob_gold", "loose_honours", "big_crane", "draw_bonus",
    "plain", "self_drawn", "soft",
    "base_flowers", "flowers", "flower_sets", "golds", "wind_pungs", "dragon_pungs",
    "exposed_kongs", "concealed_kongs", "wind_exposed_kongs", "wind_concealed_kongs",
    "dragon_exposed_kongs", "dragon_concealed_kongs",
]  # fmt: skip
SCORE_ITEMS: dict[str, str] = {
    **SPECIALS,
    "plain": "平胡 (丽水): a win on a discard with no special, x1",
    "self_drawn": "自摸 (丽水): a self-drawn win with no special, x2",
    "soft": "软牌 (温州): a 财神 stands in for another tile and no special applies, x1",
    "base_flowers": "底注 (上海): the 3 花 every hand starts with",
    "flowers": "花: the flowers laid out, 1 each (福州 花分, 上海 花)",
    "flower_sets": "四花 (福州): four like flowers (four of one honour, 春夏秋冬, 梅兰竹菊) count 6, "
    "not 4: 2 more per set",
    "golds": "金 (福州): each 金 in the winning hand, 1 花分",
    "wind_pungs": "风刻 (上海): a wind 碰 or concealed wind 刻, 1 花 each",
    "dragon_pungs": "箭刻 (上海): a dragon 碰 or concealed dragon 刻, 2 花 each",
    "exposed_kongs": "明杠 / 上杠: a suited exposed or added kong (福州 1 花分, 上海 1 花 each)",
    "concealed_kongs": "暗杠: a suited concealed kong (福州 2 花分, 上海 2 花 each)",
    "wind_exposed_kongs": "风明杠 (上海): a wind exposed or added kong, 2 花 each",
    "wind_concealed_kongs": "风暗杠 (上海): a wind concealed kong, 3 花 each",
    "dragon_exposed_kongs": "箭明杠 (上海): a dragon exposed or added kong, 3 花 each",
    "dragon_concealed_kongs": "箭暗杠 (上海): a dragon concealed kong, 4 花 each",
}

SCORE_ITEM_NAMES: dict[str, str] = ITEM_NAMES
"""Each item key's Chinese name (the `name` a score sheet's item carries), owned by the rules
core, which writes it into every sheet; a variant may call an item otherwise (湖州 拉杠和 and
杠开, 上海 杠开 and 碰碰胡), and each name appears in the key's meaning above."""

_ScoreItemKind = Literal[
    "multiplier", "doubling", "base_multiple", "flower_points", "fan", "la", "payment_factor",
    "share", "house_silver",
]  # fmt: skip
SCORE_ITEM_KINDS: dict[str, str] = {
    "multiplier": "倍数: a multiplier of the base; 丽水: the multipliers add up, 温州: the highest "
    "counts",
    "doubling": "翻 (湖州): doubles the payments; doublings multiply (2^n)",
    "base_multiple": "福州 special: worth this many times the base; the highest counts",
    "flower_points": "花 / 花分: points added up (福州 花分, 上海 花)",
    "fan": "番 (上海): each 番 doubles the 花; a 0-番 hand (混一色, 碰碰胡) may win at 0",
    "la": "喇 (上海): 1 喇 = 20 花; the highest 喇 counts",
    "payment_factor": "multiplies each payment of the win, not the total (上海 抢杠 x3, 荒番 x2)",
    "share": "a payment of its own (湖州 拉杠和: the robbed seat pays this many x base x the "
    "total)",
    "house_silver": "silver the house pays the winner, not points (湖州 起手四财神)",
}

_ScoreRule = Literal["sum", "highest", "doublings", "base_and_flowers", "la_or_flowers"]
SCORE_RULES: dict[str, str] = {
    "sum": "丽水: the multipliers add up (the plain win's 2 / 1 only when none applies)",
    "highest": "温州: the highest multiplier counts (软牌 1 when none applies)",
    "doublings": "湖州: 2 to the number of doublings",
    "base_and_flowers": "福州: a plain win is base + 花分; a special is its multiple x base + "
    "2 x 花分 (the highest special counts)",
    "la_or_flowers": "上海: the highest 喇 x 20; otherwise 花 x 2^番, capped at 1 喇 (20; `cap`)",
}

_BaseReasonKey = Literal["dealer_streak", "deal_count", "lowest_level", "table_base",
                         "flower_point"]
BASE_REASONS: dict[str, str] = {
    "dealer_streak": "连庄 / 牢庄: the dealer's consecutive wins (`streak`) raise the base (丽水 3 + "
    "2 x streak, at most 9; 福州 the table's base + streak when the dealer wins)",
    "deal_count": "温州: 2k, k the dealer's consecutive deals this hand included (`deal_count`, at "
    "most 4); 2 between two non-dealers",
    "lowest_level": "湖州: the base score of the lowest level at the table (`level`, held by "
    "`seat`)",
    "table_base": "福州: the table's base (payments between the dealer and another seat add the "
    "dealer's `streak`)",
    "flower_point": "上海: no base; the value is in 花, one point each",
}

_HuzhouLevel = Literal[
    "科员", "助科", "副科", "科长", "助处", "副处", "处长", "助局", "副局", "局长", "助市", "副市",
    "市长", "助省", "副省", "省长", "麻将王",
]  # fmt: skip
HUZHOU_LEVELS: dict[str, str] = {
    "科员": "积分 0 and up: base 2", "助科": "积分 6 and up: base 2", "副科": "积分 18 and up: base 3",
    "科长": "积分 42 and up: base 4", "助处": "积分 90 and up: base 6",
    "副处": "积分 186 and up: base 10", "处长": "积分 378 and up: base 15",
    "助局": "积分 762 and up: base 20", "副局": "积分 1530 and up: base 30",
    "局长": "积分 3066 and up: base 50", "助市": "积分 6138 and up: base 80",
    "副市": "积分 12282 and up: base 150", "市长": "积分 24570 and up: base 300",
    "助省": "积分 49146 and up: base 500", "副省": "积分 98298 and up: base 800",
    "省长": "积分 196602 and up: base 1500", "麻将王": "积分 393210 and up: base 3000",
}  # fmt: skip

_GroupShape = Literal["pair", "chow", "pung", "single", "loose"]
GROUP_SHAPES: dict[str, str] = {
    "pair": "对 / 将: two alike (the pair of a standard hand, or one of 七对子 / 八对)",
    "chow": "顺子: three in a row in one suit",
    "pung": "刻子: three alike",
    "single": "a tile alone: 八对's odd tile, each tile of 不搭",
    "loose": "the tiles of a win that needs no shape (三财神, 四财神, 三金倒, 八花, 乱风向), as held",
}

_PaymentTermKey = Literal[
    "base", "non_dealer_base", "deal_in_point", "buy", "counter", "dealer_streak",
    "flower_points", "special", "catch_dealer", "total", "deal_in_double", "self_draw_double",
    "self_draw_share", "deal_in_share", "other_share", "robbing_kong_share", "robbing_kong",
    "draw_bonus",
]  # fmt: skip
PAYMENT_TERMS: dict[str, str] = {
    "base": "底 / 底分: the base (the sheet's `base`; 温州 2k between the dealer and a non-dealer)",
    "non_dealer_base": "between two non-dealers: 丽水 1, 温州 2",
    "deal_in_point": "犯枪 (丽水): the discarder's 1 point more",
    "buy": "买底 (温州): the dealer bought and won, 2k",
    "counter": "顶底 (温州): the winner countered the dealer's buy, 4k",
    "dealer_streak": "连庄 (福州): the dealer's streak added to the base",
    "flower_points": "花分 (福州); with times 2 in a special's value",
    "special": "福州: the special's multiple, times the base of this payment",
    "catch_dealer": "抓庄 (福州): the dealer's streak, paid by the dealer to a non-dealer winner",
    "total": "the sheet's total (上海: the hand's value in 花)",
    "deal_in_double": "放冲 pays double (温州, 福州)",
    "self_draw_double": "福州: each seat pays a plain self-draw twice",
    "self_draw_share": "湖州 自摸: each other seat's share, 2",
    "deal_in_share": "湖州: the discarder's share, 2",
    "other_share": "湖州: the share of a seat that did not discard, 1",
    "robbing_kong_share": "湖州 拉杠和: the robbed seat alone pays 12",
    "robbing_kong": "上海 抢杠: the robbed seat pays 3 x the value",
    "draw_bonus": "上海 荒番: every payment doubles",
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
    "admin_adjustment", "house_funding", "house_float", "tournament_fee", "tournament_refund",
    "tournament_prize", "tournament_rake", "tournament_guarantee",
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
    "tournament_fee": "a player's entry fee, held by the event's account (one row each side)",
    "tournament_refund": "an entry fee given back: unregistered, or the event cancelled",
    "tournament_prize": "a place's prize, from the event's account",
    "tournament_rake": "the house's cut of an event's fees, as the event states it",
    "tournament_guarantee": "the house's top-up of an event's pool to its guarantee",
}

_RoomStatus = Literal["open", "ended", "dissolved"]
ROOM_STATUSES: dict[str, str] = {
    "open": "seats may be taken with the code; hands are dealt until the session's length",
    "ended": "the session was played to its length; the scoreboard is final",
    "dissolved": "dissolved (解散): by its owner before the first hand, or by a unanimous vote "
    "of its players (the hand in play voided)",
}

_TournamentStatus = Literal["open", "running", "finished", "cancelled"]
TOURNAMENT_STATUSES: dict[str, str] = {
    "open": "registration is open until the start",
    "running": "its rounds are being played",
    "finished": "played to the end; the prizes are paid",
    "cancelled": "cancelled by an operator (or nobody registered): every fee refunded",
}

_BotLevel = Literal["beginner", "standard", "expert"]
BOT_LEVELS: dict[str, str] = {
    "beginner": "新手: the greedy bot that often misreads its discard and never claims a 吃",
    "standard": "普通: the greedy bot (lowest shanten; the default, as the house always played)",
    "expert": "高手: speed, the variant's valuable hands and defence (app/rules/expert.py)",
}

_AutoplayLevel = Literal["standard", "expert"]
AUTOPLAY_LEVELS: dict[str, str] = {
    "standard": "普通: 托管 as the rule book has it (RULES.md 1): 胡 when it can, 过 on every "
    "claim, the greedy bot's choice on its turn (the default)",
    "expert": "高手: the expert house bot plays the seat, claims included (app/rules/expert.py)",
}

_LengthUnit = Literal["hands", "quan", "ban"]
LENGTH_UNITS: dict[str, str] = {
    "hands": "a number of hands (a voided hand does not count)",
    "quan": "圈: a round of the deal, over when the deal has passed four times (RULES.md 1)",
    "ban": "版: four 圈, a 圈 ending when every seat has dealt once (RULES.md 1)",
}

_RoomOutcome = Literal["win", "draw", "escape", "voided"]
ROOM_OUTCOMES: dict[str, str] = {
    **OUTCOMES,
    "voided": "the hand was voided: no points and no silver moved",
}


_ChatPhrase = Literal[
    "hello", "hurry", "nice_play", "sorry", "thanks", "again", "lucky", "wait", "bye",
    "good_game",
    "thumbs_up", "laugh", "cry", "angry", "wow",
]  # fmt: skip
CHAT_PHRASES: dict[str, str] = {
    # quick phrases (快捷语): the client shows them in the reader's language
    "hello": "大家好: hello, everyone",
    "hurry": "快点吧: hurry up, please",
    "nice_play": "打得好: well played",
    "sorry": "不好意思: sorry",
    "thanks": "谢谢: thanks",
    "again": "再来一局: one more hand",
    "lucky": "运气真好: what luck",
    "wait": "等一下: one moment",
    "bye": "先走了，再见: I have to go, bye",
    "good_game": "承让了: good game",
    # reactions: a picture, the same in every language (👍 😄 😭 😠 😮)
    "thumbs_up": "a reaction: thumbs up (赞)",
    "laugh": "a reaction: laughing (大笑)",
    "cry": "a reaction: crying (大哭)",
    "angry": "a reaction: angry (生气)",
    "wow": "a reaction: surprised (惊讶)",
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
ScoreItemKey = Annotated[_ScoreItemKey, Meanings(_ScoreItemKey, SCORE_ITEMS)]
ScoreItemKind = Annotated[_ScoreItemKind, Meanings(_ScoreItemKind, SCORE_ITEM_KINDS)]
ScoreRule = Annotated[_ScoreRule, Meanings(_ScoreRule, SCORE_RULES)]
BaseReasonKey = Annotated[_BaseReasonKey, Meanings(_BaseReasonKey, BASE_REASONS)]
HuzhouLevel = Annotated[_HuzhouLevel, Meanings(_HuzhouLevel, HUZHOU_LEVELS)]
GroupShape = Annotated[_GroupShape, Meanings(_GroupShape, GROUP_SHAPES)]
PaymentTermKey = Annotated[_PaymentTermKey, Meanings(_PaymentTermKey, PAYMENT_TERMS)]
RoomStatus = Annotated[_RoomStatus, Meanings(_RoomStatus, ROOM_STATUSES)]
TournamentStatus = Annotated[_TournamentStatus, Meanings(_TournamentStatus, TOURNAMENT_STATUSES)]
LengthUnit = Annotated[_LengthUnit, Meanings(_LengthUnit, LENGTH_UNITS)]
BotLevel = Annotated[_BotLevel, Meanings(_BotLevel, BOT_LEVELS)]
AutoplayLevel = Annotated[_AutoplayLevel, Meanings(_AutoplayLevel, AUTOPLAY_LEVELS)]
RoomOutcome = Annotated[_RoomOutcome, Meanings(_RoomOutcome, ROOM_OUTCOMES)]
ChatPhrase = Annotated[_ChatPhrase, Meanings(_ChatPhrase, CHAT_PHRASES)]


def as_variant(name: str) -> _Variant:
    """`name` as a `Variant`, or ValueError when it names none."""
    if name not in VARIANTS:
        raise ValueError(f"not a variant: {name!r}")
    return name  # type: ignore[return-value]
