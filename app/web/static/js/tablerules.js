// What the rules do, in words, for the table page: the variant's name for its wild, why a
// tile of the hand may not be discarded now, what 买底 / 顶底 cost and win, and what a 丽水
// wild discard costs. The server decides what is legal (the prompt's actions); this module
// only explains its choice, from the same public facts (RULES.md 2 and 3).

import { t } from "./i18n.js";
import { tileName } from "./tiles.js";

const WILD_KEYS = { lishui: "wild_caishen", wenzhou: "wild_caishen", huzhou: "wild_baida",
  fuzhou: "wild_jin" };
const WHITE = "5z"; // 白板: exempt from 温州's honours first, like the 财神

// What the variant calls its wild: 财神 (丽水, 温州), 百搭 (湖州), 金 (福州).
export function wildName(variant) {
  return t(WILD_KEYS[variant] ?? "wild");
}

// 丽水 lets the wild go with a penalty (误打财神, 1 point to each other seat): ask first.
export function wildDiscardCosts(variant, tile, wild) {
  return variant === "lishui" && Boolean(wild) && tile === wild;
}

// Why the tiles of the hand that the prompt does not let go are held back, on a turn where
// some may be discarded: `{line, reasons: Map(tile -> text)}`, or null when nothing is held
// back. `legal` is the set of tiles the prompt lets go.
export function discardRestriction({ variant, hand, legal, wild, lastDiscard, seat }) {
  if (!legal.size || !hand) return null;
  const held = hand.filter((tile) => !legal.has(tile));
  if (!held.length) return null;
  const reasons = new Map();
  const lines = [];
  const variantName = t(variant);
  const wildWord = wildName(variant);
  if (wild && held.includes(wild)) {
    const text = t("restrict_wild", { variant: variantName, wild: wildWord });
    reasons.set(wild, text);
    lines.push(text);
  }
  const others = held.filter((tile) => tile !== wild);
  if (others.length && variant === "wenzhou") {
    const follow = legal.size === 1 && lastDiscard && lastDiscard.seat !== seat &&
      legal.has(lastDiscard.tile) && lastDiscard.tile[1] === "z";
    const singles = [...legal].filter((tile) => tile[1] === "z" && tile !== WHITE);
    const text = follow
      ? t("restrict_follow", { tile: tileName(lastDiscard.tile) })
      : t("restrict_honours", { tiles: singles.map((x) => tileName(x)).join(t("list_sep")) });
    for (const tile of others) reasons.set(tile, text);
    lines.push(text);
  } else if (others.length) {
    // not a rule this client knows: say only that the server holds them back
    for (const tile of others) reasons.set(tile, t("restrict_tile", { why: t("not_offered_now") }));
  }
  return { line: lines.join(" "), reasons };
}

// 温州 买底 / 顶底: the words under the decision buttons. `k`: the dealer's deals in a row
// when this page knows it, else null (the rule is then given with k).
export function buyInHelp({ counterRound, k }) {
  const amount = (units) => (k ? t("points_n", { n: units * k }) : "");
  const lines = counterRound
    ? [t("buy_help_counter", { amount: amount(4) }), t("buy_help_dealer_win", { amount: amount(2) })]
    : [t("buy_help_buy", { amount: amount(2) }), t("buy_help_risk", { amount: amount(4) })];
  lines.push(t("buy_help_decline", { amount: amount(2) }));
  lines.push(k ? t("buy_help_k_known", { k }) : t("buy_help_k"));
  return lines;
}

// The dealer's deals in a row (温州's k, at most 4), from the hands this page has seen:
// `hand_started` of hand number 1 starts at 1, the same dealer again adds one, another
// dealer starts at 1; a page that joined later than the dealer's first hand does not know.
export function nextDealerStreak(previous, { handId, dealer }) {
  const number = Number(String(handId || "").split("-").pop());
  if (number === 1) return { dealer, k: 1 };
  if (!previous) return { dealer, k: null };
  if (previous.dealer !== dealer) return { dealer, k: 1 };
  return { dealer, k: previous.k ? Math.min(previous.k + 1, 4) : null };
}
