// The table's life, as players of 雀魂 expect it: a big short callout over a seat's place when
// it claims or wins (碰! 杠! 吃! 胡! 自摸!), a sound for a discard, a claim, a win and this
// seat's turn (sound.js), a pulse of the turn hint, and the sound and motion settings in the
// table's bar. The table is drawn anew at every change, so what moves is laid over each
// drawing here with its animation started in the past (a negative delay): it goes on where
// it was rather than starting again.
//
// Events that come in a burst (a resume after a reload or a lost connection brings the
// hand's events at once) are the past being caught up on: they make no callout and no sound.

import { autoplayChoice } from "./autolevel.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { isMuted, play, reducedMotion, setMuted, setReducedMotion } from "./sound.js";

const LIFE_MS = { claim: 1100, win: 1500 }; // how long a callout stays (it fades out at its end)
const FADE_MS = 300; // the last part of that: the fade (client.css .callout)
const PULSE_MS = 1600; // the turn hint's pulse (client.css, two beats)
const BURST = 4; // more events than this before a drawing: a catch-up, not play
const KONGS = new Set(["exposed_kong", "concealed_kong", "added_kong"]);
const SVG = "http://www.w3.org/2000/svg";
const PLACES = ["bottom", "right", "top", "left"]; // where a seat sits on this page (tableview.js)

// what an event calls out: [callout kind, sound], or null
function calloutOf(e) {
  if (e.kind === "melded") {
    return [KONGS.has(e.meld) ? "kong" : e.meld, "claim"];
  }
  if (e.kind === "won") return [e.self_draw ? "self_draw" : "hu", "win"];
  return null;
}

export class TableFx {
  constructor() {
    this.pending = []; // events since the last drawing
    this.callouts = new Map(); // seat -> {kind, at, until}
    this.turnAt = null; // when this seat's turn to discard came
    this.turnDue = false; // its tick, played at the next drawing (after a claim's chime)
    this.menuOpen = false;
  }

  event(e) {
    this.pending.push(e);
  }

  // a prompt to discard that the page had not had: this seat's turn
  prompt(m, fresh) {
    if (!fresh || !m.legal_actions.some((a) => a.type === "discard")) return;
    this.turnAt = Date.now();
    this.turnDue = true;
  }

  // the events since the last drawing become callouts and sounds, unless they are a burst
  flush() {
    const events = this.pending;
    const turn = this.turnDue;
    this.pending = [];
    this.turnDue = false;
    if (events.length > BURST) return;
    const now = Date.now();
    let sound = null;
    for (const e of events) {
      if (e.kind === "hand_started") this.callouts.clear();
      if (e.kind === "discarded") sound = sound || "discard";
      const call = calloutOf(e);
      if (!call) continue;
      const [kind, kindOfSound] = call;
      this.callouts.set(e.seat, { kind, at: now, until: now + LIFE_MS[kindOfSound] });
      if (sound !== "win") sound = kindOfSound;
    }
    if (sound) play(sound);
    if (turn) play("turn", sound ? 0.3 : 0); // after what brought the turn
  }

  // a callout past its time: true when the table should be drawn again without it
  tick() {
    const now = Date.now();
    let over = false;
    for (const [seat, call] of this.callouts) {
      if (now >= call.until) {
        this.callouts.delete(seat);
        over = true;
      }
    }
    return over;
  }

  // lays the callouts, the turn pulse and the settings over a drawing of the table
  decorate(view, c) {
    this.flush();
    const still = reducedMotion();
    view.classList.toggle("reduced-motion", still);
    const now = Date.now();
    for (const [seat, call] of this.callouts) {
      const board = view.querySelector(".board");
      if (!board || now >= call.until) continue;
      const big = call.kind === "hu" || call.kind === "self_draw";
      const place = PLACES[(seat - (c.seat ?? 0) + 4) % 4];
      const el = h("p", { class: `callout at-${place}` + (big ? " big" : ""), id: `callout-${seat}`,
        dataset: { kind: call.kind, seat, at: call.at }, "aria-hidden": "true" }, t(`callout_${call.kind}`));
      const age = now - call.at;
      const fadeAt = call.until - call.at - FADE_MS;
      if (!still) el.style.animationDelay = `${-age}ms, ${fadeAt - age}ms`;
      board.append(el);
    }
    const hint = view.querySelector("#your-turn");
    if (hint && this.turnAt && !still && now - this.turnAt < PULSE_MS) {
      for (const el of [hint, view.querySelector("#my-hand")]) {
        if (!el) continue;
        el.classList.add("turn-pulse");
        el.style.animationDelay = `${this.turnAt - now}ms`;
      }
    }
    const bar = view.querySelector(".table-bar");
    if (bar) bar.insertBefore(this.controls(c), bar.querySelector("#leave"));
  }

  // the sound button (a speaker, crossed out when muted) and its small menu: sound on or
  // off, reduced motion, and (for a seated player) the level of their 托管. One 40x40 slot in the bar: a phone's bar has no room for two.
  controls(c) {
    const muted = isMuted();
    const still = reducedMotion();
    const redraw = () => c.render();
    const close = (ev) => {
      if (ev.key !== "Escape" || !this.menuOpen) return;
      ev.stopPropagation(); // not the table's Escape (过)
      this.menuOpen = false;
      redraw();
    };
    const label = t(muted ? "fx_settings_muted" : "fx_settings");
    const box = h("span", { class: "fx-controls", onkeydown: close },
      h("button", { type: "button", id: "fx-settings", class: "icon-button" + (muted ? " muted" : ""),
        "aria-expanded": String(this.menuOpen), "aria-controls": "fx-menu", "aria-label": label, title: label,
        dataset: { muted: muted ? "1" : "0" },
        onclick: () => { this.menuOpen = !this.menuOpen; redraw(); } }, speaker(muted)));
    if (this.menuOpen) {
      box.append(h("div", { id: "fx-menu", class: "fx-menu", role: "group", "aria-label": t("fx_settings") },
        toggle("fx-sound", !muted, t("fx_sound"), () => setMuted(!isMuted()), redraw),
        toggle("fx-motion", still, t("fx_reduced_motion"), () => setReducedMotion(!reducedMotion()), redraw),
        h("p", { class: "fx-note" }, t("fx_motion_note")),
        c.spectator ? null : autoplayChoice(c, redraw)));
    }
    return box;
  }
}

function toggle(id, on, label, flip, redraw) {
  return h("button", { type: "button", id, class: "fx-toggle" + (on ? " on" : ""), role: "switch",
    "aria-checked": String(on), onclick: () => { flip(); redraw(); } },
  h("span", { class: "fx-switch", "aria-hidden": "true" }), label);
}

// a speaker, with sound waves, or crossed out when muted
function speaker(muted) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const paths = ["M3 9h4l5-4v14l-5-4H3z",
    ...(muted ? ["M16 9l6 6", "M22 9l-6 6"] : ["M16 8.5a5 5 0 0 1 0 7", "M18.5 6a8.5 8.5 0 0 1 0 12"])];
  for (const d of paths) {
    const p = document.createElementNS(SVG, "path");
    p.setAttribute("d", d);
    svg.append(p);
  }
  return svg;
}
