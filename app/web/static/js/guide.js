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
    place(bubble, arrow, step.target ? view.querySelector(step.target) : null,
      [...view.querySelectorAll("#actions button, #my-hand button.tile")]);
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
      if (!this.introSeen) {
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

// Above the target when it fits there without covering a button of the hand or the bar,
// else below it; without a target, at the top of the board. The arrow points at the target.
function place(bubble, arrow, target, buttons) {
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  const box = bubble.getBoundingClientRect();
  if (!target) {
    bubble.classList.add("free");
    bubble.style.left = `${Math.max(8, (vw - box.width) / 2)}px`;
    bubble.style.top = "56px";
    arrow.hidden = true;
    return;
  }
  target.classList.add("guide-target");
  const aim = target.getBoundingClientRect();
  const left = Math.min(Math.max(8, aim.left + aim.width / 2 - box.width / 2), vw - box.width - 8);
  const covers = (top) => {
    const r = { left, right: left + box.width, top, bottom: top + box.height };
    return overlaps(r, aim) || buttons.some((b) => overlaps(r, b.getBoundingClientRect()));
  };
  // above the target, moved up past any button in the way; else below it
  let top = aim.top - GAP - box.height;
  for (const b of buttons) {
    const r = b.getBoundingClientRect();
    if (covers(top) && r.top < aim.top) top = Math.min(top, r.top - GAP - box.height);
  }
  let below = false;
  if (top < 4) {
    top = Math.min(aim.bottom + GAP, vh - box.height - 4);
    below = true;
  }
  bubble.style.left = `${left}px`;
  bubble.style.top = `${Math.max(4, top)}px`;
  bubble.classList.toggle("below", below);
  arrow.style.left = `${Math.min(Math.max(12, aim.left + aim.width / 2 - left - 8), box.width - 28)}px`;
}
