// The replay viewer (#/replay/<hand id>): a recorded hand at a table, the four seats around a
// centre (the viewer's seat at the bottom), step by step (buttons, ← → Home End, a slider)
// or played by itself (play / pause, 0.5x to 4x), as the server lets this viewer see it: a
// player of the ended hand every seat's tiles (reveal=true), an administrator any seat, a
// public hand anyone, without an account (GET /replays/{id}). The last step shows the
// settlement as the table shows it (scoresheet.js), every payment with its cause. A player
// shares the replay: public, its link copied; private again.

import { api, session } from "./api.js";
import { fmt, h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { currentLang, reason, special, t } from "./i18n.js";
import { buildSteps } from "../kit/replay.js";
import { paymentCause, penaltyItem, unexplained } from "./payments.js";
import { scoreSheet } from "./scoresheet.js";
import { sortHand, tileElement, tileName } from "./tiles.js";

const WINDS = ["east", "south", "west", "north"];
const shownStep = new Map(); // hand id -> the step last shown, kept across a language switch
const viewSeat = new Map(); // hand id -> the seat an administrator looks through (none: every seat)
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 1200; // one step's time at 1x
let speed = 1; // kept across pages and languages

// The replay as shown: the server's answer, its steps and who is who.
export class Replay {
  constructor(data, me) {
    this.data = data;
    this.me = me;
    this.steps = buildSteps(data.events);
    this.seat = data.seat; // null: an administrator's view of every seat
  }

  get dealer() {
    return this.steps.length ? this.steps[0].state.dealer : 0;
  }

  wind(seat) {
    return t(WINDS[(seat - this.dealer + 4) % 4]);
  }

  // The player's name when the server sends names (a newer replay answer), else null.
  listedName(seat) {
    const listed = this.data.players || this.data.names;
    const found = Array.isArray(listed) ? listed[seat] : null;
    return (typeof found === "string" ? found : found && found.name) || null;
  }

  isMe(seat) {
    return Boolean(this.me) && this.data.seats[seat] === this.me.id;
  }

  // The seat shown at the bottom: the one viewed through, else the viewer's own, else 0.
  get bottom() {
    if (this.seat !== null && this.seat !== undefined) return this.seat;
    const mine = this.me ? this.data.seats.indexOf(this.me.id) : -1;
    return mine >= 0 ? mine : 0;
  }

  get player() {
    return Boolean(this.me) && this.data.seats.includes(this.me.id);
  }

  isBot(seat) {
    const listed = this.data.players;
    const found = Array.isArray(listed) ? listed[seat] : null;
    return Boolean(found && typeof found === "object" && found.bot);
  }

  // A seat in a sentence: its player's name, "you" for the viewer's seat, else its wind (东家).
  name(seat) {
    if (seat === null || seat === undefined) return "";
    if (this.isMe(seat)) return t("replay_you");
    return this.listedName(seat) ?? t("replay_seat_name", { wind: this.wind(seat) });
  }

  // A seat as a row label: its wind with the player's name or "you" (南家（你）, 西 bob).
  label(seat) {
    if (this.isMe(seat)) return t("replay_you_at", { wind: this.wind(seat) });
    const listed = this.listedName(seat);
    return listed ? `${this.wind(seat)} ${listed}` : t("replay_seat_name", { wind: this.wind(seat) });
  }

  wildWord() {
    const variant = this.data.variant;
    return t(variant === "fuzhou" ? "rp_wild_fuzhou" : variant === "huzhou" ? "rp_wild_huzhou" : "rp_wild_word");
  }
}

function tileOf(state, code, small = true) {
  const wild = state.wild;
  return tileElement(code, {
    small,
    wild: Boolean(wild && code && code === wild.wild),
    substitute: Boolean(wild && code && wild.substitute && code === wild.substitute && code !== wild.wild),
  });
}

// One event in words.
function eventText(r, e, state) {
  const name = r.name(e.seat);
  const tile = e.tile ? tileName(e.tile) : "";
  switch (e.kind) {
    case "hand_started":
      return t("rp_ev_hand_started", { dealer: r.name(e.dealer), dice: e.dice.join(" + ") });
    case "dealt":
      return "";
    case "wild_turned":
      return t("rp_ev_wild_turned", { indicator: tileName(e.indicator), wild: tileName(e.wild), label: r.wildWord() });
    case "decided": {
      const key = e.choice === "decline" && e.seat !== state.dealer ? "rp_decision_decline_counter" : `rp_decision_${e.choice}`;
      return t("rp_ev_decided", { name, choice: t(key) });
    }
    case "flowered":
      return t("rp_ev_flowered", { name, tile });
    case "drew":
      if (e.tile) return t("rp_ev_drew_tile", { name, tile });
      return t(e.from_tail ? "rp_ev_drew_tail" : "rp_ev_drew", { name });
    case "discarded":
      return t("rp_ev_discarded", { name, tile });
    case "melded": {
      const tiles = e.tiles ? e.tiles.map((x) => tileName(x)).join(" ") : "";
      const from = e.from_seat !== null && e.from_seat !== undefined ? ` ← ${r.name(e.from_seat)}` : "";
      return t("rp_ev_melded", { name, meld: t(`rp_meld_${e.meld}`), tiles }) + from;
    }
    case "penalized":
      return t("rp_ev_penalized", { name, reason: reason(e.reason) });
    case "gold_robbed":
      return t("rp_ev_gold_robbed", { name, tile });
    case "won":
      return e.tile ? t("rp_ev_won_on", { name, tile }) : t("rp_ev_won", { name });
    case "exhaustive_draw":
      return t("rp_ev_draw");
    case "escaped":
      return t("rp_ev_escaped", { name });
    case "hand_ended":
      return t("rp_ev_hand_ended", { outcome: t(`rp_outcome_${e.outcome}`) });
    default:
      return e.kind;
  }
}

function stepText(r, step) {
  return step.events.map((e) => eventText(r, e, step.state)).filter(Boolean).join(" · ");
}

function meldsOf(state, seat) {
  return h("div", { class: "rp-melds", role: "group", "aria-label": t("rp_melds") },
    seat.melds.map((m) => h("span", { class: `meld ${m.kind}`, "aria-label": t(`rp_meld_${m.kind}`) },
      (m.tiles || [null, null, null, null]).map((code) => {
        const el = tileOf(state, code);
        if (code && m.claimed === code) el.classList.add("claimed-in");
        return el;
      }))));
}

function seatPanel(r, step, seatNo, index) {
  const state = step.state;
  const seat = state.seats[seatNo];
  const wild = state.wild ? state.wild.wild : null;
  const acting = step.actor === seatNo && !state.ended;
  const won = state.wins.some((w) => w.seat === seatNo);
  const name = r.name(seatNo);
  const badges = [];
  if (state.dealer === seatNo) badges.push(h("span", { class: "badge dealer" }, t("rp_dealer")));
  if (seat.decision) {
    const key = seat.decision === "decline" && seatNo !== state.dealer ? "rp_decision_decline_counter" : `rp_decision_${seat.decision}`;
    badges.push(h("span", { class: "badge decision" }, t(key)));
  }
  if (won) badges.push(h("span", { class: "badge won" }, t("rp_winner")));
  let hand;
  if (seat.hand) {
    const tiles = [...seat.hand];
    const drew = step.actor === seatNo ? step.drawn : null; // the tile drawn in this step
    const drawn = drew && drew !== "hidden" && tiles.includes(drew) ? drew : null;
    if (drawn) tiles.splice(tiles.lastIndexOf(drawn), 1);
    hand = h("div", { class: "rp-hand", role: "group", "aria-label": t("rp_hand_of", { name }) },
      sortHand(tiles, wild).map((code) => tileOf(state, code)),
      drawn ? (() => {
        const el = tileOf(state, drawn);
        el.classList.add("drawn");
        return el;
      })() : null);
  } else {
    hand = h("div", { class: "rp-hand hidden-hand", role: "group", "aria-label": t("rp_hand_of", { name }) },
      tileElement(null, { small: true }),
      h("span", { class: "hidden-count" }, t("replay_hidden", { n: seat.count })));
  }
  const last = state.lastDiscard;
  return h("section", {
    class: `rp-seat place-${index}` + (acting ? " acting" : "") + (won ? " winner" : ""),
    id: `rp-seat-${seatNo}`, dataset: { seat: seatNo }, "aria-label": r.label(seatNo),
  },
  h("h3", { class: "rp-plate" }, h("span", { class: "name" }, r.label(seatNo)),
    r.isBot(seatNo) ? h("span", { class: "tag bot-tag" }, t("lobby_seat_bot")) : null, ...badges),
  hand,
  seat.melds.length ? meldsOf(state, seat) : null,
  seat.flowers.length ? h("div", { class: "rp-flowers", role: "group", "aria-label": t("rp_flowers") },
    h("span", { class: "rp-label" }, t("rp_flowers")), seat.flowers.map((f) => tileOf(state, f))) : null,
  h("div", { class: "rp-discards", role: "group", "aria-label": t("rp_discards") },
    seat.discards.map((d, i) => {
      const el = tileOf(state, d.tile);
      if (d.claimed) el.classList.add("claimed");
      if (last && last.seat === seatNo && i === seat.discards.length - 1 && !d.claimed) el.classList.add("last");
      return el;
    })));
}

function infoLine(r, state) {
  const parts = [];
  parts.push(h("span", { id: "rp-wall" }, t("rp_wall", { n: Math.max(0, state.wall) })));
  if (state.dice) parts.push(h("span", {}, t("rp_dice", { dice: state.dice.join(" + ") })));
  if (state.wild) {
    const label = r.wildWord();
    parts.push(h("span", { class: "rp-wild" }, `${t("rp_indicator")} `, tileOf(state, state.wild.indicator),
      ` ${label} `, tileElement(state.wild.wild, { small: true, wild: true })));
  }
  return h("p", { class: "rp-info" }, parts);
}

// The silver each seat's balance moved by with this hand: the server's `result` when it
// sends one, else from the stake when the answer has it, else unknown (null).
function silverMoved(r, ended) {
  if (r.data.result && Array.isArray(r.data.result.silver)) return r.data.result.silver;
  const stake = r.data.stake ?? null;
  if (stake === null) return null;
  const house = ended.house_silver || [0, 0, 0, 0];
  return ended.net.map((n, seat) => n * stake + house[seat]);
}

// The settlement of the last step as the table shows it: each win's score sheet (the base and
// why, the items, every payment as its formula with its cause, the whole hand), each seat's
// points and silver, and every other payment (penalties, 财神分, an escape) with its cause.
export function settlement(r, state) {
  const ended = state.ended;
  const silver = silverMoved(r, ended);
  const wild = state.wild ? state.wild.wild : null;
  const nameOf = (seat) => r.name(seat);
  const causeOf = (p) => paymentCause(ended, p, nameOf, wild);
  const sheetOf = { hand: { wild: state.wild }, variant: r.data.variant, nameOf };
  const wins = state.wins.map((w) => {
    const sheet = Array.isArray(ended.scores) ? ended.scores.find((x) => x.seat === w.seat) : null;
    return h("div", { class: "rp-win", dataset: { seat: w.seat } },
      h("h3", {}, `${t("rp_winner")}: ${r.name(w.seat)} · `,
        w.self_draw ? t("rp_self_draw") : t("rp_dealt_in", { name: r.name(w.from_seat) }),
        w.tile ? [" · ", tileOf(state, w.tile)] : null),
      sheet ? scoreSheet(sheetOf, sheet, causeOf) : h("p", {},
        `${t("rp_specials")}: ${w.specials.length ? w.specials.map(special).join(currentLang() === "zh" ? "、" : ", ") : t("rp_none")}`,
        ` · ${t("rp_multiplier")} ×${w.multiplier}`));
  });
  const net = ended.net || [0, 0, 0, 0];
  const houseSilver = ended.house_silver || [0, 0, 0, 0];
  const anyHouse = houseSilver.some((x) => x !== 0); // a house reward (湖州 起手四财神) is rare
  const rest = unexplained(ended);
  // a disconnect's penalty is no transfer of the hand: the server lists it with the result
  const penalties = (r.data.result && Array.isArray(r.data.result.penalties)) ? r.data.result.penalties : [];
  // .table-view: the score sheets look as at the table (its styles are scoped to it)
  return h("section", { id: "replay-settlement", class: "rp-settlement card table-view", "aria-labelledby": "rp-settle-title" },
    h("h2", { id: "rp-settle-title" }, `${t("rp_settlement")} · ${t(`rp_outcome_${ended.outcome}`)}`),
    r.data.voided ? h("p", { class: "notice" }, t("replay_voided")) : null,
    ...wins,
    h("div", { class: "scroll-x" }, h("table", { class: "grid", id: "rp-settle-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rp_player")), h("th", { scope: "col", class: "num" }, t("rp_net")),
        anyHouse ? h("th", { scope: "col", class: "num" }, t("rp_house")) : null,
        silver !== null ? h("th", { scope: "col", class: "num" }, t("rp_moved")) : null)),
      h("tbody", {}, [0, 1, 2, 3].map((seat) => {
        const moved = silver !== null ? silver[seat] : null;
        return h("tr", { dataset: { seat, net: net[seat] }, class: r.isMe(seat) ? "mine" : "" },
          h("th", { scope: "row" }, r.label(seat)),
          h("td", { class: `num ${net[seat] < 0 ? "neg" : net[seat] > 0 ? "pos" : ""}` }, (net[seat] > 0 ? "+" : "") + fmt(net[seat])),
          anyHouse ? h("td", { class: "num" }, fmt(houseSilver[seat])) : null,
          moved !== null ? h("td", { class: `num silver ${moved < 0 ? "neg" : moved > 0 ? "pos" : ""}`, dataset: { silver: moved } },
            (moved > 0 ? "+" : "") + fmt(moved)) : null);
      })))),
    rest.length || penalties.length ? h("h3", {}, t("rp_transfers")) : null,
    rest.length || penalties.length ? h("ul", { id: "rp-transfers", class: "transfers" }, rest.map((x) => {
      const cause = causeOf(x);
      return h("li", { dataset: { reason: x.reason } },
        t("rp_pays", { payer: r.name(x.payer), payee: r.name(x.payee), points: fmt(x.points), reason: reason(x.reason) }),
        cause ? h("small", { class: "cause" }, cause) : null);
    }), penalties.map((x) => penaltyItem(x, (s) => r.name(s)))) : null); // in silver: no points moved
}

// The share bar of a player of an ended hand: public (its link shown and copied) or not.
function shareBar(r, handId) {
  const bar = h("div", { class: "rp-share", id: "replay-share" });
  const link = `${location.origin}${location.pathname}#/replay/${encodeURIComponent(handId)}`;
  const note = h("span", { class: "note", id: "replay-share-note", role: "status" });
  async function copy(input) {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      document.execCommand("copy"); // a plain-http page has no clipboard API
    }
    note.textContent = t("replay_copied");
  }
  async function set(isPublic) {
    try {
      await api("PUT", `/hands/${encodeURIComponent(handId)}/public`, { public: isPublic });
      r.data.public = isPublic;
      draw();
      if (isPublic) await copy(bar.querySelector("#replay-link"));
    } catch (err) {
      note.dataset.code = err.code || "client";
      showErrorIn(note, err);
    }
  }
  function draw() {
    const input = h("input", { id: "replay-link", readonly: true, value: link, "aria-label": t("replay_link_label") });
    bar.dataset.public = String(Boolean(r.data.public));
    bar.replaceChildren(...(r.data.public
      ? [h("span", { class: "shared" }, t("replay_shared")), input,
        h("button", { type: "button", id: "replay-copy", onclick: () => copy(input) }, t("replay_copy")),
        h("button", { type: "button", id: "replay-unshare", onclick: () => set(false) }, t("replay_unshare"))]
      : [h("button", { type: "button", class: "primary", id: "replay-share-button", onclick: () => set(true) }, t("replay_share"))]),
    note);
  }
  draw();
  return bar;
}

async function load(handId, me, through) {
  const id = encodeURIComponent(handId);
  if (!me) return api("GET", `/replays/${id}`); // a public replay, no account
  if (through !== null) return api("GET", `/hands/${id}/replay?seat=${through}`);
  // a player: every seat's tiles once the hand has ended (the server decides)
  return api("GET", `/hands/${id}/replay${me.role === "admin" ? "" : "?reveal=true"}`);
}

export async function renderReplay(main, { handId, me }) {
  const error = h("p", { class: "form-error", role: "alert", id: "replay-error" });
  const root = h("div", { class: "replay", id: "replay-view", dataset: { hand: handId } },
    h("h1", { id: "replay-title" }, t("replay_title")), error);
  main.append(root);
  const admin = Boolean(me) && me.role === "admin";
  const through = admin ? viewSeat.get(handId) ?? null : null;
  const back = me ? h("a", { href: "#/profile", id: "replay-back" }, t("replay_back"))
    : h("a", { href: "#/login", id: "replay-back" }, t("replay_sign_in"));
  let data;
  try {
    data = await load(handId, me, through);
  } catch (err) {
    showErrorIn(error, err);
    root.append(h("p", {}, back));
    return;
  }
  const r = new Replay(data, me);
  const last = r.steps.length - 1;
  let at = Math.min(shownStep.get(handId) ?? 0, last);
  let timer = null;

  const stepLabel = h("span", { id: "replay-step", class: "rp-step" });
  const eventLine = h("p", { id: "replay-event", class: "rp-event", "aria-live": "polite" });
  const board = h("div", { class: "rp-board", id: "replay-board" });
  const end = h("div", { id: "replay-end" });
  const button = (id, label, text, go) => h("button", { type: "button", id, "aria-label": label,
    onclick: () => { pause(); show(go()); } }, text);
  const first = button("replay-first", t("replay_first"), "«", () => 0);
  const prev = button("replay-prev", t("replay_prev"), "◀", () => at - 1);
  const next = button("replay-next", t("replay_next"), "▶", () => at + 1);
  const lastButton = button("replay-last", t("replay_last"), "»", () => last);
  const play = h("button", { type: "button", id: "replay-play", class: "primary", onclick: () => (timer ? pause() : resume()) });
  const seek = h("input", { type: "range", id: "replay-seek", min: 0, max: Math.max(0, last), value: at,
    "aria-label": t("replay_seek") });
  seek.addEventListener("input", () => { pause(); show(Number(seek.value)); });
  const speeds = h("div", { class: "rp-speeds", role: "group", "aria-label": t("replay_speed") },
    SPEEDS.map((x) => h("button", { type: "button", id: `replay-speed-${String(x).replace(".", "_")}`, class: "speed",
      dataset: { speed: x }, "aria-pressed": String(x === speed),
      onclick: (ev) => {
        speed = x;
        for (const b of speeds.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b === ev.currentTarget));
        if (timer) { clearTimeout(timer); tick(); }
      } }, `${x}×`)));

  function labelPlay() {
    play.textContent = timer ? `⏸ ${t("replay_pause")}` : `▶ ${t("replay_play")}`;
    play.dataset.playing = String(Boolean(timer));
    play.setAttribute("aria-pressed", String(Boolean(timer)));
  }
  function tick() {
    timer = setTimeout(() => {
      if (!root.isConnected) return pause();
      show(at + 1);
      if (at >= last) pause();
      else tick();
    }, STEP_MS / speed);
    labelPlay();
  }
  function resume() {
    if (at >= last) show(0);
    tick();
  }
  function pause() {
    clearTimeout(timer);
    timer = null;
    labelPlay();
  }

  function show(index) {
    if (!r.steps.length) return;
    at = Math.max(0, Math.min(last, index));
    const step = r.steps[at];
    shownStep.set(handId, at);
    stepLabel.textContent = t("replay_step", { n: at + 1, total: r.steps.length });
    stepLabel.dataset.step = String(at);
    seek.value = String(at);
    eventLine.textContent = stepText(r, step);
    for (const [el, off] of [[first, at === 0], [prev, at === 0], [next, at === last], [lastButton, at === last]]) {
      el.setAttribute("aria-disabled", String(off));
      el.classList.toggle("off", off);
    }
    const own = r.bottom;
    board.replaceChildren(
      ...[0, 1, 2, 3].map((i) => seatPanel(r, step, (own + i) % 4, i)),
      h("div", { class: "rp-centre" }, infoLine(r, step.state), eventLine));
    end.replaceChildren(step.state.ended && at === last ? settlement(r, step.state) : "");
  }

  const onKey = (ev) => {
    if (!root.isConnected) {
      document.removeEventListener("keydown", onKey);
      return;
    }
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.target.closest("input, select, textarea")) return;
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last };
    if (!(ev.key in moves)) return;
    ev.preventDefault();
    pause();
    show(moves[ev.key]);
  };
  document.addEventListener("keydown", onKey);

  // an administrator chooses whose tiles to see (the server answers that seat's view)
  let perspective;
  if (admin) {
    const select = h("select", { id: "replay-view-seat" },
      h("option", { value: "" }, t("replay_all_seats")),
      [0, 1, 2, 3].map((seat) => h("option", { value: seat, selected: data.seat === seat }, r.label(seat))));
    select.addEventListener("change", () => {
      viewSeat.set(handId, select.value === "" ? null : Number(select.value));
      main.replaceChildren();
      renderReplay(main, { handId, me });
    });
    perspective = h("span", { class: "rp-view" }, h("label", { for: "replay-view-seat" }, t("replay_view")), " ", select);
  } else {
    perspective = data.seat !== null ? t("replay_seat", { wind: r.wind(data.seat) })
      : r.player ? t("replay_all_open") : t("replay_public_view");
  }
  const ended = data.ended_at ? new Date(data.ended_at) : null;
  root.append(
    h("p", { class: "rp-meta" },
      `${t(data.variant)} · ${handId}`,
      ended && !Number.isNaN(ended.getTime())
        ? ` · ${ended.toLocaleString(currentLang() === "zh" ? "zh-CN" : "en-GB", { dateStyle: "medium", timeStyle: "short" })}` : "",
      " · ", perspective),
    data.voided ? h("p", { class: "notice", id: "replay-voided" }, t("replay_voided")) : "",
    r.player && !data.voided ? shareBar(r, handId) : "",
    h("div", { class: "rp-controls", role: "toolbar", "aria-label": t("replay_title") },
      h("div", { class: "rp-buttons" }, first, prev, play, next, lastButton),
      stepLabel, seek, speeds),
    board,
    end,
    h("p", { class: "help" }, t("replay_keys")),
    h("p", {}, back));
  labelPlay();
  show(at);
}
