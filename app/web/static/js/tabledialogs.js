// The table page's dialogs: the settlement of a hand (who won and how, the whole winning
// hand with its melds and flowers, every payment, the silver each seat moved, the countdown
// to the next hand) and the question before a discard that costs a penalty (丽水 误打财神).

import { h, fmt } from "./dom.js";
import { reason, special, t } from "./i18n.js";
import { silverMoved } from "../kit/model.js";
import { wildName } from "./tablerules.js";
import { paymentCause, penaltyItem, unexplained } from "./payments.js";
import { scoreSheet } from "./scoresheet.js";
import { confirmDiscard } from "./tableinput.js";
import { sortHand, tileElement, tileName } from "./tiles.js";

function tileOf(c, code, extra = {}) {
  const wild = c.hand && c.hand.wild;
  return tileElement(code, { small: true, wild: Boolean(wild && code === wild.wild),
    wildName: wildName(c.variant), ...extra });
}

function signed(n) {
  return (n > 0 ? "+" : "") + fmt(n);
}

// The whole hand of a seat at the end: its concealed tiles (the winning one marked), its
// melds as they lie, and its flowers apart.
function wholeHand(c, ended, seat, concealed, winning) {
  const wild = c.hand && c.hand.wild ? c.hand.wild.wild : null;
  const tiles = sortHand(concealed, wild);
  let mark = winning ? tiles.lastIndexOf(winning) : -1;
  if (mark >= 0) { // the winning tile goes last, apart, as it was taken
    tiles.splice(mark, 1);
    tiles.push(winning);
    mark = tiles.length - 1;
  }
  const melds = (ended.melds && ended.melds[seat]) || [];
  const flowers = (ended.flowers && ended.flowers[seat]) || [];
  return h("div", { class: "whole-hand", role: "group", "aria-label": t("winning_hand") },
    h("span", { class: "set concealed-set" }, tiles.map((code, i) => {
      const el = tileOf(c, code);
      if (i === mark) el.classList.add("winning");
      return el;
    })),
    melds.map((m) => h("span", { class: `set meld ${m.meld}`, title: t(`meld_${m.meld}`),
      "aria-label": `${t(`meld_${m.meld}`)} ${m.tiles.map((x) => tileName(x)).join(" ")}` },
    m.tiles.map((code) => tileOf(c, code)))),
    flowers.length ? h("span", { class: "set flowers-set", "aria-label": `${t("seat_flowers")} ${flowers.length}` },
      h("span", { class: "flowers-label" }, t("seat_flowers")), flowers.map((code) => tileOf(c, code))) : null);
}

function causeOf(c, ended) {
  const wild = c.hand && c.hand.wild ? c.hand.wild.wild : null;
  return (p) => paymentCause(ended, p, (seat) => nameIn(c)(seat), wild);
}

function winBlock(c, ended, w) {
  const sheet = (ended.scores || []).find((x) => x.seat === w.seat);
  const how = w.self_draw || w.from_seat === null || w.from_seat === undefined
    ? t("self_draw") : `${t("from_seat")} ${nameIn(c)(w.from_seat)}`;
  return h("section", { class: "win", dataset: { seat: w.seat } },
    h("h3", {}, `${t("winner")}: ${nameIn(c)(w.seat)} · ${how}`,
      w.tile ? [" · ", tileOf(c, w.tile)] : null),
    sheet ? null : h("p", { class: "win-value" },
      w.specials.length ? h("span", { class: "specials" }, `${t("specials")}: ${w.specials.map(special).join("、")}`) : null,
      h("span", { class: "multiplier" }, `${t("multiplier")} ×${fmt(w.multiplier)}`)),
    sheet ? scoreSheet({ hand: c.hand, variant: c.variant, nameOf: nameIn(c) }, sheet, causeOf(c, ended)) : wholeHand(c, ended, w.seat, w.hand, w.tile));
}

// Every other seat's hand as it ended (the board on a phone shows only their counts).
function otherHands(c, ended, wins) {
  const winners = new Set(wins.map((w) => w.seat));
  const seats = [0, 1, 2, 3].filter((seat) => !winners.has(seat));
  return h("details", { class: "other-hands", open: !window.matchMedia("(max-width: 800px)").matches },
    h("summary", {}, t("all_hands")),
    seats.map((seat) => h("div", { class: "other-hand", dataset: { seat } },
      h("span", { class: "who" }, `${c.windOf(seat)} ${nameIn(c)(seat)}`),
      wholeHand(c, ended, seat, ended.hands[seat] || [], null))));
}

// Whether the hand was dealt as its seed says (verify.js, checked as the hand ended): a mark
// with one line of why, and the seed and its commitment for a check elsewhere.
const VERIFY_SYMBOLS = { verified: "✓", partial: "✓", failed: "✗", test_mode: "–", incomplete: "?" };

function verifyMark(s) {
  const v = s.verdict;
  if (!v) return null;
  const why = v.status === "failed" ? t(`verify_failed_${v.what}`)
    : t(`verify_${v.status}_text`, { dealt: v.dealt, draws: v.draws });
  return h("div", { id: "settle-verify", class: `verify-mark ${v.status}`, dataset: { status: v.status, what: v.what } },
    h("p", {}, h("strong", { class: "verify-label" }, `${VERIFY_SYMBOLS[v.status] ?? "?"} ${t(`verify_${v.status}`)}`),
      " ", h("span", { class: "verify-why" }, why)),
    // open stays open when the dialog is drawn again (a balance, a table_state)
    v.seed || v.commitment ? h("details", { class: "verify-proof", open: Boolean(s.proofOpen),
      ontoggle: (ev) => { s.proofOpen = ev.target.open; } },
      h("summary", {}, t("verify_proof")),
      h("dl", {},
        h("dt", {}, t("verify_commitment")), h("dd", {}, h("code", {}, v.commitment ?? "–")),
        h("dt", {}, t("verify_seed")), h("dd", {}, h("code", {}, v.seed ?? "–"))),
      h("p", { class: "note" }, t("verify_how"))) : null);
}

// A seat's player by name in the settlement: the hand's player, also one who has left the
// table since (still away at the end, or escaped), whose seat is free or taken by now.
function nameIn(c) {
  const names = c.settlement && c.settlement.names;
  return (seat) => (names && names[seat]) || c.nameOf(seat);
}

export function settlementDialog(c) {
  const s = c.settlement;
  const ended = s.ended;
  const outcome = ended.outcome === "win" ? t("outcome_win") : ended.outcome === "escape" ? t("outcome_escape") : t("outcome_draw");
  const houseAny = ended.house_silver && ended.house_silver.some((x) => x);
  const myMove = c.seat !== null ? silverMoved(ended, c.seat, c.stake) : null;
  const rest = unexplained(ended); // a win's payments show as formulas in its sheet
  const penalties = Array.isArray(ended.penalties) ? ended.penalties : []; // charged apart, in silver
  const columns = [t("player"), t("net"), ...(houseAny ? [t("house")] : []), t("silver_moved")];
  return h("div", { class: "overlay settle-overlay" },
    h("div", { id: "settlement", class: "card dialog settle", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "settle-title", tabindex: -1 },
    h("div", { class: "settle-body" },
      h("h2", { id: "settle-title" }, `${t("settlement")} · ${outcome}`),
      h("p", { class: "settle-stake" }, `${t(c.variant || "")} · ${t("stake_short")} ${fmt(c.stake)} · `,
        // the stored hand, step by step, in a tab of its own (the table plays on here)
        h("a", { id: "settle-replay", href: `#/replay/${encodeURIComponent(s.handId)}`, target: "_blank",
          rel: "noopener", dataset: { hand: s.handId } }, t("replay_link"))),
      ...s.wins.map((w) => winBlock(c, ended, w)),
      otherHands(c, ended, s.wins),
      h("table", { class: "grid", id: "settle-table" },
        h("thead", {}, h("tr", {}, columns.map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, [0, 1, 2, 3].map((seat) => {
          const moved = silverMoved(ended, seat, c.stake);
          return h("tr", { dataset: { seat, moved }, class: seat === c.seat ? "mine" : "" },
            h("th", { scope: "row" }, `${c.windOf(seat)} ${nameIn(c)(seat)}`),
            h("td", { class: "num" }, signed(ended.net[seat])),
            houseAny ? h("td", { class: "num" }, fmt(ended.house_silver[seat])) : null,
            h("td", { class: `num ${moved < 0 ? "neg" : "pos"}` }, signed(moved)));
        }))),
      rest.length || penalties.length ? h("h3", {}, t("transfers")) : null,
      // every payment a sheet does not explain (penalties, 财神分, an escape) with its cause,
      // then the silver a disconnect cost (no points: apart from the table above)
      h("ul", { id: "settle-transfers", class: "transfers" }, rest.map((x) => {
        const cause = causeOf(c, ended)(x);
        return h("li", { dataset: { reason: x.reason } },
          `${nameIn(c)(x.payer)} → ${nameIn(c)(x.payee)}: ${fmt(x.points)} × ${fmt(c.stake)} = ${fmt(x.points * c.stake)} ${t("balance")} (${reason(x.reason)})`,
          cause ? h("small", { class: "cause" }, cause) : null);
      }), penalties.map((x) => penaltyItem(x, (seat) => nameIn(c)(seat)))),
      // the check of the deal comes after the score: what a player reads first is the result
      verifyMark(s)),
    c.spectator
      ? h("div", { class: "settle-foot" }, // a spectator: the result, nothing to answer
        h("p", { class: "next-hand" }, h("span", { id: "settle-countdown", role: "timer", "aria-live": "off" })),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary", id: "settle-close", onclick: () => c.closeSettlement() },
            t("view_board"))))
      : h("div", { class: "settle-foot" },
        h("p", { class: "my-result" }, `${t("silver_moved")}: `,
          h("strong", { id: "settle-moved" }, myMove === null ? "" : signed(myMove)),
          ` · ${t("your_balance")}: `,
          h("strong", { id: "settle-balance", dataset: { balance: s.balance ?? "" }, "aria-live": "polite" },
            s.balance === null ? t("balance_pending") : fmt(s.balance))),
        h("p", { class: "next-hand" }, h("span", { id: "settle-countdown", role: "timer", "aria-live": "off" }),
          " ", h("span", { class: "note" }, t("next_hand_note"))),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary", id: "settle-ready", onclick: () => c.sayReady() }, t("ready")),
          h("button", { type: "button", id: "settle-close", onclick: () => c.closeSettlement() }, t("view_board")),
          h("button", { type: "button", id: "settle-leave", onclick: () => c.leave() }, t("leave_table"))))));
}

// Before a discard that costs a penalty (丽水: the 财神, 1 point to each other seat).
export function confirmDialog(c) {
  const tile = c.confirming;
  const wild = wildName(c.variant);
  return h("div", { class: "overlay" },
    h("div", { id: "confirm-dialog", class: "card dialog confirm", role: "alertdialog", "aria-modal": "true",
      "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
    h("h2", { id: "confirm-title" }, t("confirm_wild_title", { wild }), " ", tileOf(c, tile)),
    h("p", { id: "confirm-text" }, t("confirm_wild_text", { wild, silver: fmt(3 * c.stake) })),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary danger", id: "confirm-yes", onclick: () => confirmDiscard(c, true) },
        t("confirm_wild_yes")),
      h("button", { type: "button", id: "confirm-no", onclick: () => confirmDiscard(c, false) }, t("confirm_cancel")))));
}
