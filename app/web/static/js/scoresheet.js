// A win explained, from the `scores` of hand_ended (one ScoreSheet per win): the base and
// why, each named item with its value (those a higher item replaced dimmed), the rule and the
// total, every payment as its formula, and the whole winning hand grouped into the sets of
// the reading that scored (wilds show what they stand for), its melds, flowers and the
// winning tile apart.

import { h, fmt } from "./dom.js";
import { baseReasonText, itemName, itemValue, ruleText, t, termName, reason } from "./i18n.js";
import { wildName } from "./tablerules.js";
import { tileElement, tileName } from "./tiles.js";

function tileOf(c, code, extra = {}) {
  const wild = c.hand && c.hand.wild;
  return tileElement(code, { small: true, wild: Boolean(wild && code === wild.wild),
    wildName: wildName(c.variant), ...extra });
}

function items(sheet) {
  if (!sheet.items.length) return h("p", { class: "score-items none" }, t("score_no_items"));
  return h("ul", { class: "score-items" }, sheet.items.map((item) =>
    h("li", { class: `score-item${item.counted ? "" : " not-counted"}`, dataset: { key: item.key, counted: String(item.counted) },
      title: item.counted ? null : t("score_not_counted") },
    h("span", { class: "item-name" }, itemName(item)),
    h("span", { class: "item-value" }, itemValue(item)))));
}

function term(x) {
  const value = x.times === 1 ? fmt(x.value) : `${fmt(x.value)}×${fmt(x.times)}`;
  return h("span", { class: "term", dataset: { key: x.key } }, value, h("small", {}, termName(x.key)));
}

function joined(parts, sep) {
  const out = [];
  parts.forEach((p, i) => { if (i) out.push(sep); out.push(p); });
  return out;
}

// "阿明 付 (底 3 + 犯枪 1) × 倍数 2 = 8", and why under it when the payment has a cause
// (统包: who fed whom three 吃; 犯枪; 抢杠)
function formula(c, p, causeOf) {
  const sum = joined(p.terms.map(term), " + ");
  const grouped = p.terms.length > 1 && p.factors.length ? ["(", ...sum, ")"] : sum;
  const factors = p.factors.flatMap((x) => [" × ", term(x)]);
  const raw = p.terms.reduce((n, x) => n + x.value * x.times, 0) *
    p.factors.reduce((n, x) => n * x.value * x.times, 1);
  const who = p.share_of !== p.payer ? ` ${t("score_for", { name: c.nameOf(p.share_of) })}` : "";
  return h("li", { class: "formula", dataset: { payer: p.payer, points: p.points } },
    h("span", { class: "payer" }, `${c.nameOf(p.payer)} ${t("score_pays")}${who}`), " ",
    p.reason !== "win" ? h("span", { class: "why" }, `${reason(p.reason)}: `) : null,
    grouped, factors, " = ", raw !== p.points ? `${fmt(raw)} → ` : null, h("strong", { class: "points" }, fmt(p.points)),
    p.cap !== null && p.cap !== undefined ? h("span", { class: "cap" }, ` (${t("score_cap")} ${fmt(p.cap)})`) : null,
    causeOf && causeOf(p) ? h("small", { class: "cause", dataset: { reason: p.reason } }, causeOf(p)) : null);
}

// one tile of a group; a wild standing for another tile says which, under it
function groupTile(c, code, playsAs, winning) {
  const el = tileOf(c, code);
  if (winning) el.classList.add("winning");
  if (playsAs === code) return el;
  return h("span", { class: "stands", title: `${tileName(code)} → ${tileName(playsAs)}` },
    el, h("span", { class: "plays-as", "aria-label": `= ${tileName(playsAs)}` }, "=",
      tileElement(playsAs, { small: true, label: `= ${tileName(playsAs)}` })));
}

function hand(c, sheet) {
  // the winning tile is marked in the last group that holds it
  const win = sheet.winning_tile;
  let at = -1;
  sheet.groups.forEach((g, i) => { if (win && g.tiles.includes(win)) at = i; });
  const groups = sheet.groups.map((g, i) => ({ g, mark: i === at ? g.tiles.lastIndexOf(win) : -1 }));
  return h("div", { class: "whole-hand scored-hand", role: "group", "aria-label": t("winning_hand") },
    groups.map(({ g, mark }) => h("span", { class: `set group ${g.shape}`, dataset: { shape: g.shape } },
      h("small", { class: "set-label" }, t(`shape_${g.shape}`)),
      h("span", { class: "set-tiles" }, g.tiles.map((code, i) => groupTile(c, code, g.plays_as[i], i === mark))))),
    sheet.melds.map((m) => h("span", { class: `set meld ${m.meld}`, title: t(`meld_${m.meld}`) },
      h("small", { class: "set-label" }, t(`meld_${m.meld}`)),
      h("span", { class: "set-tiles" }, m.tiles.map((code) => tileOf(c, code))))),
    sheet.flowers.length ? h("span", { class: "set flowers-set" },
      h("small", { class: "set-label" }, `${t("seat_flowers")} ${sheet.flowers.length}`),
      h("span", { class: "set-tiles" }, sheet.flowers.map((code) => tileOf(c, code)))) : null,
    sheet.winning_tile ? h("span", { class: "set winning-set" },
      h("small", { class: "set-label" }, t("score_winning_tile")),
      h("span", { class: "set-tiles" }, tileOf(c, sheet.winning_tile))) : null);
}

// `causeOf(payment)`: the sentence that says why a payment was paid (payments.js), or none.
export function scoreSheet(c, sheet, causeOf = null) {
  const total = h("p", { class: "score-total" },
    h("span", { class: "rule" }, ruleText(sheet.rule)), " ",
    h("strong", { class: "total", dataset: { total: sheet.total } }, `${t("score_total")} ${fmt(sheet.total)}`),
    sheet.cap !== null && sheet.cap !== undefined ? h("span", { class: "cap" }, ` (${t("score_cap")} ${fmt(sheet.cap)})`) : null);
  return h("div", { class: "score-sheet", dataset: { seat: sheet.seat } },
    h("p", { class: "score-base", dataset: { base: sheet.base, reason: sheet.base_reason.key } },
      h("strong", {}, `${t("base")} ${fmt(sheet.base)}`), " · ", baseReasonText(sheet.base_reason, (seat) => c.nameOf(seat))),
    items(sheet),
    total,
    h("ul", { class: "formulas" }, sheet.payments.map((p) => formula(c, p, causeOf && ((x) => causeOf({ ...x, payee: sheet.seat }))))),
    hand(c, sheet));
}
