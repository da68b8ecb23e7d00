// The action log of the hand in play: what each event did, kept as data (seats, tiles) and
// put into words only when drawn, so names that load late and a language switch show in
// every line ("bot-2 打出 东", never "座位 4 打出 东").

import { t } from "./i18n.js";
import { tileName } from "./tiles.js";
import { wildName } from "./tablerules.js";
import { isReaction } from "./faces.js";

// A phrase or reaction of the quick chat in the reader's words (a reaction's picture is
// faces.js's).
export function phraseText(phrase) {
  return t(`chat_${phrase}`);
}

const LOGGED = new Set(["hand_started", "wild_turned", "decided", "flowered", "discarded",
  "melded", "penalized", "gold_robbed", "won", "exhaustive_draw", "escaped"]);
const MAX_ENTRIES = 200;

// The entry an event makes (null: not logged, e.g. a draw or a deal).
export function entryOf(e, extra = {}) {
  if (!LOGGED.has(e.kind)) return null;
  return { ...e, ...extra };
}

export function push(log, entry) {
  if (!entry) return;
  log.push(entry);
  if (log.length > MAX_ENTRIES) log.splice(0, log.length - MAX_ENTRIES);
}

// The entries a snapshot allows: the discards so far, in order of play.
export function entriesOfSnapshot(view) {
  const entries = [{ kind: "resumed" }];
  for (const r of view.river) entries.push({ kind: "discarded", seat: r.seat, tile: r.tile });
  return entries;
}

// One entry in words; `name(seat)` names a seat, `variant` gives the wild its name. An
// entry the server played for the seat ("timeout" or "autoplay") says so.
export function describe(entry, context) {
  const text = words(entry, context);
  return entry.auto ? `${text}${t(`tag_${entry.auto}`)}` : text;
}

function words(entry, { name, variant, dealer }) {
  const tile = (code) => (code ? tileName(code) : "");
  switch (entry.kind) {
    case "hand_started":
      return t("ev_started");
    case "seating":
      return entry.dealer === entry.seat ? t("ev_seating_dealer", { wind: t(entry.wind) })
        : t("ev_seating", { wind: t(entry.wind), name: name(entry.dealer) });
    case "resumed":
      return t("ev_resumed");
    case "watching":
      return t("ev_watching");
    case "wild_turned":
      return t("ev_wild_turned", { indicator: tile(entry.indicator), wild: wildName(variant),
        tile: tile(entry.wild) });
    case "decided": {
      const key = entry.choice === "decline" && entry.seat !== dealer ? "act_decline_counter"
        : `decision_${entry.choice}`;
      return t("ev_decided", { name: name(entry.seat), choice: t(key) });
    }
    case "flowered":
      return t("ev_flowered", { name: name(entry.seat), tile: tile(entry.tile) });
    case "discarded":
      if (entry.wild) {
        return t("ev_discarded_wild", { name: name(entry.seat), wild: wildName(variant),
          tile: tile(entry.tile) });
      }
      return t("ev_discarded", { name: name(entry.seat), tile: tile(entry.tile) });
    case "melded":
      if (entry.from_seat !== null && entry.from_seat !== undefined && entry.claimed) {
        return t("ev_claimed", { name: name(entry.seat), meld: t(`meld_${entry.meld}`),
          tile: tile(entry.claimed), from: name(entry.from_seat) });
      }
      return t("ev_self_meld", { name: name(entry.seat), meld: t(`meld_${entry.meld}`) });
    case "penalized":
      return t("ev_penalized", { name: name(entry.seat), reason: t(`reason_${entry.reason}`) });
    case "gold_robbed":
      return t("ev_gold_robbed", { name: name(entry.seat), tile: tile(entry.tile) });
    case "won":
      if (entry.self_draw || entry.from_seat === null || entry.from_seat === undefined) {
        return t("ev_self_drawn_win", { name: name(entry.seat) });
      }
      return t("ev_win_from", { name: name(entry.seat), from: name(entry.from_seat),
        tile: tile(entry.tile) });
    case "exhaustive_draw":
      return t("ev_draw");
    case "escaped":
      return t("ev_escaped", { name: name(entry.seat) });
    case "chat": // quick chat: {seat, phrase}
      return t(isReaction(entry.phrase) ? "ev_chat_reaction" : "ev_chat",
        { name: name(entry.seat), phrase: phraseText(entry.phrase) });
    case "auto": // the server played for the seat: {key, tile, choice (a label key)}
      return t(entry.key, { tile: tile(entry.tile), choice: entry.choice ? t(entry.choice) : "" });
    default:
      return "";
  }
}
