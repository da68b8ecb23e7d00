// 新手教学 (docs/practice.md): the guided first hand. The lobby offers it once to a new account
// (and keeps a small button for it); POST /practice makes a practice table of the player's own
// (丽水, stake 0, three house bots, a fixed friendly wall); at that table a bubble says at each
// moment what to do and points at it (the hand, the tile to throw and why, 碰, the ready
// mark, 胡), and the settlement ends with the win's payment explained and "play for real".
// The bubble never covers what it points at: it sits above or below its target, beside the
// action buttons. "Skip" hides it for the rest of the hand.

import { api, ApiError } from "./api.js";
import { fmt, h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { t } from "./i18n.js";
import { tileName } from "./tiles.js";

const TABLE_KEY = "guide_table"; // sessionStorage: the practice table this tab plays with the guide
const SKIPPED_KEY = "guide_skipped"; // sessionStorage: the table whose guide was skipped
const OFFER_KEY = "guide_offer_done"; // localStorage, per account: the lobby's offer was answered
const THROWS = ["1z", "9s"]; // the guide's discards, in order (app/rules/tutorial.py DISCARDS)
const GAP = 10; // px between the bubble and what it points at

// --- the lobby ---------------------------------------------------------------------------

function offered(me) {
  return localStorage.getItem(`${OFFER_KEY}_${me.id}`) === "1";
}

function played(me) {
  return Object.values(me.stats || {}).some((s) => (s.hands || 0) > 0);
}

// Make the practice table and open it (a live one of the player's is opened again).
export async function startPractice(error) {
  try {
    const seated = await api("POST", "/practice");
    openPractice(seated.table.id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "practice_open" && err.details && err.details.table_id) {
      openPractice(err.details.table_id);
      return;
    }
    showErrorIn(error, err);
  }
}

function openPractice(tableId) {
  sessionStorage.setItem(TABLE_KEY, tableId);
  sessionStorage.removeItem(SKIPPED_KEY);
  location.hash = `#/table/${tableId}`;
}

// The lobby's offer (a new account, once: answered either way, it is not shown again) and
// its small button, always there.
export function practiceOffer(me, error) {
  const done = () => localStorage.setItem(`${OFFER_KEY}_${me.id}`, "1");
  const start = () => {
    done();
    startPractice(error);
  };
  const button = h("button", { type: "button", id: "guide-open", class: "guide-open", onclick: start },
    t("guide_open"));
  if (offered(me) || played(me)) return h("div", { class: "guide-row" }, button);
  const card = h("section", { class: "card guide-offer", id: "guide-offer", "aria-labelledby": "guide-offer-title" },
    h("h2", { id: "guide-offer-title" }, t("guide_offer_title")),
    h("p", {}, t("guide_offer_text")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "guide-start", onclick: start }, t("guide_offer_start")),
      h("button", { type: "button", id: "guide-dismiss", onclick: () => {
        done();
        card.replaceWith(h("div", { class: "guide-row" }, button));
      } }, t("guide_offer_later"))));
  return card;
}

// --- the table ---------------------------------------------------------------------------

// The guide of the practice table this tab opened, else null.
export function guideFor(tableId) {
  return sessionStorage.getItem(TABLE_KEY) === tableId ? new Guide(tableId) : null;
}

class Guide {
  constructor(tableId) {
    this.tableId = tableId;
    this.introSeen = false; // the first bubble (the hand, the 财神) was read: "next"
  }

  get skipped() {
    return sessionStorage.getItem(SKIPPED_KEY) === this.tableId;
  }

  skip(c) {
    sessionStorage.setItem(SKIPPED_KEY, this.tableId);
    c.render();
  }

  // After each drawing of the table: the step now, its bubble, placed by its target.
  draw(main, c) {
    const view = main.querySelector("#table-view");
    if (!view || c.spectator) return;
    if (c.settlement && !c.settlement.closed) {
      this.ending(view, c);
      return;
    }
    if (this.skipped) return;
    const step = this.step(c);
    if (!step) return;
    const bubble = h("div", { class: "guide-bubble", id: "guide-bubble", role: "status", "aria-live": "polite",
      dataset: { step: step.name, target: step.target || "" } },
    h("p", { class: "guide-text" }, step.text),
    h("div", { class: "guide-buttons" },
      step.next ? h("button", { type: "button", class: "primary", id: "guide-next", onclick: () => {
        step.next();
        c.render();
      } }, t("guide_next")) : null,
      h("button", { type: "button", id: "guide-skip", class: "guide-skip", onclick: () => this.skip(c) },
        t("guide_skip"))));
    const arrow = h("span", { class: "guide-arrow", "aria-hidden": "true" });
    bubble.prepend(arrow);
    view.append(bubble);
    place(bubble, arrow, step.target ? view.querySelector(step.target) : null, view);
  }

  // What to do now: {name, text, target (a selector), next}.
  step(c) {
    const hand = c.hand;
    if (!hand || c.waiting || c.seat === null) return { name: "deal", text: t("guide_deal") };
    const legal = c.prompt ? c.prompt.legal : [];
    const types = new Set(legal.map((a) => a.type));
    if (types.has("hu")) return { name: "hu", text: t("guide_hu"), target: '#actions button.act[data-action="hu"]' };
    if (types.has("pung")) {
      const tile = hand.lastDiscard ? hand.lastDiscard.tile : null;
      return { name: "pung", target: '#actions button.act[data-action="pung"]',
        text: t("guide_pung", { tile: tile ? tileName(tile) : "" }) };
    }
    if (types.has("discard")) {
      const wild = hand.wild && hand.wild.wild;
      const started = hand.seats[c.seat].discards.length > 0; // back after a reload: no intro again
      if (!this.introSeen && !started) {
        return { name: "hand", target: wild ? "#my-hand button.tile.wild" : "#my-hand",
          text: t("guide_hand", { wild: wild ? tileName(wild) : "" }), next: () => { this.introSeen = true; } };
      }
      const marked = c.readyHints.map((r) => r.discard);
      const mine = hand.seats[c.seat].hand || [];
      const wanted = THROWS.find((x) => mine.includes(x) && (!marked.length || marked.includes(x))) ||
        marked[0] || null;
      if (marked.length && wanted) {
        return { name: "ready", target: `#my-hand button.tile.ready[data-tile="${wanted}"]`,
          text: t("guide_ready", { tile: tileName(wanted) }) };
      }
      if (wanted) {
        return { name: "discard", target: `#my-hand button.tile.legal[data-tile="${wanted}"]`,
          text: t("guide_discard", { tile: tileName(wanted) }) };
      }
      return { name: "discard_any", target: "#my-hand", text: t("guide_discard_any") };
    }
    if (c.waits && c.waits.length) return { name: "waiting", target: "#ready-strip", text: t("guide_waiting") };
    return { name: "others", text: t("guide_others") };
  }

  // The end: the payment in words and where to go next, inside the settlement (nothing covered).
  ending(view, c) {
    const body = view.querySelector("#settlement .settle-body");
    if (!body || body.querySelector("#guide-end")) return;
    const ended = c.settlement.ended;
    const me = c.seat;
    const paid = (ended.transfers || []).filter((x) => x.payee === me && x.payer !== me);
    const total = paid.reduce((sum, x) => sum + x.points, 0);
    const won = (ended.winners || []).includes(me);
    const lines = [];
    if (won) {
      const each = paid.length && paid.every((x) => x.points === paid[0].points) ? paid[0].points : null;
      lines.push(each !== null ? t("guide_end_won_each", { each: fmt(each), total: fmt(total) })
        : t("guide_end_won", { total: fmt(total) }));
      if (each === 6) lines.push(t("guide_end_formula"));
    } else {
      lines.push(t("guide_end_other"));
    }
    lines.push(t("guide_end_stake"));
    const error = h("p", { class: "form-error", role: "alert", id: "guide-error" });
    const box = h("section", { id: "guide-end", class: "guide-end", "aria-labelledby": "guide-end-title" },
      h("h3", { id: "guide-end-title" }, t(won ? "guide_end_title_won" : "guide_end_title")),
      lines.map((line) => h("p", {}, line)),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "guide-real", onclick: () => this.forReal(c, error) },
          t("guide_real")),
        h("button", { type: "button", id: "guide-lobby", onclick: () => this.toLobby(c, error) }, t("guide_lobby"))),
      error);
    body.querySelector("h2").after(box);
    // a practice table deals no other hand: no 准备, no countdown to it
    view.querySelectorAll("#settle-ready, #settlement .next-hand").forEach((el) => el.remove());
  }

  async leave(c) {
    sessionStorage.removeItem(TABLE_KEY);
    await api("POST", `/tables/${this.tableId}/leave`, {});
    c.stop();
  }

  // "Play for real": leave the practice table and queue for a 丽水 table (quick match).
  async forReal(c, error) {
    try {
      await this.leave(c);
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    localStorage.setItem("quick_variant", "lishui");
    sessionStorage.setItem("quick_now", "1"); // quickmatch.js queues at once
    sessionStorage.setItem("stay_in_lobby", "1");
    location.hash = "#/lobby";
  }

  async toLobby(c, error) {
    try {
      await this.leave(c);
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    location.hash = "#/lobby";
  }
}

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// From `top`, moved by `dir` (-1 up, +1 down) past every rectangle in the way: the first
// place where the bubble covers none of `rects`.
function clear(top, dir, left, box, rects) {
  for (let k = 0; k < 40; k++) {
    const r = { left, right: left + box.width, top, bottom: top + box.height };
    const hit = rects.filter((q) => overlaps(r, q));
    if (!hit.length) return top;
    top = dir < 0 ? Math.min(...hit.map((q) => q.top)) - GAP - box.height : Math.max(...hit.map((q) => q.bottom)) + GAP;
  }
  return top;
}

// Beside the target, above or below it, wherever the bubble covers neither the target nor a
// button (the hand's tiles, the bar's buttons) nor the ready strip or the turn's countdown,
// the nearer of the two; the arrow points at the target. Without a target, as near the hand as it covers no button
// (the table's centre stays in view: whose turn it is, the 财神).
function place(bubble, arrow, target, view) {
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  const box = bubble.getBoundingClientRect();
  const anchor = target || view.querySelector("#my-hand") || view;
  const aim = anchor.getBoundingClientRect();
  const rects = [...view.querySelectorAll("button, #ready-strip, #table-status, #actions .my-timer")]
    .filter((el) => !bubble.contains(el))
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width && r.height);
  if (target) rects.push(aim);
  const left = Math.min(Math.max(8, aim.left + aim.width / 2 - box.width / 2), vw - box.width - 8);
  const fits = (top) => top >= 4 && top + box.height <= vh - 4;
  const middle = aim.top + aim.height / 2 - box.height / 2;
  const up = clear(target ? aim.top - GAP - box.height : middle, -1, left, box, rects);
  const down = clear(target ? aim.bottom + GAP : middle, 1, left, box, rects);
  const farUp = aim.top - (up + box.height);
  const farDown = down - aim.bottom;
  let top;
  let below = false;
  if (fits(up) && (!fits(down) || farUp <= farDown)) top = up;
  else if (fits(down)) {
    top = down;
    below = true;
  } else if (target && sideways(bubble, arrow, aim, box, rects, vh)) {
    target.classList.add("guide-target");
    return;
  } else { // nowhere clear: beside the target on its roomier side, within the screen
    below = vh - aim.bottom > aim.top;
    top = below ? Math.min(aim.bottom + GAP, vh - box.height - 4) : Math.max(4, aim.top - GAP - box.height);
  }
  bubble.style.left = `${left}px`;
  bubble.style.top = `${top}px`;
  bubble.classList.toggle("below", below);
  if (!target) {
    arrow.hidden = true;
    return;
  }
  target.classList.add("guide-target");
  arrow.style.left = `${Math.min(Math.max(12, aim.left + aim.width / 2 - left - 8), box.width - 28)}px`;
}

// A short screen (a phone on its side): left of the target, level with it, if that covers
// nothing; the arrow on the bubble's right edge. False when it does not fit there.
function sideways(bubble, arrow, aim, box, rects, vh) {
  const left = aim.left - GAP - box.width;
  const top = Math.min(Math.max(4, aim.top + aim.height / 2 - box.height / 2), vh - box.height - 4);
  const r = { left, right: left + box.width, top, bottom: top + box.height };
  if (left < 4 || top < 4 || rects.some((q) => overlaps(r, q))) return false;
  bubble.style.left = `${left}px`;
  bubble.style.top = `${top}px`;
  bubble.classList.add("left");
  arrow.style.top = `${Math.min(Math.max(10, aim.top + aim.height / 2 - top - 8), box.height - 26)}px`;
  return true;
}
