// Labels in Chinese (the default) and English. `t(key, vars)` looks a label up in the
// current language; a missing key falls back to English, then to the key itself.

import { EVENT_STRINGS } from "./eventstrings.js";

const STRINGS = {
  zh: {
    app_name: "浙闽麻将",
    nav_lobby: "大厅", nav_profile: "个人资料", nav_leaders: "排行榜", nav_logout: "退出",
    lang_switch: "English", lang_switch_label: "Switch to English",
    login: "登录", register: "注册", username: "用户名", password: "密码",
    have_account: "已有账号？登录", need_account: "没有账号？注册",
    lobby_title: "大厅", tables: "牌桌", create_table: "开桌", variant: "玩法", stake: "底注(银两/分)",
    lobby_rooms_section: "好友房", lobby_rooms_note: "创建或加入房间，和朋友打",
    lobby_tables_section: "牌桌列表", lobby_tables_note: "看看谁在等，或自己开桌",
    all_variants: "全部玩法", seats: "座位", status: "状态", waiting: "等待中", playing: "对局中",
    sit: "坐下", quick_join: "快速加入", no_tables: "还没有牌桌", refresh: "刷新",
    min_balance: "入座至少 {n} 银两", back_to_table: "回到牌桌",
    profile_title: "个人资料", balance: "银两", title: "称号", huzhou_level: "湖州等级",
    base_score: "底分", points: "积分", hands: "局数", wins: "胡牌", self_draws: "自摸",
    deal_ins: "放炮", escapes: "逃跑", disconnects: "掉线", win_rate: "胡牌率", escape_rate: "逃跑率",
    stats: "战绩", ledger: "账目", delta: "变动", balance_after: "余额", reason: "原因", hand: "牌局",
    time: "时间", more: "更多", no_stats: "还没有战绩",
    leaders_title: "排行榜", by_silver: "银两榜", by_points: "积分榜", by_win_rate: "胡牌率榜",
    rank: "名次", player: "玩家", value: "数值", min_hands: "最少局数",
    lishui: "丽水", wenzhou: "温州", huzhou: "湖州", fuzhou: "福州", shanghai: "上海",
    // 玩法 cards (howtowin.js), from RULES.md 2-6
    howto_open: "玩法", howto_open_hint: "这个玩法怎么胡", howto_title: "{variant}麻将怎么胡", howto_close: "关闭",
    howto_more: "胡牌时按番数和底分结算，详见结算单。",
    howto_lishui_1: "13 张手牌，胡牌时 14 张：一对将 + 4 组顺子或刻子。",
    howto_lishui_2: "也可胡七对子，或「不搭」（十三不搭）：14 张各不相同，字牌不重复，同花色任意两张至少隔两个数（如 1-4-7、2-5-9），财神可补空。",
    howto_lishui_3: "财神：开局翻出一张，同种的另 3 张是财神，能当任何牌用；白板当财神原来那张牌用。打出财神叫「误打财神」，赔每家 1 分。",
    howto_lishui_4: "倍数（自摸/点炮）：平胡 2/1；清一色、字一色 8/4；七对子、大对子、不搭 4/2；几种特殊番相加。",
    howto_lishui_5: "统包：一家已喂下家吃了 3 次，这两家任一家胡牌，另一家包赔所有输家的分。",
    howto_lishui_6: "只有庄家胡牌才连庄，底分 3、5、7、9 递增。",
    howto_wenzhou_1: "16 张手牌，胡牌时 17 张：一对「牛」+ 5 组顺子或刻子；也可胡八对（8 对 + 1 张），手里有 3 张财神直接胡。",
    howto_wenzhou_2: "先出风字：手里有单张字牌时，每次只能打单张字牌；刚有人打出你也只有一张的字牌，就要跟着打它。成对的字牌、财神、白板不受限。",
    howto_wenzhou_3: "财神：开局翻出一张，同种的另 3 张是财神，能当任何牌用，但不能打出；白板当财神原来那张牌用。",
    howto_wenzhou_4: "倍数：硬牌（没用财神替牌）2 倍，软牌 1 倍；硬八对、三财神、天胡、地胡、单吊 4 倍。",
    howto_wenzhou_5: "买底/顶底：开局庄家可以买底，闲家可以顶底，赢了多赢，输了多赔。结算时手里每张财神向每家收 1 分。",
    howto_huzhou_1: "13 张手牌，胡牌时 14 张：一对将 + 4 组顺子或刻子；手里有 4 张百搭直接胡。",
    howto_huzhou_2: "百搭：开局翻出前导牌，同点数的下一花色（万→筒→条→万）、下一张风或箭牌就是百搭（4 张都是），能当任何牌用。",
    howto_huzhou_3: "点炮：放炮的付 2 倍底分，另两家各 1 倍；自摸每家付 2 倍。杠开、天胡/地胡、手里没有百搭、四百搭，各再翻一倍。",
    howto_huzhou_4: "拉杠和（抢别人的加杠）赢 12 倍底分，全由被抢的一家付。底分按桌上等级最低的玩家算。",
    howto_fuzhou_1: "16 张手牌，胡牌时 17 张：一对将 + 5 组顺子或刻子；手里有 3 张金直接胡（三金倒）。",
    howto_fuzhou_2: "花：所有字牌（东南西北中发白）和春夏秋冬梅兰竹菊都是花，摸到就亮出来补一张，不留在手里。",
    howto_fuzhou_3: "金：补花后翻出一张，同种的另 3 张是金，能当任何牌用。",
    howto_fuzhou_4: "花分：每张花、手里每张金、每个明杠 1 分，暗杠 2 分；平胡赢底分 + 花分，自摸每家付双倍，点炮由放炮的一家付双倍。",
    howto_fuzhou_5: "特殊：抢金（开局就胡，或用翻出的金胡）和平胡（无花无杠）30 倍，三金倒 40 倍，金雀（两张金做将）60 倍。最后 4 张只摸不打。",
    howto_shanghai_1: "13 张手牌，胡牌时 14 张，没有财神。只有特殊牌型才能胡，普通的将 + 4 组不算胡。",
    howto_shanghai_2: "能胡的牌型：清一色、混一色（一种花色加字牌）、碰碰胡（全是刻子或杠）、混碰、清碰、字一色、乱风向（全是字牌，怎么组合都行）。",
    howto_shanghai_3: "还有：八花（8 张花摸齐立即胡）、大吊车（吃碰后手里只剩 1 张单吊）、天胡、地胡（第一圈内闲家胡）、杠开（杠或补花后摸的牌胡）。",
    howto_shanghai_4: "春夏秋冬梅兰竹菊是花，摸到亮出来补牌。得分按花数算，喇子牌（如清一色 1 喇 = 20 花）按喇算。",
    howto_shanghai_5: "一炮多响：一张牌可以几家同时胡，各自结算。",
    wall: "余牌", dice: "骰子", dealer: "庄", wild: "财神", indicator: "翻牌", flowers: "花",
    discards: "牌河", melds: "副露", your_hand: "你的手牌", drawn: "摸牌", empty_seat: "空位",
    east: "东", south: "南", west: "西", north: "北", bot: "机器人", offline: "离线",
    autoplay: "托管", autoplay_on: "托管中", autoplay_off: "取消托管",
    autoplay_short_expert: "高手", autoplay_level: "托管水平",
    autoplay_standard: "普通（只胡不碰）", autoplay_expert: "高手（会碰会防守）",
    fill_bots: "机器人补位", leave_table: "离开牌桌", waiting_players: "等待玩家入座…",
    next_hand_soon: "下一局即将开始…", countdown: "剩余 {s} 秒", your_turn: "轮到你出牌",
    act_hu: "胡", act_pung: "碰", act_exposed_kong: "杠", act_concealed_kong: "暗杠",
    act_added_kong: "加杠", act_chow: "吃", act_pass: "过", act_discard: "打",
    act_buy: "买底", act_counter: "顶底", act_decline: "不买", act_decline_counter: "不顶",
    act_rob_gold: "抢金", act_special: "特殊",
    reconnecting: "连接已断开，正在重新连接…", link_offline: "网络已断开，恢复后自动重连…",
    link_back: "已重新连接", link_back_played: "已重新连接。断线期间系统替你操作了 {n} 次。",
    link_back_played_one: "已重新连接。断线期间系统替你操作了 1 次。",
    link_back_autoplay: "已重新连接。断线期间托管替你操作了 {n} 次，现在仍是托管。",
    link_back_autoplay_one: "已重新连接。断线期间托管替你操作了 1 次，现在仍是托管。",
    link_back_autoplay_only: "已重新连接。现在是托管，系统在替你打。",
    replaced: "这张牌桌已在另一个标签页或设备上打开，这里不能再操作。", link_play_here: "在这里继续打",
    kicked: "管理员已将你移出牌桌。",
    settlement: "结算", outcome_win: "胡牌", outcome_draw: "流局", outcome_escape: "逃跑",
    outcome_voided: "本局作废，未移动银两", winner: "胡家", self_draw: "自摸", from_seat: "点炮",
    multiplier: "倍数", specials: "番种", transfers: "支付明细", payer: "付", payee: "收",
    net: "净分", silver_moved: "银两变动", house: "奖励", your_balance: "你的银两",
    balance_pending: "结算中…", close: "继续", penalties: "罚分", base: "底分",
    escape_confirm: "对局中离开算逃跑，要付罚分。确定离开吗？",
    keyboard_help: "键盘：←→ 选牌，Enter 打出，D 打摸到的牌，H 胡，P 碰，K 杠，C 吃，G 过，T 托管",
    error: "出错了", logged_out: "请先登录", not_seated: "你没有坐在这张牌桌，请从大厅入座。",
    seat_label: "{wind}家 {name}", tiles_left: "余牌 {n} 张",
    reason_win: "胡牌", reason_deal_in: "放炮", reason_escape: "逃跑", reason_robbing_kong: "抢杠",
    reason_wild_bonus: "财神分", reason_covers: "统包", reason_followed: "被跟",
    reason_wild_discard: "误打财神", reason_signup_grant: "注册赠送", reason_hand: "牌局",
    reason_adjustment: "调整", reason_house: "奖励",
    cause_covers: "{feeder} 给 {eater} 喂了 {n} 次吃（统包），{payer} 一人付所有输家的份",
    cause_deal_in: "{payer} 打出了胡的那张牌", cause_robbing_kong: "{payer} 加杠的那张牌被抢胡",
    cause_catch_dealer: "庄家 {payer} 按连庄数另付胡牌的闲家",
    cause_wild_bonus: "{payee} 手里 {a} 个财神，{payer} {b} 个，每差一个付 1 分",
    cause_escape: "{payer} 在牌局中途离桌", cause_followed: "{payer} 打的牌被后面三家接连跟打",
    cause_wild_discard: "{payer} 打出了财神",
    cause_disconnect: "{payer} 这局结束时还掉线，是 24 小时内第三次掉线",
    penalty_paid: "{payer} 付其他几家共 {silver} 银两（{reason}）",
    meld_chow: "吃", meld_pung: "碰", meld_exposed_kong: "明杠", meld_concealed_kong: "暗杠",
    meld_added_kong: "加杠",
    ev_discarded: "{name} 打出 {tile}", ev_melded: "{name} {meld}", ev_won: "{name} 胡了！",
    ev_flowered: "{name} 补花 {tile}", ev_decided: "{name} {choice}", ev_draw: "流局",
    ev_escaped: "{name} 逃跑", ev_penalized: "{name} 罚分：{reason}", ev_started: "新的一局开始",
    ev_gold_robbed: "{name} 抢金 {tile}",
    decision_buy: "买底", decision_counter: "顶底", decision_decline: "不买",
  },
  en: {
    app_name: "Zhe-Min Mahjong",
    nav_lobby: "Lobby", nav_profile: "Profile", nav_leaders: "Leaderboards", nav_logout: "Log out",
    lang_switch: "中文", lang_switch_label: "切换到中文",
    login: "Log in", register: "Register", username: "Username", password: "Password",
    have_account: "Have an account? Log in", need_account: "No account? Register",
    lobby_title: "Lobby", tables: "Tables", create_table: "Open a table", variant: "Variant",
    lobby_rooms_section: "Private rooms", lobby_rooms_note: "open or join a room to play with friends",
    lobby_tables_section: "Tables", lobby_tables_note: "see who is waiting, or open a table",
    stake: "Stake (silver per point)", all_variants: "All variants", seats: "Seats", status: "Status",
    waiting: "waiting", playing: "playing", sit: "Sit", quick_join: "Quick join",
    no_tables: "No tables yet", refresh: "Refresh", min_balance: "needs {n} silver to sit",
    back_to_table: "Back to my table",
    profile_title: "Profile", balance: "Silver", title: "Title", huzhou_level: "Huzhou level",
    base_score: "base", points: "Points", hands: "Hands", wins: "Wins", self_draws: "Self-draws",
    deal_ins: "Deal-ins", escapes: "Escapes", disconnects: "Disconnects", win_rate: "Win rate",
    escape_rate: "Escape rate", stats: "Record", ledger: "Ledger", delta: "Change",
    balance_after: "Balance", reason: "Reason", hand: "Hand", time: "Time", more: "More",
    no_stats: "No hands played yet",
    leaders_title: "Leaderboards", by_silver: "Silver", by_points: "Points", by_win_rate: "Win rate",
    rank: "Rank", player: "Player", value: "Value", min_hands: "Min. hands",
    lishui: "Lishui", wenzhou: "Wenzhou", huzhou: "Huzhou", fuzhou: "Fuzhou", shanghai: "Shanghai",
    // 玩法 cards (howtowin.js), from RULES.md 2-6
    howto_open: "How to win", howto_open_hint: "How a hand wins in this variant", howto_title: "How to win in {variant}", howto_close: "Close",
    howto_more: "A win is paid by its multipliers and the base; the score sheet shows how.",
    howto_lishui_1: "13 tiles in hand; a win is 14: a pair + 4 sets (runs or triplets).",
    howto_lishui_2: "Also seven pairs, or 不搭 (all apart): 14 different tiles, no honour twice, any two of one suit at least 3 apart (like 1-4-7, 2-5-9); wilds fill gaps.",
    howto_lishui_3: "Wild (财神): a tile is turned up after the deal; its other 3 copies are wild and stand for any tile. White Dragon plays as the wild's face. Discarding a wild costs 1 point to each seat.",
    howto_lishui_4: "Multipliers (self-drawn / on a discard): plain 2 / 1; one suit or all honours 8 / 4; seven pairs, all triplets, 不搭 4 / 2; several specials add up.",
    howto_lishui_5: "统包: once a seat has fed its next seat three chows, if either of the two wins, the other pays every loser's share.",
    howto_lishui_6: "The dealer deals again only by winning; the base goes 3, 5, 7, 9.",
    howto_wenzhou_1: "16 tiles in hand; a win is 17: a pair (牛) + 5 sets. Also 8 pairs + 1 tile; three wilds in hand win at once.",
    howto_wenzhou_2: "Honours first: while you hold a single honour, every discard must be a single honour; if the honour just discarded is one you hold singly, discard it. Pairs, wilds and White Dragon are exempt.",
    howto_wenzhou_3: "Wild (财神): a tile is turned up after the deal; its other 3 copies are wild, stand for any tile, and cannot be discarded. White Dragon plays as the wild's face.",
    howto_wenzhou_4: "Multipliers: a hand with no wild standing in x2, otherwise x1; 8 pairs with no wild, three wilds, heavenly or earthly win, a single wait after melding x4.",
    howto_wenzhou_5: "买底 / 顶底: before the hand the dealer may buy and the others counter, to win or lose more. At the end each wild in hand earns 1 point from each seat.",
    howto_huzhou_1: "13 tiles in hand; a win is 14: a pair + 4 sets. Four wilds in hand win at once.",
    howto_huzhou_2: "Wild (百搭): the tile turned up after the deal points at the wild: same rank in the next suit (characters → dots → bamboo → characters), the next wind or the next dragon; all 4 copies are wild.",
    howto_huzhou_3: "On a discard the discarder pays 2 x base, the others 1 x; self-drawn, everyone pays 2 x. Each doubles again: win on a kong's replacement, heavenly or earthly win, no wild in hand, four wilds.",
    howto_huzhou_4: "Robbing an added kong wins 12 x base, all from the robbed seat. The base is that of the lowest-level player at the table.",
    howto_fuzhou_1: "16 tiles in hand; a win is 17: a pair + 5 sets. Three golds in hand win at once (三金倒).",
    howto_fuzhou_2: "Flowers: every honour (winds and dragons) and the 8 season and flower tiles are flowers: laid out as soon as drawn and replaced, never kept.",
    howto_fuzhou_3: "Gold (金): a tile is turned up after the flowers; its other 3 copies are gold and stand for any tile.",
    howto_fuzhou_4: "Flower points: 1 per flower, gold in hand and exposed kong, 2 per concealed kong. A plain win is base + flower points; self-drawn, each seat pays double; on a discard, the discarder alone pays double.",
    howto_fuzhou_5: "Specials: 抢金 (complete at the start, or with the turned gold) and a win with no flowers and no kong 30 x base; three golds 40 x; a pair of golds 60 x. The last 4 tiles are drawn, not discarded.",
    howto_shanghai_1: "13 tiles in hand; a win is 14, and there is no wild. Only special hands win: a plain pair + 4 sets does not.",
    howto_shanghai_2: "Winning hands: one suit (清一色); one suit with honours (混一色); all triplets (碰碰胡); their mixes 混碰 and 清碰; all honours (字一色, 乱风向: any honours at all).",
    howto_shanghai_3: "Also: all 8 flowers (wins at once), a single tile left after melding (大吊车), heavenly or earthly win (a non-dealer in the first go-round), a win on a replacement draw (杠开).",
    howto_shanghai_4: "The 8 season and flower tiles are laid out and replaced. A hand scores by its 花 count; 喇 hands (one suit is 1 喇 = 20 花) by their 喇.",
    howto_shanghai_5: "Several seats may win on one discard; each is paid on its own.",
    wall: "Wall", dice: "Dice", dealer: "Dealer", wild: "Wild", indicator: "Indicator",
    flowers: "Flowers", discards: "Discards", melds: "Melds", your_hand: "Your hand",
    drawn: "Drawn", empty_seat: "Empty seat", east: "East", south: "South", west: "West",
    north: "North", bot: "bot", offline: "offline",
    autoplay: "Autoplay", autoplay_on: "Autoplay on", autoplay_off: "Stop autoplay",
    autoplay_short_expert: "Expert", autoplay_level: "Autoplay plays as",
    autoplay_standard: "Standard (wins, never claims)", autoplay_expert: "Expert (claims and defends)",
    fill_bots: "Fill with bots", leave_table: "Leave table", waiting_players: "Waiting for players…",
    next_hand_soon: "The next hand starts soon…", countdown: "{s} s left", your_turn: "Your turn to discard",
    act_hu: "Win", act_pung: "Pung", act_exposed_kong: "Kong", act_concealed_kong: "Concealed kong",
    act_added_kong: "Added kong", act_chow: "Chow", act_pass: "Pass", act_discard: "Discard",
    act_buy: "Buy in", act_counter: "Counter", act_decline: "Decline", act_decline_counter: "Decline",
    act_rob_gold: "Rob the gold", act_special: "Special",
    reconnecting: "Connection lost — reconnecting…",
    link_offline: "You are offline — reconnecting when the network is back…",
    link_back: "Reconnected", link_back_played: "Reconnected. While you were away the server made {n} moves for you.",
    link_back_played_one: "Reconnected. While you were away the server made 1 move for you.",
    link_back_autoplay: "Reconnected. Autoplay made {n} moves for you while you were away, and is still on.",
    link_back_autoplay_one: "Reconnected. Autoplay made 1 move for you while you were away, and is still on.",
    link_back_autoplay_only: "Reconnected. Autoplay is playing for you.",
    replaced: "This table is now open in another tab or device: this one can no longer play.",
    link_play_here: "Play here", kicked: "An administrator removed you from the table.",
    settlement: "Settlement", outcome_win: "Win", outcome_draw: "Drawn hand", outcome_escape: "Escape",
    outcome_voided: "The hand was voided; no silver moved", winner: "Winner", self_draw: "self-draw",
    from_seat: "dealt in by", multiplier: "Multiplier", specials: "Specials", transfers: "Payments",
    payer: "Payer", payee: "Payee", net: "Net points", silver_moved: "Silver moved", house: "Reward",
    your_balance: "Your silver", balance_pending: "settling…", close: "Continue",
    penalties: "Penalties", base: "Base",
    escape_confirm: "Leaving during a hand is an escape and costs a penalty. Leave?",
    keyboard_help: "Keys: ←→ pick a tile, Enter discard, D discard the drawn tile, H win, P pung, K kong, C chow, G pass, T autoplay",
    error: "Error", logged_out: "Please log in", not_seated: "You do not sit at this table: sit down from the lobby.",
    seat_label: "{wind} {name}", tiles_left: "{n} tiles left",
    reason_win: "win", reason_deal_in: "deal-in", reason_escape: "escape",
    reason_robbing_kong: "robbing the kong", reason_wild_bonus: "wild bonus", reason_covers: "covers all",
    reason_followed: "followed", reason_wild_discard: "wild discarded", reason_signup_grant: "signup grant",
    reason_hand: "hand", reason_adjustment: "adjustment", reason_house: "reward",
    cause_covers: "{feeder} fed {eater} {n} chows (统包), so {payer} pays every loser's share",
    cause_deal_in: "{payer} discarded the winning tile",
    cause_robbing_kong: "{payer}'s added kong tile was won on",
    cause_catch_dealer: "the dealer {payer} pays the streak again to the winner",
    cause_wild_bonus: "{payee} held {a} wilds, {payer} {b}; 1 point per wild more",
    cause_escape: "{payer} left during the hand", cause_followed: "the next three discards repeated {payer}'s",
    cause_wild_discard: "{payer} discarded a wild",
    cause_disconnect: "{payer} was still away when the hand ended, a third disconnect in 24 hours",
    penalty_paid: "{payer} pays the others {silver} silver in all ({reason})",
    meld_chow: "chow", meld_pung: "pung", meld_exposed_kong: "kong", meld_concealed_kong: "concealed kong",
    meld_added_kong: "added kong",
    ev_discarded: "{name} discards {tile}", ev_melded: "{name}: {meld}", ev_won: "{name} wins!",
    ev_flowered: "{name} shows flower {tile}", ev_decided: "{name}: {choice}", ev_draw: "Drawn hand",
    ev_escaped: "{name} escaped", ev_penalized: "{name} penalized: {reason}", ev_started: "A new hand starts",
    ev_gold_robbed: "{name} robs the gold {tile}",
    decision_buy: "buys in", decision_counter: "counters", decision_decline: "declines",
  },
};

// The names of special hands (番种) and their English glosses; unknown codes show as they are.
// The Chinese names are RULES.md's, as the server's score sheets name them (ITEM_NAMES in
// app/rules/scoring.py; tests/browser/test_payment_causes.py holds them equal).
const SPECIALS = {
  heavenly: ["天胡", "heavenly hand"], earthly: ["地胡", "earthly hand"],
  kong_win: ["杠上开花", "win on a kong draw"], robbing_kong: ["抢杠", "robbing the kong"],
  pure_suit: ["清一色", "pure suit"], mixed_suit: ["混一色", "mixed suit"],
  all_honours: ["字一色", "all honours"], all_pungs: ["大对子", "all pungs"],
  big_pungs: ["大碰对", "all pungs"], pure_pungs: ["清碰", "pure pungs"], mixed_pungs: ["混碰", "mixed pungs"],
  seven_pairs: ["七对子", "seven pairs"], soft_eight_pairs: ["软八对", "soft eight pairs"],
  hard_eight_pairs: ["硬八对", "hard eight pairs"], hard: ["硬牌", "no wild used"],
  no_wild: ["无财神", "no wild"], three_wilds: ["三财神", "three wilds"],
  three_wilds_any_shape: ["三财神", "three wilds"], four_wilds: ["四财神", "four wilds"],
  dealt_four_wilds: ["起手四财神", "four wilds dealt"], wild_meets_wild: ["财神会", "wild meets wild"],
  single_wait: ["单吊", "single wait"], concealed_hand: ["门清", "concealed hand"],
  eight_flowers: ["八花", "eight flowers"], flowerless: ["平胡", "no flowers"],
  three_golds: ["三金倒", "three golds"], golden_pair: ["金雀", "golden pair"],
  rob_gold: ["抢金", "robbing the gold"], loose_honours: ["乱风向", "loose honours"],
  big_crane: ["大吊车", "big crane"], bu_da: ["不搭", "no connections"],
};

// --- the table page (tableui): its own labels, errors by code, titles in English ----------
// Kept apart from the other pages' labels; merged into STRINGS below.
const TABLE_STRINGS = {
  zh: {
    stake_short: "底注", log: "记录", seat_wind: "{wind}家", list_sep: "、",
    not_offered_now: "这一步不能打它", last_discard: "最后打出的牌", cannot_discard_now: "现在不能打",
    table_centre: "牌桌中央", leave_short: "离开", all_hands: "其他三家的牌", next_short: "下局",
    autoplay_hu: "托管替你胡牌", autoplay_other: "托管替你行动了",
    tag_timeout: "（超时，系统代打）", tag_autoplay: "（托管）",
    wind_short_east: "东", wind_short_south: "南", wind_short_west: "西", wind_short_north: "北", log_title: "本局记录", log_empty: "还没有动作",
    close_log: "关闭记录", tiles_count: "{n} 张", tiles_count_one: "1 张", wall_left: "余 {n}", wall_label: "余牌",
    turn_of: "轮到 {name}", dealer_streak: "庄 · 连{k}",
    wild_caishen: "财神", wild_baida: "百搭", wild_jin: "金", substitute: "替身",
    rel_prev: "上家", rel_across: "对家", rel_next: "下家", from_wind: "{wind}家",
    meld_from: "{meld} {tile}，{from}打出", meld_self: "{meld} {tile}",
    act_discard_tile: "打出 {tile}", tap_again: "再点一次打出，或按「打出」",
    selected_tile: "已选 {tile}",
    restrict_honours: "温州规则「先出风字」：手里有单张字牌（{tiles}）时必须先打掉它们，其他牌暂时不能打。",
    restrict_follow: "温州规则：刚打出的 {tile} 你也只有一张，必须跟着打出它。",
    restrict_wild: "{variant}规则：{wild}不能打出。",
    restrict_tile: "这张牌现在不能打：{why}",
    ready_if_discarded: "打出后听牌：{waits}", wait_n: "{tile}×{n}", unseen_n: "还剩 {n} 张",
    ready_after: "打出听", ready_now: "听牌",
    confirm_wild_title: "打出{wild}？",
    confirm_wild_text: "丽水规则：打出{wild}算「误打财神」，你要付给其他三家每家 1 分（共 {silver} 银两），而且这张{wild}谁也不能吃碰胡。",
    confirm_wild_yes: "仍然打出", confirm_cancel: "取消",
    dead_end_title: "{act}了就难胡了",
    dead_end_text: "这样{act}后只能靠大吊车或杠开胡牌，仍要{act}吗？",
    dead_end_why: "上海只胡清一色、混一色、碰碰胡等特殊牌型；这副牌的吃碰已经凑不成这些牌型了。",
    dead_end_yes: "仍要{act}",
    auto_discard: "时间到：系统替你打出了 {tile}", auto_pass: "时间到：系统替你选择了「过」",
    auto_decline: "时间到：系统替你选择了「{choice}」", auto_hu: "时间到：系统替你胡牌",
    auto_other: "时间到：系统替你行动了", autoplay_discard: "托管替你打出了 {tile}",
    autoplay_now: "连续两次超时，已进入托管；点「取消托管」自己来打。",
    buy_help_buy: "买底：你胡牌时每个闲家多付 2k{amount}。",
    buy_help_risk: "买了以后闲家可以顶底：顶底的闲家胡牌时你多付 4k{amount}。",
    buy_help_counter: "顶底：你胡牌时庄家多付 4k{amount}；不用另付。",
    buy_help_dealer_win: "庄家胡牌时你照付买底 2k{amount}（顶不顶都一样）。",
    buy_help_decline: "不买 / 不顶：只按底分 2k{amount} 结算。",
    buy_help_k: "k = 庄家连续坐庄的次数（1–4）。", buy_help_k_known: "本局 k = {k}。",
    points_n: "（{n} 分）",
    ready: "准备", ready_done: "已准备", next_hand_in: "下一局 {s} 秒后开始",
    next_hand_note: "四家都准备就马上发牌，否则时间到自动发牌。", last_settlement: "上局结算",
    view_board: "看牌桌", ready_waiting: "已准备，等其他玩家…", replay_link: "回放这局", room_watch: "旁观",
    verify_verified: "已验证", verify_failed: "验证失败", verify_partial: "部分验证",
    verify_test_mode: "无法验证（测试模式）", verify_incomplete: "无法验证",
    verify_verified_text: "本局公开的种子与开局时公布的承诺相符，整局都出自这个种子排出的牌墙：骰子、你的 {dealt} 张起手牌和 {draws} 次摸牌、每家的出牌、吃碰杠、胡牌和结束时亮出的每一手牌。",
    verify_partial_text: "种子与开局时的承诺相符；本页是中途加入的，没看到发牌，你的牌没有核对。",
    verify_test_mode_text: "这局是管理员用摆好的牌墙发的，没有种子可以核对。",
    verify_incomplete_text: "本页没有收到整局的记录，无法核对。",
    verify_failed_commitment: "公开的种子与开局时公布的承诺不符。",
    verify_failed_seed: "本局结束时没有公开有效的种子。",
    verify_failed_dice: "骰子与种子掷出的不符。",
    verify_failed_deal: "起手牌不是种子排出的牌墙发的牌。",
    verify_failed_draw: "有一次摸牌与种子排出的牌墙不符。",
    verify_failed_indicator: "翻出的牌与种子排出的牌墙不符。",
    verify_failed_flowers: "有一次补花或开金翻出的花与种子排出的牌墙不符。",
    verify_failed_wall: "本局的记录与种子排出的牌墙对不上。",
    verify_failed_play: "有一次出牌、吃碰杠或胡牌与种子排出的牌墙对不上：那家没有那张牌，或者没轮到他。",
    verify_failed_end: "结束时亮出的牌与种子排出的牌墙和本局的记录对不上。",
    verify_proof: "种子与承诺", verify_commitment: "承诺（SHA-256）", verify_seed: "种子",
    verify_how: "自己核对：把本局收到的消息存成文件，运行 python -m app.rules.verify（见 docs/protocol.md「Verifying a hand」）。",
    reconnect_now: "立即重连",
    timer_s: "{s}秒", your_timer: "你的时间", settling: "结算中…",
    ev_discarded_wild: "{name} 打出{wild} {tile}（误打财神）",
    ev_claimed: "{name} {meld} {tile}（{from}打出）", ev_self_meld: "{name} {meld}",
    ev_wild_turned: "翻出 {indicator}：{wild}是 {tile}", ev_self_drawn_win: "{name} 自摸胡了！",
    ev_win_from: "{name} 胡了 {from}打出的 {tile}！", ev_resumed: "已接上牌局",
    base: "底分", payer: "付", items: "计分", formula: "算法", winning_hand: "胡牌牌型",
    hand_revealed: "手牌", seat_flowers: "花牌", result: "结果",
    outcome_hand_voided: "本局作废，未移动银两",
    callout_pung: "碰!", callout_kong: "杠!", callout_chow: "吃!", callout_hu: "胡!", callout_self_draw: "自摸!",
    fx_settings: "声音与动画", fx_settings_muted: "声音与动画（已静音）", fx_sound: "音效",
    fx_reduced_motion: "减少动画", fx_motion_note: "默认跟随系统的“减少动态效果”设置",
    chat: "聊天", chat_close: "关闭聊天", chat_phrases: "快捷语", chat_reactions: "表情",
    chat_mutes: "屏蔽玩家", chat_muted_one: "已屏蔽 {name} 的聊天", chat_muted_badge: "已屏蔽",
    chat_mute: "屏蔽",
    chat_spectators_listen: "旁观时只能看，不能发言；可以屏蔽玩家。",
    chat_hello: "大家好", chat_hurry: "快点吧", chat_nice_play: "打得好", chat_sorry: "不好意思",
    chat_thanks: "谢谢", chat_again: "再来一局", chat_lucky: "运气真好", chat_wait: "等一下",
    chat_bye: "先走了，再见", chat_good_game: "承让了",
    chat_thumbs_up: "点赞", chat_laugh: "大笑", chat_cry: "大哭", chat_angry: "生气", chat_wow: "惊讶",
    ev_watching: "开始旁观", ev_chat: "{name}：{phrase}", ev_chat_reaction: "{name}：［{phrase}］",
    watching_n: "旁观中 · {n} 人", spectators_n: "{n} 人旁观", watch_stop: "退出旁观",
    watch_help: "旁观：看得到每家打出的牌、吃碰杠和花牌，看不到任何人的手牌。",
  },
  en: {
    stake_short: "Stake", log: "Log", seat_wind: "{wind} seat", list_sep: ", ",
    not_offered_now: "not allowed this turn", last_discard: "the last discard", cannot_discard_now: "cannot be discarded now",
    table_centre: "Table centre", leave_short: "Leave", all_hands: "The other hands", next_short: "next",
    autoplay_hu: "Autoplay declared your win", autoplay_other: "Autoplay played for you",
    tag_timeout: " (time out: played for you)", tag_autoplay: " (autoplay)",
    wind_short_east: "E", wind_short_south: "S", wind_short_west: "W", wind_short_north: "N", log_title: "This hand", log_empty: "Nothing yet",
    close_log: "Close the log", tiles_count: "{n} tiles", tiles_count_one: "1 tile", wall_left: "{n} left", wall_label: "Wall",
    turn_of: "{name} to play", dealer_streak: "Dealer · {k} in a row",
    wild_caishen: "wild", wild_baida: "wild", wild_jin: "gold", substitute: "stand-in",
    rel_prev: "left", rel_across: "across", rel_next: "right", from_wind: "from {wind}",
    meld_from: "{meld} {tile}, from {from}", meld_self: "{meld} {tile}",
    act_discard_tile: "Discard {tile}", tap_again: "Tap again to discard, or press Discard",
    selected_tile: "Selected: {tile}",
    restrict_honours: "Wenzhou rule (honours first): while you hold a single honour ({tiles}) you must discard it; your other tiles wait.",
    restrict_follow: "Wenzhou rule: you hold the {tile} just discarded singly, so you must discard it now.",
    restrict_wild: "{variant} rule: the {wild} cannot be discarded.",
    restrict_tile: "This tile cannot be discarded now: {why}",
    ready_if_discarded: "discarding it leaves you ready, waiting on {waits}", wait_n: "{tile} ×{n}", unseen_n: "{n} not yet seen",
    ready_after: "Then waits:", ready_now: "Waits:",
    confirm_wild_title: "Discard the {wild}?",
    confirm_wild_text: "Lishui rule: discarding the {wild} is a penalty (误打财神): you pay each other seat 1 point ({silver} silver in all), and nobody may claim the tile.",
    confirm_wild_yes: "Discard it anyway", confirm_cancel: "Cancel",
    dead_end_title: "A {act} that closes your hand",
    dead_end_text: "After this {act} your hand can win only by a big crane or a win on a kong draw. {Act} anyway?",
    dead_end_why: "Shanghai wins only with special hands (one suit, one suit and honours, all pungs ...); with these melds none of them can be made any more.",
    dead_end_yes: "{Act} anyway",
    auto_discard: "Time is up: {tile} was discarded for you", auto_pass: "Time is up: you passed",
    auto_decline: "Time is up: “{choice}” was chosen for you", auto_hu: "Time is up: the win was declared for you",
    auto_other: "Time is up: the server played for you", autoplay_discard: "Autoplay discarded {tile}",
    autoplay_now: "Two timeouts in a row: autoplay is on. Press “Stop autoplay” to play yourself.",
    buy_help_buy: "Buy in: when you win, each non-dealer pays 2k more{amount}.",
    buy_help_risk: "After a buy a non-dealer may counter: if a counterer wins, you pay 4k more{amount}.",
    buy_help_counter: "Counter: when you win, the dealer pays 4k more{amount}; it costs nothing else.",
    buy_help_dealer_win: "If the dealer wins you pay the buy-in 2k{amount} either way.",
    buy_help_decline: "Decline: the plain base 2k{amount} applies.",
    buy_help_k: "k = the dealer's deals in a row (1-4).", buy_help_k_known: "This hand k = {k}.",
    points_n: " ({n} points)",
    ready: "Ready", ready_done: "Ready", next_hand_in: "Next hand in {s} s",
    next_hand_note: "The next hand is dealt once all four are ready, or when the time is up.",
    view_board: "View table", ready_waiting: "Ready: waiting for the others…", replay_link: "Replay this hand", room_watch: "Watch",
    last_settlement: "Last settlement",
    verify_verified: "Verified", verify_failed: "Verification failed", verify_partial: "Partly verified",
    verify_test_mode: "Not verifiable (test mode)", verify_incomplete: "Not verifiable",
    verify_verified_text: "The seed revealed now matches the commitment shown at the deal, and the whole hand follows from its wall: the dice, your {dealt} dealt tiles and {draws} draws, every seat's discards, claims, kongs and wins, and every hand shown at the end.",
    verify_partial_text: "The seed matches the commitment; this page joined the hand midway and did not see the deal, so your tiles were not checked.",
    verify_test_mode_text: "An administrator dealt this hand from an arranged wall: there is no seed to check.",
    verify_incomplete_text: "This page did not receive the whole hand: nothing to check.",
    verify_failed_commitment: "The revealed seed does not match the commitment shown at the deal.",
    verify_failed_seed: "The hand ended without revealing a valid seed.",
    verify_failed_dice: "The dice are not the ones the seed rolls.",
    verify_failed_deal: "The dealt tiles are not the ones the seed's wall deals.",
    verify_failed_draw: "A draw is not the tile the seed's wall gives.",
    verify_failed_indicator: "The turned tile is not the one the seed's wall gives.",
    verify_failed_flowers: "A flower laid out, or turned before the gold, is not one the seed's wall gave.",
    verify_failed_wall: "The hand's record does not fit the seed's wall.",
    verify_failed_play: "A discard, claim, kong or win in the record does not fit the seed's wall: that seat did not hold the tile, or it was not its turn.",
    verify_failed_end: "The hands shown at the end are not the ones the seed's wall and the hand's record leave.",
    verify_proof: "Seed and commitment", verify_commitment: "Commitment (SHA-256)", verify_seed: "Seed",
    verify_how: "Check it yourself: save the hand's messages to a file and run python -m app.rules.verify (docs/protocol.md, “Verifying a hand”).",
    reconnect_now: "Reconnect now",
    timer_s: "{s}s", your_timer: "your time", settling: "settling…",
    ev_discarded_wild: "{name} discards the {wild} {tile} (a penalty)",
    ev_claimed: "{name}: {meld} {tile} from {from}", ev_self_meld: "{name}: {meld}",
    ev_wild_turned: "{indicator} turned: the {wild} is {tile}", ev_self_drawn_win: "{name} wins by self-draw!",
    ev_win_from: "{name} wins on {from}'s {tile}!", ev_resumed: "Back in the hand",
    base: "Base", payer: "Payer", items: "Scoring", formula: "Formula", winning_hand: "Winning hand",
    hand_revealed: "Hand", seat_flowers: "Flowers", result: "Result",
    outcome_hand_voided: "The hand was voided; no silver moved",
    callout_pung: "Pung!", callout_kong: "Kong!", callout_chow: "Chow!", callout_hu: "Win!", callout_self_draw: "Self-draw!",
    fx_settings: "Sound and motion", fx_settings_muted: "Sound and motion (muted)", fx_sound: "Sound effects",
    fx_reduced_motion: "Reduce motion", fx_motion_note: "Follows your system's reduced-motion setting until you choose",
    chat: "Chat", chat_close: "Close the chat", chat_phrases: "Quick phrases", chat_reactions: "Reactions",
    chat_mutes: "Mute players", chat_muted_one: "{name}'s chat is muted", chat_muted_badge: "muted",
    chat_mute: "Mute",
    chat_spectators_listen: "Spectators watch and do not chat; they may mute players.",
    chat_hello: "Hello, everyone", chat_hurry: "Hurry up, please", chat_nice_play: "Well played",
    chat_sorry: "Sorry", chat_thanks: "Thanks", chat_again: "One more hand", chat_lucky: "What luck",
    chat_wait: "One moment", chat_bye: "I have to go, bye", chat_good_game: "Good game",
    chat_thumbs_up: "Thumbs up", chat_laugh: "Laughing", chat_cry: "Crying", chat_angry: "Angry",
    chat_wow: "Surprised",
    ev_watching: "Watching", ev_chat: "{name}: {phrase}", ev_chat_reaction: "{name}: [{phrase}]",
    watching_n: "Watching · {n}", spectators_n: "{n} watching", watch_stop: "Stop watching",
    watch_help: "Watching: you see every discard, meld and flower, never anyone's hand.",
  },
};

// Errors the table page meets (the socket's `error.code`, and REST's for sitting, bots and
// leaving), in the player's words.
// The table's WebSocket refusals (app/protocol/errors.py) as `err_<code>` labels; a code
// the REST API shares (app/api/errors.py) keeps the REST sentence.
const SOCKET_ERRORS = {
  zh: {
    malformed: "消息格式不对", unknown_type: "未知的消息", stale: "牌局已经往下走了，正在同步", not_in_hand: "两局之间不能出牌",
    no_hand: "这张牌桌还没开局", paused: "管理员暂停了牌桌，稍后继续", hand_voided: "本局作废，未移动银两", kicked: "管理员已将你移出牌桌",
    internal: "服务器出错，牌局已恢复", hand_over: "这一局已经结束", not_your_turn: "还没轮到你，或者吃碰的机会已经过了",
    bad_seat: "没有这个座位", tile_not_in_hand: "你手里没有这张牌", wild_discard_forbidden: "这个玩法不能打出财神",
    discard_restricted: "这张牌现在不能打（先出风字）", not_offered: "现在不能这样做", already_answered: "你已经选过了",
    cannot_win: "这张牌胡不了", no_tiles_left: "牌墙没有牌可以补了", unknown_action: "这个玩法没有这个动作",
    in_hand: "这一局还没结束：两局之间才能准备",
    no_table: "这张牌桌已经关了，或者不存在", seated_here: "你就坐在这张牌桌，不用旁观",
    spectators_full: "旁观的人满了，请稍后再来", spectators_not_allowed: "房主不允许旁观",
    wrong_room_code: "房间号不对", chat_limited: "说得太快了，歇几秒再说",
  },
  en: {
    malformed: "The message was malformed", unknown_type: "Unknown message",
    stale: "The hand moved on; catching up", not_in_hand: "No hand is in play",
    no_hand: "This table has not dealt yet", paused: "An administrator paused the table",
    hand_voided: "The hand was voided; no silver moved",
    kicked: "An administrator removed you from the table",
    internal: "The server failed; the hand was restored", hand_over: "The hand is over",
    not_your_turn: "It is not your turn, or the claim window closed", bad_seat: "No such seat",
    tile_not_in_hand: "That tile is not in your hand",
    wild_discard_forbidden: "This variant does not let you discard the wild",
    discard_restricted: "That tile cannot be discarded now (honours first)",
    not_offered: "That is not possible now", already_answered: "You already answered",
    cannot_win: "That tile does not complete your hand",
    no_tiles_left: "No tile is left for a replacement",
    unknown_action: "This variant has no such action",
    in_hand: "The hand is not over: Ready comes between hands",
    no_table: "That table has closed, or never existed", seated_here: "You sit at this table: no need to watch it",
    spectators_full: "This table has all the spectators it takes; try again later",
    spectators_not_allowed: "The room's owner allows no spectators", wrong_room_code: "Wrong room code",
    chat_limited: "Too much chat at once; wait a few seconds",
  },
};

// The titles as the server names them (Chinese), and their English names: the title by
// silver (称号, the 丽水 ladder of app/store/ranks.py, RULES.md 2) and the 湖州 level (级别,
// app/rules/variants/huzhou.py LEVELS).
const TITLES_EN = {
  // by silver
  菜鸟: "Rookie", 生手: "Novice", 赌客: "Gambler", 赌棍: "Hustler", 赌鬼: "Addict",
  老手: "Veteran", 高人: "Expert", 老千: "Card sharp", 千王: "King of sharps",
  赌王: "Gambling king", 赌神: "Gambling god", 赌圣: "Gambling sage", 赌仙: "Gambling immortal",
  万赌之王: "King of all gamblers",
  // the 湖州 levels
  科员: "Clerk", 助科: "Assistant section chief", 副科: "Deputy section chief", 科长: "Section chief",
  助处: "Assistant division chief", 副处: "Deputy division chief", 处长: "Division chief",
  助局: "Assistant bureau chief", 副局: "Deputy bureau chief", 局长: "Bureau chief",
  助市: "Assistant mayor", 副市: "Deputy mayor", 市长: "Mayor", 助省: "Assistant governor",
  副省: "Deputy governor", 省长: "Governor", 麻将王: "Mahjong king",
};

// --- the score sheet of a win (scoresheet.js) ------------------------------------------------
// Item names come in Chinese from the sheet (`name`); English adds a gloss per item key.
const ITEM_GLOSSES = {
  heavenly: "heavenly hand", earthly: "earthly hand", kong_win: "win on a kong draw",
  robbing_kong: "robbing the kong", pure_suit: "pure suit", mixed_suit: "mixed suit",
  all_honours: "all honours", all_pungs: "all pungs", pure_pungs: "pure pungs",
  mixed_pungs: "mixed pungs", seven_pairs: "seven pairs", soft_eight_pairs: "soft eight pairs",
  hard_eight_pairs: "hard eight pairs", bu_da: "no connections", hard: "no wild used",
  no_wild: "no wild", three_wilds: "three wilds", three_wilds_any_shape: "three wilds, any shape",
  four_wilds: "four wilds", dealt_four_wilds: "four wilds dealt", wild_meets_wild: "wild meets wild",
  single_wait: "single wait", concealed_hand: "concealed hand", eight_flowers: "eight flowers",
  flowerless: "no flowers", three_golds: "three golds", golden_pair: "golden pair",
  rob_gold: "robbing the gold", loose_honours: "loose honours", big_crane: "big crane",
  draw_bonus: "after drawn hands", plain: "plain win", self_drawn: "self-drawn win", soft: "soft win (a wild stands in)",
  base_flowers: "base flowers", flowers: "flowers", flower_sets: "flower sets", golds: "golds",
  wind_pungs: "wind pungs", dragon_pungs: "dragon pungs", exposed_kongs: "exposed kongs",
  concealed_kongs: "concealed kongs", wind_exposed_kongs: "wind exposed kongs",
  wind_concealed_kongs: "wind concealed kongs", dragon_exposed_kongs: "dragon exposed kongs",
  dragon_concealed_kongs: "dragon concealed kongs",
};

const SCORE_STRINGS = {
  zh: {
    score_pays: "付", score_for: "（替 {name}）", score_cap: "封顶", score_total: "合计",
    score_not_counted: "被更高的番种取代，不计入", score_no_items: "无番种", score_winning_tile: "胡张",
    shape_pair: "将", shape_chow: "顺", shape_pung: "刻", shape_single: "单张", shape_loose: "散牌",
    base_dealer_streak: "庄家连庄 {streak} 次", base_dealer_streak_none: "庄家底分",
    base_deal_count: "庄家连做第 {k} 把：2×{k}", base_deal_count_other: "两闲家之间",
    base_lowest_level: "桌上最低等级 {level}（{name}）的底分", base_table_base: "桌面底分",
    base_table_base_streak: "桌面底分，庄家连庄 {streak}", base_flower_point: "以花计分，每花 1 分",
    rule_sum: "规则：倍数相加", rule_highest: "规则：取最高倍数", rule_doublings: "规则：2 的翻数次方",
    rule_base_and_flowers: "规则：平胡 底 + 花分；番种 倍数×底 + 2×花分",
    rule_la_or_flowers: "规则：有喇按最高的喇计，否则 花×2^番（有封顶）",
    term_base: "底", term_non_dealer_base: "闲家底", term_deal_in_point: "犯枪", term_buy: "买底",
    term_counter: "顶底", term_dealer_streak: "连庄", term_flower_points: "花分", term_special: "番种",
    term_catch_dealer: "抓庄", term_total: "倍数", term_deal_in_double: "放冲加倍",
    term_self_draw_double: "自摸加倍", term_self_draw_share: "自摸份", term_deal_in_share: "点炮份",
    term_other_share: "份", term_robbing_kong_share: "拉杠份", term_robbing_kong: "抢杠",
    term_draw_bonus: "荒番",
    kind_doubling: "{n} 翻", kind_base_multiple: "{n} 倍底", kind_flower_points: "{n} 花",
    kind_fan: "{n} 番", kind_la: "{n} 喇", kind_payment_factor: "每笔 ×{n}", kind_share: "{n} 份",
    kind_house_silver: "{n} 银两",
  },
  en: {
    score_pays: "pays", score_for: "(for {name})", score_cap: "cap", score_total: "total",
    score_not_counted: "replaced by a higher item: not counted", score_no_items: "no named items", score_winning_tile: "won on",
    shape_pair: "pair", shape_chow: "run", shape_pung: "triplet", shape_single: "single", shape_loose: "as held",
    base_dealer_streak: "dealer's streak {streak}", base_dealer_streak_none: "dealer's base",
    base_deal_count: "dealer's deal {k} in a row: 2×{k}", base_deal_count_other: "between two non-dealers",
    base_lowest_level: "the lowest level at the table, {level} ({name})", base_table_base: "the table's base",
    base_table_base_streak: "the table's base, dealer's streak {streak}", base_flower_point: "counted in flowers, 1 point each",
    rule_sum: "Rule: the multipliers add up", rule_highest: "Rule: the highest multiplier counts",
    rule_doublings: "Rule: 2 to the number of doublings",
    rule_base_and_flowers: "Rule: plain win base + flower points; special multiple × base + 2 × flower points",
    rule_la_or_flowers: "Rule: the highest la counts, else flowers × 2^fan (up to a cap)",
    term_base: "base", term_non_dealer_base: "non-dealer base", term_deal_in_point: "deal-in point",
    term_buy: "buy", term_counter: "counter", term_dealer_streak: "streak", term_flower_points: "flower pts",
    term_special: "special", term_catch_dealer: "catch dealer", term_total: "multiplier",
    term_deal_in_double: "deal-in double", term_self_draw_double: "self-draw double",
    term_self_draw_share: "self-draw share", term_deal_in_share: "deal-in share", term_other_share: "share",
    term_robbing_kong_share: "robbed kong share", term_robbing_kong: "robbing the kong",
    term_draw_bonus: "drawn-hand bonus",
    kind_doubling: "{n} doubling", kind_base_multiple: "{n} × base", kind_flower_points: "{n} pts",
    kind_fan: "{n} fan", kind_la: "{n} la", kind_payment_factor: "× {n} each payment", kind_share: "{n} shares",
    kind_house_silver: "{n} silver",
  },
};

Object.assign(STRINGS.zh, SCORE_STRINGS.zh);
Object.assign(STRINGS.en, SCORE_STRINGS.en);

Object.assign(STRINGS.zh, TABLE_STRINGS.zh);
Object.assign(STRINGS.en, TABLE_STRINGS.en);

// --- 新手教学, the guided first hand (guide.js, docs/practice.md) ---------------------------
const GUIDE_STRINGS = {
  zh: {
    guide_open: "新手教学：打一局", guide_offer_title: "新手教学",
    guide_offer_text: "和三个电脑玩家打一局丽水麻将练习，一步一步教你出牌、碰、听牌和胡牌。练习局不输赢银两，也不计入排行榜。",
    guide_offer_start: "新手教学：打一局", guide_offer_later: "以后再说",
    guide_next: "知道了", guide_skip: "跳过教学",
    guide_deal: "正在发牌……你是庄家，先出牌。",
    guide_hand: "这是你的手牌：14 张（庄家多一张）。发亮的那张「{wild}」是本局的财神（百搭），能当任何牌用，留着它！",
    guide_discard: "{tile}是单张，跟别的牌都连不上。点它打出去（手机上点两下）。",
    guide_discard_any: "打出一张用不上的牌。",
    guide_others: "其他三家在出牌，看看他们打了什么。",
    guide_pung: "别人打出了{tile}，你手里正好有一对：点「碰」，凑成一组刻子。",
    guide_ready: "带「听」标记的牌打出去，你就听牌了（只差一张就胡）。打出{tile}。",
    guide_waiting: "你听牌了！这一条写着你在等哪些牌：自己摸到，或者别人打出其中一张，就能胡。",
    guide_hu: "就是这张！点「胡」和牌。",
    guide_end_title_won: "你胡了！", guide_end_title: "这一局结束了",
    guide_end_won_each: "你自摸和牌，其他三家每家付你 {each} 分，一共 {total} 分。",
    guide_end_won: "你胡了，一共赢 {total} 分；放炮的那家多付 1 分。",
    guide_end_formula: "怎么算的：你是庄家，头一局底分 3；自摸翻倍 ×2；3 × 2 = 6。",
    guide_end_stake: "真实牌桌上，每分按底注付银两（底注 10，6 分就是 60 银两）。练习桌底注为 0：这一局不动银两，也不计入排行榜。",
    guide_end_other: "这一局没有照教学走完，没关系：下面的结算单写着每家怎么付的。",
    guide_real: "去真的打一局", guide_lobby: "回大厅",
    err_practice_open: "你的练习桌还开着。",
  },
  en: {
    guide_open: "Play a guided hand", guide_offer_title: "New here? Play a guided hand",
    guide_offer_text: "A practice hand of Lishui mahjong with three house bots, and a guide at each step: throwing tiles, pung, getting ready and winning. No silver is won or lost, and no leaderboard counts it.",
    guide_offer_start: "Play a guided hand", guide_offer_later: "Not now",
    guide_next: "Got it", guide_skip: "Skip guide",
    guide_deal: "Dealing… You are the dealer: you throw first.",
    guide_hand: "This is your hand: 14 tiles (the dealer holds one more). The glowing {wild} is this hand's wild (财神): it stands for any tile you need. Keep it!",
    guide_discard: "{tile} stands alone: it makes a set with nothing else. Tap it to throw it (twice on a phone).",
    guide_discard_any: "Throw a tile you do not need.",
    guide_others: "The others are playing. Watch what they throw.",
    guide_pung: "A player threw {tile} and you hold a pair of it: tap Pung to take it and make a set of three.",
    guide_ready: "A tile with the ready mark leaves your hand ready (one tile from a win) when you throw it. Throw {tile}.",
    guide_waiting: "You are ready! This strip shows the tiles you wait for: draw one, or take one another player throws, and you win.",
    guide_hu: "That's your tile! Tap Win.",
    guide_end_title_won: "You won!", guide_end_title: "The hand is over",
    guide_end_won_each: "You won by self-draw: each of the other three pays you {each} points, {total} in all.",
    guide_end_won: "You won {total} points; the player who threw your tile pays 1 point more.",
    guide_end_formula: "How: you are the dealer, whose base is 3 in a first hand, and a self-draw doubles it: 3 × 2 = 6.",
    guide_end_stake: "At a real table each point is paid in silver at the table's stake (at stake 10, 6 points are 60 silver). This practice table's stake is 0: no silver moved and no leaderboard counts it.",
    guide_end_other: "The hand went another way, and that's fine: the sheet below shows who paid what.",
    guide_real: "Play for real", guide_lobby: "Back to the lobby",
    err_practice_open: "Your practice table is still open.",
  },
};

Object.assign(STRINGS.zh, GUIDE_STRINGS.zh);
Object.assign(STRINGS.en, GUIDE_STRINGS.en);

// --- the table page (tableui) ---------------------------------------------------------------


// A title (称号 or 湖州 level) as the server sends it (Chinese), in the current language; an
// unknown one as the server sent it.
export function titleName(title) {
  if (!title) return "";
  return lang === "zh" ? title : TITLES_EN[title] ?? title;
}

// A title as its tooltip shows it: in English with the Chinese the server and the players use,
// e.g. "Clerk (科员)".
export function titleGloss(title) {
  if (!title) return "";
  return lang === "zh" || !TITLES_EN[title] ? title : `${TITLES_EN[title]} (${title})`;
}

// The language a page opens in: the player's own choice if one was made on this browser,
// else the first of the browser's languages (navigator.languages) that the client has,
// else Chinese.
export function firstLang(stored, languages) {
  if (stored === "en" || stored === "zh") return stored;
  for (const tag of languages ?? []) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (code === "zh" || code === "en") return code;
  }
  return "zh";
}

let lang = firstLang(localStorage.getItem("lang"), navigator.languages ?? [navigator.language]);
const listeners = new Set();

export function currentLang() {
  return lang;
}

// Switch to `next`; `remember` keeps it as the player's choice (the switch button), which
// then wins over the browser's languages on later visits.
export function setLang(next, remember = true) {
  lang = next === "en" ? "en" : "zh";
  if (remember) localStorage.setItem("lang", lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  listeners.forEach((fn) => fn(lang));
}

export function onLangChange(fn) {
  listeners.add(fn);
}

export function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

export function special(code) {
  const found = SPECIALS[code];
  if (!found) return code;
  return lang === "zh" ? found[0] : `${found[1]} (${found[0]})`;
}

export function reason(code) {
  const key = `reason_${code}`;
  const text = t(key);
  return text === key ? code : text;
}

// Fill every element carrying data-i18n (text) or data-i18n-label (aria-label).
export function translate(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((el) => {
    el.textContent = t(el.dataset.i18n);
  });
  root.querySelectorAll("[data-i18n-label]").forEach((el) => {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => {
    el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder));
  });
}

// ---- The pages around the table (lobby, profile, leaderboards, the replay viewer), the
// server's error codes, the ledger's reasons and the title ladders. Kept apart from the
// table's labels above; merged into STRINGS here. ----

const PAGE_STRINGS = {
  zh: {
    watch: "旁观", lobby_watch_at: "旁观：{variant}，底注 {stake}",
    lobby_filter: "按玩法筛选", lobby_table_of: "{variant} · 底注 {stake}", lobby_seat_empty: "空位",
    lobby_seat_bot: "机器人", lobby_seat_you: "你", lobby_seats_taken: "{n}/4 人", lobby_sit_at: "坐下：{variant}，底注 {stake}",
    lobby_cannot_afford: "银两不足：这个底注入座需要 {needed} 银两，你有 {balance}。",
    lobby_stake_needs: "这个底注入座需要 {needed} 银两（你有 {balance}）。",
    lobby_max_stake: "你最多能开底注 {n} 的牌桌。",
    lobby_short: "银两不足",
    board_kind: "榜单", board_variant: "玩法", board_min_hands: "最少局数",
    board_empty_silver: "还没有玩家上榜。",
    board_empty_points: "{variant}还没有人得过积分：打一局就能上榜。",
    board_empty_win_rate: "{variant}还没有玩家打满 {n} 局，所以胡牌率榜是空的。", board_lower_min: "把“最少局数”调低可以看到更多玩家。",
    board_you: "你", board_mine: "你的排名：第 {rank} 名 · {value}",
    board_mine_unranked: "你还没有打过{variant}，打一局就能上榜。",
    board_mine_few: "你在{variant}打了 {hands} 局，满 {n} 局才上胡牌率榜。",
    ledger_empty: "还没有账目。", ledger_more: "更多账目", ledger_replay_of: "回放",
    stats_unplayed: "还没玩过：{variants}", list_sep: "、",
    level_detail: "底分 {base}，积分 {points}", ledger_hand_link: "回放牌局 {id}",
    next_title_silver: "距 {title} 还差 {n} 银两", next_level_points: "距 {title} 还差 {n} 积分",
    top_title: "已是最高称号", top_level: "已是最高等级",
    replay_title: "牌局回放", replay_loading: "正在读取牌局…", replay_step: "第 {n} / {total} 步",
    replay_first: "开头", replay_prev: "上一步", replay_next: "下一步", replay_last: "结尾",
    replay_keys: "键盘：← → 前后一步，Home / End 到开头 / 结尾",
    replay_play: "自动播放", replay_pause: "暂停", replay_speed: "速度", replay_seek: "跳到第几步",
    replay_share: "分享回放", replay_unshare: "设为私密", replay_shared: "已公开：有链接的人都能看（不用登录）",
    replay_copied: "链接已复制", replay_copy: "复制链接", replay_link_label: "回放链接",
    replay_public_view: "公开回放：四家的牌都亮出来", replay_all_open: "四家的牌都亮出来",
    replay_sign_in: "登录", replay_payments: "每笔支付",
    replay_admin: "管理员视角：看得到所有人的牌", replay_view: "视角", replay_all_seats: "所有人的牌", replay_seat: "你的视角：{wind}家",
    replay_voided: "这局作废了，没有移动银两。", replay_back: "回到个人资料",
    replay_start: "开局", replay_hand: "手牌", replay_hidden: "{n} 张暗牌",
    replay_you: "你", replay_seat_name: "{wind}家", replay_you_at: "{wind}家（你）", replay_table: "牌桌 {id}",
    rp_ev_dealt: "发牌：每家 {n} 张", rp_ev_drew: "{name} 摸牌", rp_ev_drew_tile: "{name} 摸到 {tile}",
    rp_ev_drew_tail: "{name} 从牌尾补牌", rp_ev_wild_turned: "翻出 {indicator}，{label}是 {wild}",
    rp_ev_hand_ended: "本局结束：{outcome}",
    rp_ev_hand_started: "开局：{dealer} 坐庄，骰子 {dice}，每家发牌",
    rp_wild_fuzhou: "金", rp_wild_huzhou: "百搭", rp_wild_word: "财神",
    err_validation_error: "输入不符合要求，请检查后再试。", err_unauthorized: "请重新登录。",
    err_bad_credentials: "用户名或密码不对。", err_banned: "这个账号已被封禁。",
    err_forbidden: "你没有权限这样做。", err_not_a_player: "只有这局的玩家能分享它的回放。",
    err_hand_not_ended: "这局还没打完，打完才能分享。", err_hand_voided: "这局作废了，不能分享。",
    err_not_found: "找不到了：它可能已经关闭或不存在。",
    err_duplicate_username: "这个用户名已经有人用了。",
    err_insufficient_balance: "银两不足：入座需要 {needed} 银两。",
    err_seat_taken: "这个座位刚被别人坐了。", err_table_full: "这张牌桌已经坐满了。",
    err_already_seated: "你已经坐在这张牌桌了。", err_seated_elsewhere: "你已经坐在另一张牌桌了，请先回到那一桌。",
    err_wrong_table: "你没有坐在这张牌桌。", err_too_many_tables: "你开的牌桌太多了，请先用已经开的牌桌。",
    err_idempotency_conflict: "这个请求和之前的一个冲突了。",
    err_rate_limited: "操作太频繁了，请 {seconds} 秒后再试。", err_too_many_bots: "这一小时叫的机器人太多了，请稍后再试。",
    err_too_large: "请求太大了。", err_busy: "服务器正忙，请 {seconds} 秒后再试。", err_not_ready: "服务器还没准备好，请稍后再试。",
    err_table_unavailable: "这张牌桌暂时连不上，请稍后再试。",
    err_house_funds_low: "庄家的银两不够给机器人，请联系管理员。", err_no_bots_free: "机器人都在忙，请稍后再试。",
    err_vote_open: "已经有人发起解散投票了。", err_no_vote: "现在没有解散投票。", err_already_voted: "你已经同意了。",
    err_internal_error: "服务器出错了，请稍后再试。", err_method_not_allowed: "不支持这个操作。", err_network: "连不上服务器，请检查网络后再试。",
    err_unknown: "出错了，请稍后再试。",
    ledger_signup_grant: "注册赠送", ledger_hand_settlement: "牌局结算", ledger_escape_penalty: "逃跑罚分",
    ledger_disconnect_penalty: "掉线罚分", ledger_house_reward: "庄家奖励", ledger_admin_adjustment: "管理员调整",
    ledger_house_funding: "庄家给机器人拨款", ledger_house_float: "庄家开办资金",
    ledger_tournament_fee: "比赛报名费", ledger_tournament_refund: "比赛报名费退还", ledger_tournament_prize: "比赛奖金",
    ledger_tournament_rake: "比赛抽成", ledger_tournament_guarantee: "比赛保底奖池",
    err_registration_closed: "这场比赛的报名已经截止。", err_tournament_full: "这场比赛的名额已满。",
    err_in_tournament: "你的比赛正在进行：每一轮由比赛为你安排座位，比赛结束后才能去别的牌桌。",
    err_already_registered: "你已经报名了这场比赛。", err_not_registered: "你没有报名这场比赛。",
    err_tournament_finished: "这场比赛已经结束了。",
    field_username: "用户名", field_password: "密码", field_stake: "底注", field_variant: "玩法",
    rp_meld_chow: "吃", rp_meld_pung: "碰", rp_meld_exposed_kong: "明杠", rp_meld_concealed_kong: "暗杠",
    rp_meld_added_kong: "加杠", rp_decision_buy: "买底", rp_decision_counter: "顶底", rp_decision_decline: "不买",
    rp_decision_decline_counter: "不顶",
    rp_ev_discarded: "{name} 打出 {tile}", rp_ev_melded: "{name} {meld} {tiles}", rp_ev_won: "{name} 胡了",
    rp_ev_won_on: "{name} 胡 {tile}", rp_ev_flowered: "{name} 补花 {tile}", rp_ev_decided: "{name} {choice}",
    rp_ev_draw: "流局：牌摸完了，没有人胡", rp_ev_escaped: "{name} 逃跑", rp_ev_penalized: "{name} 罚分：{reason}",
    rp_ev_gold_robbed: "{name} 抢金 {tile}",
    rp_outcome_win: "胡牌", rp_outcome_draw: "流局", rp_outcome_escape: "逃跑",
    rp_settlement: "结算", rp_winner: "胡家", rp_self_draw: "自摸", rp_dealt_in: "{name} 放炮",
    rp_winning_tile: "胡的牌", rp_specials: "番种", rp_multiplier: "倍数", rp_base: "底分",
    rp_items: "计分", rp_total: "合计", rp_net: "净分", rp_house: "庄家奖励（银两）", rp_moved: "银两变动",
    rp_transfers: "支付明细", rp_pays: "{payer} → {payee}：{points} 分（{reason}）", rp_none: "无",
    rp_wall: "余牌 {n} 张", rp_dice: "骰子 {dice}", rp_dealer: "庄", rp_wild: "财神", rp_indicator: "翻牌",
    rp_substitute: "替身", rp_flowers: "花", rp_discards: "牌河", rp_melds: "副露", rp_player: "玩家",
    rp_hand_of: "{name}的手牌",
  },
  en: {
    watch: "Watch", lobby_watch_at: "Watch: {variant}, stake {stake}",
    lobby_filter: "Show variant", lobby_table_of: "{variant} · stake {stake}", lobby_seat_empty: "empty",
    lobby_seat_bot: "bot", lobby_seat_you: "you", lobby_seats_taken: "{n}/4 seated", lobby_sit_at: "Sit: {variant}, stake {stake}",
    lobby_cannot_afford: "Not enough silver: this stake needs {needed} silver to sit; you have {balance}.",
    lobby_stake_needs: "This stake needs {needed} silver to sit (you have {balance}).",
    lobby_max_stake: "The highest stake you can open is {n}.",
    lobby_short: "Not enough silver",
    board_kind: "Board", board_variant: "Variant", board_min_hands: "Min. hands",
    board_empty_silver: "Nobody is on this board yet.",
    board_empty_points: "Nobody has scored points in {variant} yet: play a hand to get on the board.",
    board_empty_win_rate: "Nobody has played {n} hands of {variant} yet, so the win-rate board is empty.", board_lower_min: "Lower the minimum hands to see more players.",
    board_you: "You", board_mine: "Your rank: #{rank} · {value}",
    board_mine_unranked: "You have not played {variant} yet: play a hand to get on the board.",
    board_mine_few: "You have played {hands} hands of {variant}; the win-rate board needs {n}.",
    ledger_empty: "No entries yet.", ledger_more: "More entries", ledger_replay_of: "Replay",
    stats_unplayed: "Not played yet: {variants}", list_sep: ", ",
    level_detail: "base {base}, {points} points", ledger_hand_link: "Replay hand {id}",
    next_title_silver: "{n} silver to {title}", next_level_points: "{n} points to {title}",
    top_title: "The top title: nothing above it", top_level: "The top level: nothing above it",
    replay_title: "Hand replay", replay_loading: "Loading the hand…", replay_step: "Step {n} of {total}",
    replay_first: "Start", replay_prev: "Back", replay_next: "Next", replay_last: "End",
    replay_keys: "Keys: ← → one step, Home / End to the start / end",
    replay_play: "Play", replay_pause: "Pause", replay_speed: "Speed", replay_seek: "Go to step",
    replay_share: "Share replay", replay_unshare: "Make private", replay_shared: "Public: anyone with the link can watch (no account needed)",
    replay_copied: "Link copied", replay_copy: "Copy link", replay_link_label: "Replay link",
    replay_public_view: "Public replay: every hand face up", replay_all_open: "Every hand face up",
    replay_sign_in: "Sign in", replay_payments: "Every payment",
    replay_admin: "Administrator's view: every seat's tiles", replay_view: "View", replay_all_seats: "every seat's tiles", replay_seat: "Your view: {wind} seat",
    replay_voided: "This hand was voided; no silver moved.", replay_back: "Back to the profile",
    replay_start: "Start", replay_hand: "Hand", replay_hidden: "{n} tiles face down",
    replay_you: "you", replay_seat_name: "{wind}", replay_you_at: "{wind} (you)", replay_table: "Table {id}",
    rp_ev_dealt: "The deal: {n} tiles each", rp_ev_drew: "{name} draws", rp_ev_drew_tile: "{name} draws {tile}",
    rp_ev_drew_tail: "{name} draws from the tail", rp_ev_wild_turned: "{indicator} turned: the {label} is {wild}",
    rp_ev_hand_ended: "The hand is over: {outcome}",
    rp_ev_hand_started: "The hand starts: {dealer} deals, dice {dice}, the tiles are dealt",
    rp_wild_fuzhou: "gold (金)", rp_wild_huzhou: "wild (百搭)", rp_wild_word: "wild (财神)",
    err_validation_error: "That input is not accepted; check it and try again.", err_unauthorized: "Please log in again.",
    err_bad_credentials: "Wrong username or password.", err_banned: "This account is banned.",
    err_forbidden: "You may not do that.", err_not_a_player: "Only a player of this hand may share its replay.",
    err_hand_not_ended: "This hand is still in play; share it once it has ended.", err_hand_voided: "This hand was voided; it cannot be shared.",
    err_not_found: "Not found: it may have closed or never existed.",
    err_duplicate_username: "That username is taken.",
    err_insufficient_balance: "Not enough silver: sitting here needs {needed} silver.",
    err_seat_taken: "Someone just took that seat.", err_table_full: "That table is full.",
    err_already_seated: "You already sit at that table.", err_seated_elsewhere: "You already sit at another table; go back to it first.",
    err_wrong_table: "You do not sit at that table.", err_too_many_tables: "You have opened too many tables; use one you opened.",
    err_idempotency_conflict: "This request conflicts with an earlier one.",
    err_rate_limited: "Too many requests; try again in {seconds} s.", err_too_many_bots: "Too many bots called this hour; try again later.",
    err_too_large: "The request is too large.", err_busy: "The server is busy; try again in {seconds} s.", err_not_ready: "The server is not ready yet; try again shortly.",
    err_table_unavailable: "That table cannot be reached right now; try again shortly.",
    err_house_funds_low: "The house cannot fund the bots; ask an administrator.", err_no_bots_free: "Every bot is busy; try again shortly.",
    err_vote_open: "A vote to dissolve is already running.", err_no_vote: "No vote to dissolve is running.", err_already_voted: "You agreed already.",
    err_internal_error: "Something went wrong on the server; try again shortly.", err_method_not_allowed: "That request is not supported.", err_network: "Cannot reach the server; check the network and try again.",
    err_unknown: "Something went wrong; try again shortly.",
    ledger_signup_grant: "signup grant", ledger_hand_settlement: "hand settlement", ledger_escape_penalty: "escape penalty",
    ledger_disconnect_penalty: "disconnect penalty", ledger_house_reward: "house reward", ledger_admin_adjustment: "admin adjustment",
    ledger_house_funding: "house funding of a bot", ledger_house_float: "the house's opening float",
    ledger_tournament_fee: "tournament entry fee", ledger_tournament_refund: "tournament fee refunded",
    ledger_tournament_prize: "tournament prize", ledger_tournament_rake: "tournament rake",
    ledger_tournament_guarantee: "tournament guarantee",
    err_registration_closed: "Registration for this tournament is closed.", err_tournament_full: "This tournament is full.",
    err_in_tournament: "Your tournament is running: it seats you at each round's table, and other tables wait until it ends.",
    err_already_registered: "You are registered for this tournament already.", err_not_registered: "You are not registered for this tournament.",
    err_tournament_finished: "This tournament is over.",
    field_username: "username", field_password: "password", field_stake: "stake", field_variant: "variant",
    rp_meld_chow: "chow", rp_meld_pung: "pung", rp_meld_exposed_kong: "kong", rp_meld_concealed_kong: "concealed kong",
    rp_meld_added_kong: "added kong", rp_decision_buy: "buys in", rp_decision_counter: "counters", rp_decision_decline: "declines",
    rp_decision_decline_counter: "declines to counter",
    rp_ev_discarded: "{name} discards {tile}", rp_ev_melded: "{name}: {meld} {tiles}", rp_ev_won: "{name} wins",
    rp_ev_won_on: "{name} wins on {tile}", rp_ev_flowered: "{name} shows flower {tile}", rp_ev_decided: "{name} {choice}",
    rp_ev_draw: "Drawn hand: the wall ran out and nobody won", rp_ev_escaped: "{name} escaped",
    rp_ev_penalized: "{name} penalized: {reason}", rp_ev_gold_robbed: "{name} robs the gold {tile}",
    rp_outcome_win: "Win", rp_outcome_draw: "Drawn hand", rp_outcome_escape: "Escape",
    rp_settlement: "Settlement", rp_winner: "Winner", rp_self_draw: "self-draw", rp_dealt_in: "{name} dealt in",
    rp_winning_tile: "winning tile", rp_specials: "Specials", rp_multiplier: "Multiplier", rp_base: "Base",
    rp_items: "Scoring", rp_total: "Total", rp_net: "Net points", rp_house: "House reward (silver)", rp_moved: "Silver moved",
    rp_transfers: "Payments", rp_pays: "{payer} → {payee}: {points} pts ({reason})", rp_none: "none",
    rp_wall: "{n} tiles left", rp_dice: "Dice {dice}", rp_dealer: "Dealer", rp_wild: "Wild", rp_indicator: "Indicator",
    rp_substitute: "stands in", rp_flowers: "Flowers", rp_discards: "Discards", rp_melds: "Melds", rp_player: "Player",
    rp_hand_of: "{name}'s hand",
  },
};
// Quick match in the lobby (js/quickmatch.js): its labels, why the server took a player out
// of a queue or cannot call bots yet (app/tables/matching.py QUEUE_REASONS), and its error.
const QUICK_STRINGS = {
  zh: {
    qm_title: "快速开始", qm_stake: "底注 {stake}", qm_min: "需 {n} 银两", qm_waiting_n: "{n} 人在等",
    qm_short: "银两不足：需要 {n}，你有 {balance}",
    qm_searching: "正在找牌桌：{variant} · {level}", qm_waited: "已等 {s} 秒",
    qm_place: "第 {n} 位，共 {total} 人", qm_bots_in: "{s} 秒后由机器人补满空位",
    qm_bots_now: "机器人马上入座…", qm_matching: "找到了，正在入座…", qm_cancel: "取消排队",
    qm_reason_insufficient_balance: "你的银两不够这个场次了，已退出排队。",
    qm_reason_seated_elsewhere: "你已经坐在另一张牌桌，已退出排队。",
    qm_reason_banned: "这个账号已被封禁，已退出排队。",
    qm_reason_disconnected: "连接断开太久，已退出排队。",
    qm_reason_level_closed: "这个场次已关闭，已退出排队。",
    qm_reason_no_bots_free: "机器人都在忙，还在排队，稍后再试着补位。",
    qm_reason_house_funds_low: "庄家的银两不够给机器人，还在排队，等其他玩家加入。",
    qm_reason_too_many_bots: "这一小时叫的机器人太多了，还在排队，等其他玩家加入。",
    err_match_forming: "正在为你组桌，请稍等片刻再试。",
  },
  en: {
    qm_title: "Quick match", qm_stake: "stake {stake}", qm_min: "needs {n} silver", qm_waiting_n: "{n} waiting",
    qm_short: "Not enough silver: needs {n}, you have {balance}",
    qm_searching: "Finding a table: {variant} · {level}", qm_waited: "waited {s} s",
    qm_place: "place {n} of {total}", qm_bots_in: "bots fill the empty seats in {s} s",
    qm_bots_now: "Bots are taking their seats…", qm_matching: "Found one: taking your seat…",
    qm_cancel: "Leave the queue",
    qm_reason_insufficient_balance: "Your silver no longer covers this level; you left the queue.",
    qm_reason_seated_elsewhere: "You sat down at another table; you left the queue.",
    qm_reason_banned: "This account is banned; it left the queue.",
    qm_reason_disconnected: "You were disconnected too long; you left the queue.",
    qm_reason_level_closed: "This level was closed; you left the queue.",
    qm_reason_no_bots_free: "Every bot is busy: still queued, bots are tried again shortly.",
    qm_reason_house_funds_low: "The house cannot fund bots: still queued for other players.",
    qm_reason_too_many_bots: "Too many bots called this hour: still queued for other players.",
    err_match_forming: "A table is being formed for you; try again in a moment.",
  },
};
for (const code of Object.keys(QUICK_STRINGS)) Object.assign(PAGE_STRINGS[code], QUICK_STRINGS[code]);
// Private rooms (好友房, js/rooms.js and tableroom.js): the lobby's card, the room strip on
// the table page, the dissolve vote, the session scoreboard (大结算), the room page.
const ROOM_STRINGS = {
  zh: {
    room_title: "好友房", room_blurb: "和朋友开私人房间：定好规则和局数，分享房间号，打完看大结算。",
    room_join_title: "加入房间", room_code_label: "输入 6 位房间号", room_code: "房间号", room_look: "查看",
    room_code_six: "房间号是 6 位数字。", room_not_found: "没有这个房间号，或者房间已经结束。",
    room_join: "加入房间", room_back_in: "回到牌桌", room_full: "房间已满",
    room_who_sits: "在座（{n}/4）", room_owner: "房主",
    room_create_title: "创建房间", room_create: "创建并入座", room_length: "局数", room_unit: "单位",
    room_unit_hands: "局", room_unit_quan: "圈", room_unit_ban: "版（每版四圈）",
    room_timers_optional: "思考时间（秒，可不填）", room_discard_s: "出牌", room_claim_s: "吃碰",
    room_allow_spectators: "允许有房间号的人旁观",
    room_rules: "房间规则", room_rules_short: "规则", room_rules_of: "房间 {code} 的规则",
    room_rules_note: "不改就是默认规则，只有改过的才算房间规则。",
    room_rules_changed: "（改了 {n} 项）", room_rules_none: "（全部默认）", room_rules_loading: "正在读取规则…",
    room_rules_default: "全部按默认规则。", room_reset_rules: "全部恢复默认",
    room_default: "（默认：{value}）", room_on: "开", room_off: "关", room_no_cap: "不封顶", room_colon: "：",
    room_bounds: "{min}–{max}", room_option_bounds: "请填 {min} 到 {max} 之间的整数。",
    room_check_fields: "请检查标红的项。",
    room_stake_value: "{stake} 银两/分", room_timers: "思考时间", room_timers_value: "出牌 {discard} 秒 · 吃碰 {claim} 秒",
    room_spectators: "旁观", room_spectators_yes: "允许", room_spectators_no: "不允许",
    room_len_hands: "{n} 局", room_len_hand: "{n} 局", room_len_quan: "{n} 圈", room_len_ban: "{n} 版",
    room_progress_hands: "第 {n}/{count} 局", room_progress_quan: "第 {n}/{count} 圈",
    room_progress_ban: "第 {n}/{count} 版",
    room_status_open: "进行中", room_status_ended: "已打完 {length}", room_status_dissolved: "已解散",
    room_back_to: "回到房间 {code}（{progress}）",
    room_copy: "复制", room_copied: "已复制", room_copy_failed: "请手动记下", room_copy_label: "房间号 {code}，点按复制",
    room_close: "关闭",
    room_dissolve: "解散", room_dissolve_now: "房主解散房间（还没开局）", room_dissolve_vote: "发起解散投票",
    room_dissolved_title: "房间已解散", room_vote_secs: "{s} 秒",
    room_dissolve_confirm: "解散这个房间吗？还没开局，房间马上结束，大家都离座。",
    room_dissolve_ask: "发起解散投票吗？在座的玩家全部同意才会解散，正在打的这一局作废（不移动银两）。",
    room_vote_title: "{name} 申请解散房间",
    room_vote_text: "所有玩家同意后房间解散，这一局作废（不移动银两）；有一人拒绝或时间到就继续打。",
    room_vote_agree: "同意解散", room_vote_refuse: "拒绝", room_vote_agreed: "已同意", room_vote_waiting: "等待中",
    room_vote_left: "剩余 {s} 秒", room_vote_line: "解散投票 {agreed}/{voters}",
    room_vote_failed: "解散投票没有通过，继续游戏。",
    room_scoreboard: "大结算", room_board_so_far: "目前战绩", room_board_meta: "房间号 {code} · {variant} · 打了 {played} 局",
    room_board_note: "每格：上为积分，下为银两。", room_hand_col: "局", room_hand_n: "第 {n} 局", room_total: "总计",
    room_best: "最佳", room_best_line: "最佳一局：{name} 在第 {n} 局 {points} 分", room_big_winner: "大赢家",
    room_silver_n: "银两 {n}", room_won_n: "赢 {n} 局", room_no_hands: "一局都还没打完。", room_voided_note: "正在打的那一局作废了，没有移动银两。",
    room_outcome_draw: "流局", room_outcome_escape: "逃跑", room_outcome_voided: "作废",
    room_back_lobby: "返回大厅", room_page_title: "好友房 {code}",
    room_mine: "我的好友房", room_none: "还没有玩过好友房。", room_my_total: "我 {n}", room_open_page: "查看房间",
  },
  en: {
    room_title: "Private room", room_blurb: "Play with friends: pick the rules and the length, share the code, compare the final scoreboard.",
    room_join_title: "Join a room", room_code_label: "Enter the 6-digit room code", room_code: "Room", room_look: "Look up",
    room_code_six: "A room code is 6 digits.", room_not_found: "No open room has this code, or its session is over.",
    room_join: "Join the room", room_back_in: "Back to the table", room_full: "The room is full",
    room_who_sits: "Seated ({n}/4)", room_owner: "owner",
    room_create_title: "Open a room", room_create: "Open and sit", room_length: "Length", room_unit: "Unit",
    room_unit_hands: "hands", room_unit_quan: "wind rounds",
    room_unit_ban: "games (4 rounds each)",
    room_timers_optional: "Seconds to think (optional)", room_discard_s: "Discard", room_claim_s: "Claim",
    room_allow_spectators: "People with the code may watch",
    room_rules: "House rules", room_rules_short: "Rules", room_rules_of: "Rules of room {code}",
    room_rules_note: "Left alone, every rule is the default; only the ones you change are the room's.",
    room_rules_changed: "({n} changed)", room_rules_none: "(all default)", room_rules_loading: "Reading the rules…",
    room_rules_default: "Every rule as the default.", room_reset_rules: "Reset all to default",
    room_default: "(default: {value})", room_on: "on", room_off: "off", room_no_cap: "no cap", room_colon: ": ",
    room_bounds: "{min}–{max}", room_option_bounds: "Enter a whole number from {min} to {max}.",
    room_check_fields: "Check the fields marked in red.",
    room_stake_value: "{stake} silver per point", room_timers: "Thinking time",
    room_timers_value: "{discard} s to discard · {claim} s to claim",
    room_spectators: "Spectators", room_spectators_yes: "allowed", room_spectators_no: "not allowed",
    room_len_hands: "{n} hands", room_len_hand: "{n} hand", room_len_quan: "{n} wind rounds", room_len_ban: "{n} × 4 rounds",
    room_progress_hands: "Hand {n}/{count}", room_progress_quan: "Wind round {n}/{count}",
    room_progress_ban: "Game {n}/{count}",
    room_status_open: "in play", room_status_ended: "played to its end ({length})", room_status_dissolved: "dissolved",
    room_back_to: "Back to room {code} ({progress})",
    room_copy: "Copy", room_copied: "Copied", room_copy_failed: "Note it down", room_copy_label: "Room code {code}: tap to copy",
    room_close: "Close",
    room_dissolve: "Dissolve", room_dissolve_now: "Dissolve the room now (no hand dealt yet)",
    room_dissolve_vote: "Ask the players to dissolve the room", room_dissolved_title: "The room was dissolved",
    room_vote_secs: "{s} s",
    room_dissolve_confirm: "Dissolve this room? No hand has been dealt: the room ends now and everyone leaves.",
    room_dissolve_ask: "Ask the players to dissolve the room? It ends only if every player agrees; the hand in play is voided (no silver moves).",
    room_vote_title: "{name} asks to dissolve the room",
    room_vote_text: "If every player agrees the room ends and this hand is voided (no silver moves); one refusal or the deadline and play goes on.",
    room_vote_agree: "Agree", room_vote_refuse: "Refuse", room_vote_agreed: "agreed", room_vote_waiting: "waiting",
    room_vote_left: "{s} s left", room_vote_line: "Dissolve vote {agreed}/{voters}",
    room_vote_failed: "The vote to dissolve failed: play goes on.",
    room_scoreboard: "Final scoreboard", room_board_so_far: "Scoreboard so far",
    room_board_meta: "Room {code} · {variant} · hands played: {played}",
    room_board_note: "Each cell: points above, silver below.", room_hand_col: "Hand", room_hand_n: "Hand {n}",
    room_total: "Total", room_best: "best", room_best_line: "Best hand: {name}, {points} in hand {n}",
    room_big_winner: "Top winner", room_silver_n: "silver {n}", room_won_n: "won {n}", room_no_hands: "No hand was finished.", room_voided_note: "The hand in play was voided: no silver moved.",
    room_outcome_draw: "draw", room_outcome_escape: "escape", room_outcome_voided: "voided",
    room_back_lobby: "Back to the lobby", room_page_title: "Private room {code}",
    room_mine: "My private rooms", room_none: "No private rooms yet.", room_my_total: "me {n}", room_open_page: "Open the room",
  },
};
// 邀请, 再来一局, the waiting state and the seat wind at the deal (roominvite.js,
// roomrematch.js, tablewait.js, tablewind.js)
const INVITE_STRINGS = {
  zh: {
    invite: "邀请", invite_label: "邀请好友进房间 {code}", invite_title: "好友房 {code}",
    invite_text: "来{app}好友房 {code}（{variant} · {length} · 底注 {stake}）一起打", invite_colon: "：",
    invite_copied: "邀请已复制", invite_shared: "已分享", invite_failed: "复制失败，请发房间号",
    invite_sign_in_note: "登录或注册后直接进入好友房。",
    rematch: "再来一局", rematch_join: "加入新房间", rematch_mine: "新房间 {code} 已开好，等大家加入。",
    rematch_invited: "{name} 邀请你再来一局（房间 {code}）", rematch_gone: "新房间已经结束了。",
    waiting_count: "等待玩家 {n}/4", waiting_short: "等待", waiting_empty_chair: "空位",
    ev_seating: "你是{wind}家 · 庄家：{name}", ev_seating_dealer: "你是{wind}家 · 你坐庄",
    err_room_open: "这个房间还在进行中。",
    bot_level: "机器人水平", bot_level_beginner: "新手", bot_level_standard: "普通", bot_level_expert: "高手",
    bot_level_title: "机器人水平：{level}", lobby_bot_level: "机器人：{level}",
    bot_level_beginner_hint: "新手：常打错牌，不吃牌，适合练手",
    bot_level_standard_hint: "普通：只求最快听牌，不防守",
    bot_level_expert_hint: "高手：会做大牌，会防守",
  },
  en: {
    invite: "Invite", invite_label: "Invite friends to room {code}", invite_title: "Private room {code}",
    invite_text: "Join my {app} private room {code} ({variant} · {length} · stake {stake})", invite_colon: ": ",
    invite_copied: "Invite copied", invite_shared: "Shared", invite_failed: "Copy failed: send the code",
    invite_sign_in_note: "Sign in or sign up and you go straight into the private room.",
    rematch: "Play again", rematch_join: "Join the new room", rematch_mine: "New room {code} is open: waiting for the others.",
    rematch_invited: "{name} invites you to play again (room {code})", rematch_gone: "The new room is over already.",
    waiting_count: "Waiting for players {n}/4", waiting_short: "Seated", waiting_empty_chair: "Empty chair",
    ev_seating: "You sit {wind} · dealer: {name}", ev_seating_dealer: "You sit {wind} · you deal",
    err_room_open: "This room's session is still running.",
    bot_level: "Bots' level", bot_level_beginner: "Beginner", bot_level_standard: "Standard", bot_level_expert: "Expert",
    bot_level_title: "Bot level: {level}", lobby_bot_level: "bots: {level}",
    bot_level_beginner_hint: "Beginner: often discards the wrong tile, never chows; good for practice",
    bot_level_standard_hint: "Standard: races to ready, never defends",
    bot_level_expert_hint: "Expert: builds valuable hands and defends",
  },
};
for (const code of Object.keys(INVITE_STRINGS)) Object.assign(ROOM_STRINGS[code], INVITE_STRINGS[code]);
for (const code of Object.keys(ROOM_STRINGS)) Object.assign(PAGE_STRINGS[code], ROOM_STRINGS[code]);
for (const code of Object.keys(EVENT_STRINGS)) Object.assign(PAGE_STRINGS[code], EVENT_STRINGS[code]);
for (const code of Object.keys(PAGE_STRINGS)) Object.assign(STRINGS[code], PAGE_STRINGS[code]);
for (const l of Object.keys(SOCKET_ERRORS)) {
  for (const [code, text] of Object.entries(SOCKET_ERRORS[l])) STRINGS[l][`err_${code}`] ??= text;
}

// A ledger row's reason (app/protocol/vocabulary.py LEDGER_REASONS) in the current language.
export function ledgerReason(code) {
  const key = `ledger_${code}`;
  const text = t(key);
  return text === key ? code : text;
}

// Whether a label exists (in either language) for `key`.
export function hasLabel(key) {
  return key in STRINGS[lang] || key in STRINGS.en;
}

// A score sheet item's name: the sheet's Chinese name, with an English gloss in English.
export function itemName(item) {
  if (lang === "zh") return item.name;
  const gloss = ITEM_GLOSSES[item.key];
  return gloss ? `${gloss} (${item.name})` : item.name;
}

// What an item is worth, in its kind's unit.
export function itemValue(item) {
  const n = String(item.value);
  if (item.kind === "multiplier") return `×${n}`;
  return t(`kind_${item.kind}`, { n });
}

export function termName(key) {
  return t(`term_${key}`);
}

export function ruleText(rule) {
  return t(`rule_${rule}`);
}

// Why the base is what it is, in words.
export function baseReasonText(r, nameOf = (seat) => `#${seat + 1}`) {
  switch (r.key) {
    case "dealer_streak":
      return r.streak ? t("base_dealer_streak", { streak: r.streak }) : t("base_dealer_streak_none");
    case "deal_count":
      return r.deal_count ? t("base_deal_count", { k: r.deal_count }) : t("base_deal_count_other");
    case "lowest_level": {
      const level = titleName(r.level);
      return t("base_lowest_level", { level, name: r.seat === null ? "" : nameOf(r.seat) });
    }
    case "table_base":
      return r.streak ? t("base_table_base_streak", { streak: r.streak }) : t("base_table_base");
    default:
      return t(`base_${r.key}`);
  }
}
