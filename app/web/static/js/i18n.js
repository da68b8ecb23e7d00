// Labels in Chinese (the default) and English. `t(key, vars)` looks a label up in the
// current language; a missing key falls back to English, then to the key itself.

const STRINGS = {
  zh: {
    app_name: "浙闽麻将",
    nav_lobby: "大厅", nav_profile: "个人资料", nav_leaders: "排行榜", nav_logout: "退出",
    lang_switch: "English", lang_switch_label: "Switch to English",
    login: "登录", register: "注册", username: "用户名", password: "密码",
    have_account: "已有账号？登录", need_account: "没有账号？注册",
    lobby_title: "大厅", tables: "牌桌", create_table: "开桌", variant: "玩法", stake: "底注(银两/分)",
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
    wall: "余牌", dice: "骰子", dealer: "庄", wild: "财神", indicator: "翻牌", flowers: "花",
    discards: "牌河", melds: "副露", your_hand: "你的手牌", drawn: "摸牌", empty_seat: "空位",
    east: "东", south: "南", west: "西", north: "北", bot: "机器人", offline: "离线",
    autoplay: "托管", autoplay_on: "托管中", autoplay_off: "取消托管",
    fill_bots: "机器人补位", leave_table: "离开牌桌", waiting_players: "等待玩家入座…",
    next_hand_soon: "下一局即将开始…", countdown: "剩余 {s} 秒", your_turn: "轮到你出牌",
    act_hu: "胡", act_pung: "碰", act_exposed_kong: "杠", act_concealed_kong: "暗杠",
    act_added_kong: "加杠", act_chow: "吃", act_pass: "过", act_discard: "打",
    act_buy: "买底", act_counter: "顶底", act_decline: "不买", act_decline_counter: "不顶",
    act_rob_gold: "抢金", act_special: "特殊",
    reconnecting: "连接中断，正在重新连接…", replaced: "你在别处打开了牌桌。", reconnect: "重新连接",
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
    wall: "Wall", dice: "Dice", dealer: "Dealer", wild: "Wild", indicator: "Indicator",
    flowers: "Flowers", discards: "Discards", melds: "Melds", your_hand: "Your hand",
    drawn: "Drawn", empty_seat: "Empty seat", east: "East", south: "South", west: "West",
    north: "North", bot: "bot", offline: "offline",
    autoplay: "Autoplay", autoplay_on: "Autoplay on", autoplay_off: "Stop autoplay",
    fill_bots: "Fill with bots", leave_table: "Leave table", waiting_players: "Waiting for players…",
    next_hand_soon: "The next hand starts soon…", countdown: "{s} s left", your_turn: "Your turn to discard",
    act_hu: "Win", act_pung: "Pung", act_exposed_kong: "Kong", act_concealed_kong: "Concealed kong",
    act_added_kong: "Added kong", act_chow: "Chow", act_pass: "Pass", act_discard: "Discard",
    act_buy: "Buy in", act_counter: "Counter", act_decline: "Decline", act_decline_counter: "Decline",
    act_rob_gold: "Rob the gold", act_special: "Special",
    reconnecting: "Connection lost, reconnecting…", replaced: "The table was opened elsewhere.",
    reconnect: "Reconnect", kicked: "An administrator removed you from the table.",
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
const SPECIALS = {
  heavenly: ["天胡", "heavenly hand"], earthly: ["地胡", "earthly hand"],
  kong_win: ["杠上开花", "win on a kong draw"], robbing_kong: ["抢杠", "robbing the kong"],
  pure_suit: ["清一色", "pure suit"], mixed_suit: ["混一色", "mixed suit"],
  all_honours: ["字一色", "all honours"], all_pungs: ["碰碰胡", "all pungs"],
  big_pungs: ["大碰对", "all pungs"], pure_pungs: ["清碰", "pure pungs"], mixed_pungs: ["混碰", "mixed pungs"],
  seven_pairs: ["七对", "seven pairs"], soft_eight_pairs: ["软八对", "soft eight pairs"],
  hard_eight_pairs: ["硬八对", "hard eight pairs"], hard: ["硬胡", "no wild used"],
  no_wild: ["无财神", "no wild"], three_wilds: ["三财神", "three wilds"],
  three_wilds_any_shape: ["三财神", "three wilds"], four_wilds: ["四财神", "four wilds"],
  dealt_four_wilds: ["起手四财神", "four wilds dealt"], wild_meets_wild: ["财神碰财神", "wild meets wild"],
  single_wait: ["单吊", "single wait"], concealed_hand: ["门清", "concealed hand"],
  eight_flowers: ["八花", "eight flowers"], flowerless: ["无花", "no flowers"],
  three_golds: ["三金倒", "three golds"], golden_pair: ["金雀", "golden pair"],
  rob_gold: ["抢金", "robbing the gold"], loose_honours: ["乱风", "loose honours"],
  big_crane: ["大吊车", "big crane"], bu_da: ["不搭", "no connections"],
};

let lang = localStorage.getItem("lang") === "en" ? "en" : "zh";
const listeners = new Set();

export function currentLang() {
  return lang;
}

export function setLang(next) {
  lang = next === "en" ? "en" : "zh";
  localStorage.setItem("lang", lang);
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
