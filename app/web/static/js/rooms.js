// Private rooms (好友房, docs/rooms.md) around the table: the lobby's card (join by a
// six-digit code after seeing the room's rules; open one with a variant, stake, length,
// timers and house rules built from GET /rooms/options), a room's rules in words, its
// progress, the session scoreboard (大结算) shared by the table page's dialog, the room page
// (#/room/<code>) and the profile's list of my rooms. The table page's own parts (the
// room strip, the dissolve vote) are in tableroom.js.

import { api, ApiError } from "./api.js";
import { fmt, h } from "./dom.js";
import { codeText, showErrorIn } from "./errors.js";
import { currentLang, t } from "./i18n.js";
import { MIN_BALANCE_PER_STAKE, VARIANTS } from "./lobby.js";
import { botLevelField, botLevelName } from "./botlevel.js";

const MAX_HANDS = 64; // app/api/rooms.py
const MAX_QUAN = 16;
const MAX_BAN = 4;
const UNIT_MAX = { hands: MAX_HANDS, quan: MAX_QUAN, ban: MAX_BAN };
const HOUSE_TIMERS = { discard: 15, claim: 8 }; // RULES.md 1, the house's seconds
const LAST_ROOM = "zj-last-room"; // the code this browser last joined (a way back to it)
const CODE = /^[0-9]{6}$/;

// --- the options a room may change (GET /rooms/options, read once) ---------------------------

let optionsRead = null;

export function roomOptions() {
  optionsRead ??= api("GET", "/rooms/options").then((all) =>
    Object.fromEntries(all.map((v) => [v.variant, v.options]))).catch((err) => {
    optionsRead = null; // try again next time
    throw err;
  });
  return optionsRead;
}

function sentence(spec) {
  return currentLang() === "zh" ? spec.zh : spec.en;
}

function valueText(spec, value) {
  if (value === null) return t("room_no_cap");
  if (typeof value === "boolean") return t(value ? "room_on" : "room_off");
  return typeof value === "number" ? fmt(value) : String(value);
}

// --- a room in words ---------------------------------------------------------------------------

export function lengthText(length) {
  const key = length.unit !== "hands" ? `room_len_${length.unit}`
    : length.count === 1 ? "room_len_hand" : "room_len_hands";
  return t(key, { n: length.count });
}

// "第 2/8 局": the hand in play (or the next one) while open; the length played once over
export function progressText(room) {
  const count = room.length.count;
  const key = `room_progress_${room.length.unit}`;
  const n = room.status === "open" ? Math.min(room.hands_played + 1, count) : room.hands_played;
  return t(key, { n, count });
}

export function statusText(room) {
  if (room.status === "ended") return t("room_status_ended", { length: lengthText(room.length) });
  if (room.status === "dissolved") return t("room_status_dissolved");
  return t("room_status_open");
}

// The house rules the room changed, one line each: the option's sentence, then its value
// against the default (a switch: on or off). `specs`: the variant's options, when read.
export function houseRuleItems(room, specs) {
  const names = Object.keys(room.options || {});
  if (!names.length) return [h("li", { class: "rule-default" }, t("room_rules_default"))];
  return names.map((name) => {
    const value = room.options[name];
    const spec = (specs || []).find((o) => o.name === name);
    if (!spec) return h("li", { dataset: { option: name } }, `${name}: ${String(value)}`);
    if (spec.kind === "bool") {
      return h("li", { class: "rule-switch", dataset: { option: name, value: String(value) } },
        h("span", { class: `tag rule-tag ${value ? "on" : "off"}` }, t(value ? "room_on" : "room_off")), " ",
        h("span", { class: "rule-text" }, sentence(spec)));
    }
    return h("li", { class: "rule-value", dataset: { option: name, value: String(value) } },
      h("span", { class: "rule-text" }, sentence(spec)), t("room_colon"),
      h("strong", { class: "rule-now" }, valueText(spec, value)), " ",
      h("span", { class: "rule-was" }, t("room_default", { value: valueText(spec, spec.default) })));
  });
}

// The room's rules as a list of facts: variant and stake, length, timers, spectators, then
// the house rules changed from the variant's defaults.
export function rulesBlock(room, specs, { id = null } = {}) {
  const timers = room.timers || {};
  return h("div", { class: "room-rules", id },
    h("dl", { class: "room-facts" },
      h("dt", {}, t("variant")), h("dd", { dataset: { variant: room.variant } }, t(room.variant)),
      h("dt", {}, t("stake_short")), h("dd", {}, t("room_stake_value", { stake: fmt(room.stake) })),
      h("dt", {}, t("room_length")), h("dd", { class: "room-length" }, lengthText(room.length)),
      h("dt", {}, t("room_timers")), h("dd", {}, t("room_timers_value", {
        discard: fmt(timers.discard ?? HOUSE_TIMERS.discard), claim: fmt(timers.claim ?? HOUSE_TIMERS.claim) })),
      h("dt", {}, t("room_spectators")), h("dd", {}, t(room.spectators ? "room_spectators_yes" : "room_spectators_no")),
      h("dt", {}, t("bot_level")), h("dd", { class: "room-bot-level" }, botLevelName(room.bot_level))),
    h("h3", { class: "room-rules-title" }, t("room_rules")),
    h("ul", { class: "house-rules" }, houseRuleItems(room, specs)));
}

// --- the session scoreboard (大结算) ---------------------------------------------------------

function signed(n) {
  return (n > 0 ? "+" : "") + fmt(n);
}

function tone(n) {
  return n > 0 ? "pos" : n < 0 ? "neg" : "zero";
}

// The winner(s) of the session: the largest total, if anyone won points.
// The hands of the session that count (a voided hand moved nothing).
export function handsPlayed(room) {
  return room.scoreboard ? room.scoreboard.hands.filter((x) => x.outcome !== "voided").length : 0;
}

export function winnersOf(board) {
  if (!board || !board.players.length) return [];
  const top = Math.max(...board.points);
  if (top <= 0) return [];
  return board.players.map((p, i) => (board.points[i] === top ? i : null)).filter((i) => i !== null);
}

// The players ranked by their totals (a card each, the winner on top), then the hands as
// rows and the players as columns, the totals in the last row; the best hand marked.
export function scoreboardView(room, me) {
  const board = room.scoreboard;
  if (!handsPlayed(room)) { // nothing counted: at most a voided hand, which moved nothing
    const voided = Boolean(board && board.hands.length);
    return h("p", { class: "empty-note", id: "room-board-empty" },
      t("room_no_hands"), voided ? ` ${t("room_voided_note")}` : "");
  }
  const winners = new Set(winnersOf(board));
  const best = board.best;
  const bestCol = best ? board.players.findIndex((p) => p.account_id === best.account_id) : -1;
  const order = board.players.map((_, i) => i).sort((a, b) => board.points[b] - board.points[a]);
  const mine = (i) => me && board.players[i].account_id === me.id;
  const headline = winners.size ? h("p", { class: "room-winners", id: "room-winners" },
    h("span", { class: "tag winner-tag" }, t("room_big_winner")), " ",
    [...winners].map((i) => `${board.players[i].name} ${signed(board.points[i])}`).join(t("list_sep"))) : null;
  const ranks = h("ol", { class: "room-ranks", id: "room-ranks" }, order.map((i, place) => h("li", {
    class: "room-rank" + (winners.has(i) ? " winner" : "") + (mine(i) ? " mine" : ""),
    dataset: { account: board.players[i].account_id, points: board.points[i] },
  },
  h("span", { class: "rank-place", "aria-hidden": "true" }, String(place + 1)),
  h("span", { class: "rank-who" },
    h("span", { class: "rank-name", title: board.players[i].name }, board.players[i].name),
    winners.has(i) ? h("span", { class: "tag winner-tag" }, t("room_big_winner")) : null,
    mine(i) ? h("span", { class: "tag you-tag" }, t("lobby_seat_you")) : null),
  h("span", { class: "rank-score" },
    h("strong", { class: `rank-points ${tone(board.points[i])}` }, signed(board.points[i])), " ",
    h("span", { class: `rank-silver ${tone(board.silver[i])}` }, t("room_silver_n", { n: signed(board.silver[i]) })),
    h("span", { class: "rank-won" }, t("room_won_n", { n: board.hands.filter((x) => x.points[i] > 0).length }))))));

  const cell = (points, silver, extra = "") => points === null
    ? h("td", { class: `num absent${extra}`, dataset: { points: "", silver: "" } }, "–")
    : h("td", { class: `num ${tone(points)}${extra}`, dataset: { points, silver } },
      h("span", { class: "cell-points" }, signed(points)),
      h("span", { class: "cell-silver" }, signed(silver)));
  const head = h("tr", {}, h("th", { scope: "col", class: "hand-col" }, t("room_hand_col")),
    board.players.map((p, i) => h("th", { scope: "col", class: "player-col" + (mine(i) ? " mine" : "") +
      (winners.has(i) ? " winner" : ""), dataset: { account: p.account_id }, title: p.name },
    h("span", { class: "col-name" }, p.name))));
  const rows = board.hands.map((hand) => h("tr", { dataset: { hand: hand.number, outcome: hand.outcome },
    class: hand.outcome === "voided" ? "voided" : "" },
  h("th", { scope: "row", class: "hand-col" },
    h("span", {}, t("room_hand_n", { n: hand.number })),
    hand.outcome !== "win" ? h("small", { class: "outcome" }, t(`room_outcome_${hand.outcome}`)) : null),
  hand.points.map((points, i) => {
    const isBest = best && best.number === hand.number && i === bestCol;
    const td = cell(points, hand.silver[i], (isBest ? " best" : "") + (mine(i) ? " mine" : ""));
    if (isBest) td.append(h("span", { class: "best-mark", title: t("room_best") }, t("room_best")));
    return td;
  })));
  const total = h("tr", { class: "total" }, h("th", { scope: "row", class: "hand-col" }, t("room_total")),
    board.points.map((points, i) => cell(points, board.silver[i], (winners.has(i) ? " winner" : "") +
      (mine(i) ? " mine" : ""))));
  const bestLine = best && bestCol >= 0
    ? h("p", { class: "room-best", id: "room-best" }, t("room_best_line", {
      name: board.players[bestCol].name, n: best.number, points: signed(best.points) }))
    : null;
  return h("div", { class: "room-scoreboard" },
    headline,
    ranks,
    bestLine,
    h("p", { class: "room-board-note" }, t("room_board_note")),
    h("div", { class: "scroll-x room-board-wrap" },
      h("table", { class: "grid room-board", id: "room-board" },
        h("thead", {}, head), h("tbody", {}, rows), h("tfoot", {}, total))));
}

// --- the lobby's card ------------------------------------------------------------------------

function remember(code) {
  localStorage.setItem(LAST_ROOM, code);
}

// Sit in the room with this code and open its table; already sitting there opens it too.
export async function joinRoom(code, room = null) {
  try {
    const joined = await api("POST", `/rooms/${code}/join`);
    remember(code);
    location.hash = `#/table/${joined.room.table_id}`;
  } catch (err) {
    const here = room && err instanceof ApiError && (err.code === "already_seated" ||
      (err.code === "seated_elsewhere" && err.details && err.details.table_id === room.table_id));
    if (!here) throw err;
    remember(code);
    location.hash = `#/table/${room.table_id}`;
  }
}

// Who sits in an open room, by name (the table's players), the owner marked.
async function seatsOf(room) {
  let names = [null, null, null, null];
  try {
    const players = await api("GET", `/tables/${room.table_id}/players`);
    names = players.seats.map((s) => (s.name ? { name: s.name, bot: s.bot } : null));
  } catch {
    // the table closed meanwhile: the seats show as taken or free from the room
  }
  return room.seats.map((account, i) => (account === null ? null
    : { name: names[i] ? names[i].name : "…", bot: Boolean(names[i] && names[i].bot), owner: account === room.owner_id }));
}

function seatList(seats, me, room) {
  return h("ul", { class: "room-seats", "aria-label": t("seats") }, seats.map((p, i) => {
    if (!p) return h("li", { class: "seat-chip empty" }, t("lobby_seat_empty"));
    const mine = room.seats[i] === me.id;
    return h("li", { class: "seat-chip" + (p.bot ? " bot" : "") + (mine ? " mine" : ""), dataset: { name: p.name } },
      h("span", { class: "seat-name" }, p.name),
      p.owner ? h("span", { class: "tag owner-tag" }, t("room_owner")) : null,
      p.bot ? h("span", { class: "tag bot-tag" }, t("lobby_seat_bot")) : null,
      mine ? h("span", { class: "tag you-tag" }, t("lobby_seat_you")) : null);
  }));
}

// The join half: six digits (a number pad on phones); the room shows as soon as they are
// in, with its rules and seats; then Join.
function joinPart(me) {
  const error = h("p", { class: "form-error", role: "alert", id: "room-join-error" });
  const input = h("input", { id: "room-code", name: "room-code", inputmode: "numeric", pattern: "[0-9]{6}",
    maxlength: 6, autocomplete: "off", enterkeyhint: "go", placeholder: "000000",
    "aria-describedby": "room-join-error", class: "room-code-input" });
  const preview = h("div", { id: "room-preview", class: "room-preview", "aria-live": "polite" });
  const look = h("button", { type: "submit", id: "room-look" }, t("room_look"));
  let shown = null; // the code whose room is in the preview
  let asked = 0;

  async function show() {
    const code = input.value.trim();
    error.textContent = "";
    delete error.dataset.code;
    if (!CODE.test(code)) {
      preview.replaceChildren();
      shown = null;
      if (code) error.textContent = t("room_code_six");
      return;
    }
    const ask = ++asked;
    let room;
    let specs = null;
    try {
      room = await api("GET", `/rooms/${code}`);
      specs = (await roomOptions().catch(() => ({})))[room.variant] || null;
    } catch (err) {
      if (ask !== asked) return;
      preview.replaceChildren();
      shown = null;
      if (err instanceof ApiError && err.code === "not_found") {
        error.textContent = t("room_not_found");
        error.dataset.code = "not_found";
      } else showErrorIn(error, err);
      return;
    }
    if (ask !== asked) return;
    shown = code;
    if (room.status !== "open") {
      preview.replaceChildren(h("div", { class: "room-card over", dataset: { code, status: room.status } },
        h("p", { class: "room-head" }, h("strong", { class: "room-code-big" }, code), " ", statusText(room)),
        h("a", { href: `#/room/${code}`, class: "button", id: "room-open-board" }, t("room_scoreboard"))));
      return;
    }
    const seats = await seatsOf(room);
    if (ask !== asked) return;
    const free = room.seats.filter((s) => s === null).length;
    const here = room.seats.includes(me.id);
    const join = h("button", { type: "button", class: "primary", id: "room-join",
      disabled: !here && !free, onclick: async () => {
        error.textContent = "";
        join.disabled = true;
        try {
          await joinRoom(code, room);
        } catch (err) {
          join.disabled = false;
          showErrorIn(error, err);
        }
      } }, t(here ? "room_back_in" : free ? "room_join" : "room_full"));
    const needed = room.stake * MIN_BALANCE_PER_STAKE;
    preview.replaceChildren(h("div", { class: "room-card", dataset: { code, status: room.status } },
      h("p", { class: "room-head" },
        h("span", { class: "room-code-label" }, t("room_code")), " ",
        h("strong", { class: "room-code-big" }, code), " ",
        h("span", { class: "room-summary" }, `${t(room.variant)} · ${lengthText(room.length)}`)),
      rulesBlock(room, specs, { id: "room-preview-rules" }),
      h("h3", { class: "room-rules-title" }, t("room_who_sits", { n: 4 - free })),
      seatList(seats, me, room),
      me.balance < needed && !here
        ? h("p", { class: "stake-needs short" }, t("lobby_cannot_afford", { needed: fmt(needed), balance: fmt(me.balance) }))
        : null,
      h("div", { class: "row" }, join,
        // 旁观: a room whose owner lets people with its code watch
        room.spectators && !here ? h("a", { class: "button", id: "room-watch",
          href: `#/watch/${room.table_id}/${code}` }, t("room_watch")) : null)));
  }

  input.addEventListener("input", () => {
    const digits = input.value.replace(/\D/g, "").slice(0, 6);
    if (digits !== input.value) input.value = digits;
    if (digits.length === 6 && digits !== shown) show();
    else if (digits.length < 6 && shown) {
      shown = null;
      preview.replaceChildren();
    }
  });
  const form = h("form", { class: "room-join", id: "room-join-form", "aria-labelledby": "room-join-title",
    onsubmit: (ev) => {
      ev.preventDefault();
      show();
    } },
  h("h3", { id: "room-join-title" }, t("room_join_title")),
  h("label", { for: "room-code" }, t("room_code_label")),
  h("div", { class: "row" }, input, look),
  error, preview);
  return form;
}

// One control per option of the variant: a switch, a number within its bounds (with "no
// cap" when null is allowed) or a choice; labelled with its sentence, its default said.
function optionRow(spec, onChange) {
  const id = `opt-${spec.name}`;
  const error = h("p", { class: "opt-error form-error", role: "alert", id: `${id}-error` });
  const row = h("div", { class: "room-opt", dataset: { option: spec.name, kind: spec.kind } });
  let read;
  let reset;
  const defaultNote = h("span", { class: "opt-default" }, t("room_default", { value: valueText(spec, spec.default) }));
  if (spec.kind === "bool") {
    const box = h("input", { type: "checkbox", id, "aria-describedby": `${id}-error`, checked: Boolean(spec.default) });
    row.append(h("label", { class: "check opt-check", for: id }, box,
      h("span", { class: "opt-text" }, sentence(spec), " ", defaultNote)));
    box.addEventListener("change", onChange);
    read = () => box.checked;
    reset = () => { box.checked = Boolean(spec.default); };
  } else if (spec.kind === "choice") {
    const select = h("select", { id, "aria-describedby": `${id}-error` },
      spec.choices.map((c) => h("option", { value: c, selected: c === spec.default }, c)));
    row.append(h("label", { for: id, class: "opt-text" }, sentence(spec), " ", defaultNote), select);
    select.addEventListener("change", onChange);
    read = () => select.value;
    reset = () => { select.value = spec.default; };
  } else {
    const bounds = spec.minimum !== null && spec.maximum !== null
      ? t("room_bounds", { min: fmt(spec.minimum), max: fmt(spec.maximum) }) : "";
    const number = h("input", { type: "number", id, inputmode: "numeric", step: 1, class: "opt-number",
      min: spec.minimum ?? undefined, max: spec.maximum ?? undefined,
      value: spec.default === null ? "" : spec.default, "aria-describedby": `${id}-error ${id}-bounds` });
    const controls = h("div", { class: "opt-controls" }, number,
      h("span", { class: "opt-bounds", id: `${id}-bounds` }, bounds));
    let nocap = null;
    if (spec.nullable) {
      nocap = h("input", { type: "checkbox", id: `${id}-nocap`, checked: spec.default === null });
      nocap.addEventListener("change", () => {
        number.disabled = nocap.checked;
        onChange();
      });
      number.disabled = nocap.checked;
      controls.append(h("label", { class: "check nocap", for: `${id}-nocap` }, nocap, t("room_no_cap")));
    }
    row.append(h("label", { for: id, class: "opt-text" }, sentence(spec), " ", defaultNote), controls);
    number.addEventListener("input", onChange);
    read = () => {
      if (nocap && nocap.checked) return null;
      if (number.value === "") return spec.default;
      return Number(number.value);
    };
    reset = () => {
      number.value = spec.default === null ? "" : spec.default;
      if (nocap) nocap.checked = spec.default === null;
      number.disabled = Boolean(nocap && nocap.checked);
    };
  }
  row.append(error);
  const changed = () => read() !== spec.default;
  return { spec, row, read, reset, changed, error };
}

// The create half: variant, stake, length, timers, spectators, and the house rules of the
// chosen variant (collapsed); only the changed rules are sent.
function createPart(me) {
  const error = h("p", { class: "form-error", role: "alert", id: "room-create-error" });
  const variant = h("select", { id: "room-variant", name: "room-variant" },
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const stake = h("input", { id: "room-stake", type: "number", min: 1, max: 1000000, step: 1, value: 1,
    required: true, inputmode: "numeric", "aria-describedby": "room-stake-needs" });
  const needs = h("p", { id: "room-stake-needs", class: "stake-needs", "aria-live": "polite" });
  const count = h("input", { id: "room-length", type: "number", min: 1, max: MAX_HANDS, step: 1, value: 8,
    required: true, inputmode: "numeric" });
  const unit = h("select", { id: "room-unit", "aria-label": t("room_unit") },
    h("option", { value: "hands" }, t("room_unit_hands")),
    h("option", { value: "quan" }, t("room_unit_quan")),
    h("option", { value: "ban" }, t("room_unit_ban")));
  const discard = h("input", { id: "room-discard", type: "number", min: 1, max: 300, step: 1,
    inputmode: "numeric", placeholder: String(HOUSE_TIMERS.discard) });
  const claim = h("input", { id: "room-claim", type: "number", min: 1, max: 300, step: 1,
    inputmode: "numeric", placeholder: String(HOUSE_TIMERS.claim) });
  const watchers = h("input", { type: "checkbox", id: "room-spectators", checked: true });
  const level = botLevelField("room-bot-level"); // who plays the bots that fill its seats
  const rulesCount = h("span", { class: "rules-count", id: "room-rules-count" });
  const rulesList = h("div", { class: "room-opts", id: "room-opts" });
  const resetButton = h("button", { type: "button", id: "room-rules-reset", hidden: true }, t("room_reset_rules"));
  const rules = h("details", { class: "room-rules-edit", id: "room-rules" },
    h("summary", {}, h("span", {}, t("room_rules")), " ", rulesCount),
    h("p", { class: "note" }, t("room_rules_note")),
    rulesList, resetButton);
  const submit = h("button", { type: "submit", class: "primary", id: "room-create" }, t("room_create"));
  let rows = [];

  function countChanged() {
    const n = rows.filter((r) => r.changed()).length;
    rulesCount.textContent = n ? t("room_rules_changed", { n }) : t("room_rules_none");
    rulesCount.classList.toggle("changed", n > 0);
    resetButton.hidden = n === 0;
    for (const r of rows) r.row.classList.toggle("changed", r.changed());
  }

  async function drawOptions() {
    const chosen = variant.value;
    rulesList.replaceChildren(h("p", { class: "note" }, t("room_rules_loading")));
    let specs;
    try {
      specs = (await roomOptions())[chosen] || [];
    } catch (err) {
      const failed = h("p", { class: "form-error", role: "alert" });
      showErrorIn(failed, err);
      rulesList.replaceChildren(failed);
      rows = [];
      countChanged();
      return;
    }
    if (variant.value !== chosen) return;
    rows = specs.map((spec) => optionRow(spec, countChanged));
    rulesList.replaceChildren(...rows.map((r) => r.row));
    countChanged();
  }

  function checkStake() {
    const value = Number(stake.value);
    const valid = Number.isInteger(value) && value >= 1 && value <= 1000000;
    const needed = valid ? value * MIN_BALANCE_PER_STAKE : null;
    const short = needed !== null && me.balance < needed;
    needs.classList.toggle("short", short);
    needs.textContent = needed === null ? "" : t(short ? "lobby_cannot_afford" : "lobby_stake_needs",
      { needed: fmt(needed), balance: fmt(me.balance) });
    submit.disabled = short || !valid;
  }

  unit.addEventListener("change", () => {
    count.max = UNIT_MAX[unit.value];
    if (Number(count.value) > UNIT_MAX[unit.value]) count.value = 1;
  });
  variant.addEventListener("change", drawOptions);
  stake.addEventListener("input", checkStake);
  resetButton.addEventListener("click", () => {
    rows.forEach((r) => r.reset());
    countChanged();
  });

  const form = h("form", { class: "room-create", id: "room-create-form", "aria-labelledby": "room-create-title", novalidate: true },
    h("h3", { id: "room-create-title" }, t("room_create_title")),
    h("div", { class: "room-fields" },
      h("div", { class: "field" }, h("label", { for: "room-variant" }, t("variant")), variant),
      h("div", { class: "field" }, h("label", { for: "room-stake" }, t("stake")), stake),
      h("div", { class: "field" }, h("label", { for: "room-length" }, t("room_length")),
        h("div", { class: "row nowrap" }, count, unit)),
      h("div", { class: "field wide" }, h("span", { class: "field-label", id: "room-timers-label" }, t("room_timers_optional")),
        h("div", { class: "row nowrap", role: "group", "aria-labelledby": "room-timers-label" },
          h("label", { for: "room-discard", class: "inline-label" }, t("room_discard_s")), discard,
          h("label", { for: "room-claim", class: "inline-label" }, t("room_claim_s")), claim)),
      h("div", { class: "field wide" }, level.label, level.select, level.hint)),
    needs,
    h("label", { class: "check", for: "room-spectators" }, watchers, t("room_allow_spectators")),
    rules,
    error,
    h("div", { class: "row" }, submit));

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    for (const r of rows) r.error.textContent = "";
    const invalid = [...form.querySelectorAll("input")].find((el) => !el.disabled && !el.checkValidity());
    if (invalid) {
      const row = rows.find((r) => r.row.contains(invalid));
      if (row) {
        rules.open = true;
        row.error.textContent = t("room_option_bounds", { min: fmt(row.spec.minimum), max: fmt(row.spec.maximum) });
      } else error.textContent = t("room_check_fields");
      invalid.focus();
      return;
    }
    const options = Object.fromEntries(rows.filter((r) => r.changed()).map((r) => [r.spec.name, r.read()]));
    const timers = {};
    if (discard.value) timers.discard = Number(discard.value);
    if (claim.value) timers.claim = Number(claim.value);
    const body = {
      variant: variant.value, stake: Number(stake.value), options, spectators: watchers.checked,
      bot_level: level.select.value,
      length: { unit: unit.value, count: Number(count.value) },
      ...(Object.keys(timers).length ? { timers } : {}),
    };
    submit.disabled = true;
    try {
      const room = await api("POST", "/rooms", body);
      await joinRoom(room.code, room);
    } catch (err) {
      submit.disabled = false;
      showErrorIn(error, err);
      // a refused house rule is named: its sentence goes next to its control
      const name = err instanceof ApiError && err.details && err.details.option;
      const row = name && rows.find((r) => r.spec.name === name);
      if (row) {
        rules.open = true;
        const s = row.spec;
        row.error.textContent = s.kind === "int" && s.minimum !== null
          ? t("room_option_bounds", { min: fmt(s.minimum), max: fmt(s.maximum) }) : codeText(err.code);
        row.error.dataset.code = err.code;
        row.row.scrollIntoView({ block: "nearest" });
      }
      if (err instanceof ApiError && err.code === "insufficient_balance") checkStake();
    }
  });
  checkStake();
  drawOptions();
  return form;
}

// A way back to a room this player sits in (the lobby's list leaves rooms out).
async function myOpenRoom(me) {
  const sitting = (room) => room.status === "open" && room.seats.includes(me.id);
  try {
    const found = (await api("GET", "/me/rooms?limit=5")).find(sitting);
    if (found) return found;
  } catch {
    // none shown
  }
  // a room joined but not played in yet is not in /me/rooms: the code this browser joined
  const last = localStorage.getItem(LAST_ROOM);
  if (!last || !CODE.test(last)) return null;
  try {
    const room = await api("GET", `/rooms/${last}`);
    return sitting(room) ? room : null;
  } catch {
    return null;
  }
}

export function roomsCard({ me, onBack = () => {} }) {
  const back = h("p", { class: "room-back", id: "room-back", hidden: true });
  const card = h("section", { class: "card rooms-card", id: "rooms-card", "aria-labelledby": "rooms-title" },
    h("div", { class: "row rooms-head" },
      h("h2", { id: "rooms-title" }, t("room_title")),
      h("span", { class: "note" }, t("room_blurb"))),
    back,
    h("div", { class: "rooms-parts" }, joinPart(me), createPart(me)));
  myOpenRoom(me).then((room) => {
    if (!room) return;
    back.replaceChildren(h("a", { href: `#/table/${room.table_id}`, class: "button primary", id: "room-back-link" },
      t("room_back_to", { code: room.code, progress: progressText(room) })));
    back.hidden = false;
    onBack(); // a room in play: its way back is shown, never folded away
  });
  return card;
}

// --- the room page (#/room/<code>) and the profile's list --------------------------------------

export async function renderRoomPage(main, { code, me, join = false, extra = () => null }) {
  const room = await api("GET", `/rooms/${encodeURIComponent(code)}`);
  let refused = null;
  if (join && room.status === "open") { // an invite link: seated at once, or back at the table
    const here = room.seats.includes(me.id);
    if (here) {
      location.hash = `#/table/${room.table_id}`;
      return;
    }
    if (room.seats.includes(null)) {
      try {
        await joinRoom(code, room);
        return;
      } catch (err) {
        refused = err; // not seated (short of silver, seated elsewhere...): the page says why
      }
    }
  }
  const specs = (await roomOptions().catch(() => ({})))[room.variant] || null;
  const here = room.status === "open" && room.seats.includes(me.id);
  const error = h("p", { class: "form-error", role: "alert", id: "room-page-error" });
  if (refused) showErrorIn(error, refused);
  const action = room.status !== "open" ? null : here
    ? h("a", { href: `#/table/${room.table_id}`, class: "button primary", id: "room-page-table" }, t("room_back_in"))
    : h("button", { type: "button", class: "primary", id: "room-page-join", onclick: () =>
      joinRoom(code, room).catch((err) => showErrorIn(error, err)) }, t("room_join"));
  main.append(
    h("h1", {}, t("room_page_title", { code: room.code })),
    h("section", { class: "card room-page", id: "room-page", dataset: { code: room.code, status: room.status },
      "aria-labelledby": "room-page-status" },
    h("p", { class: "room-head", id: "room-page-status" },
      h("span", { class: `status-tag room-status ${room.status}` }, statusText(room)), " ",
      room.status === "open" ? h("span", {}, progressText(room)) : null),
    rulesBlock(room, specs),
    error,
    extra(room), // 再来一局 once over (app.js: roomrematch.js)
    h("div", { class: "row" }, action, h("a", { href: "#/lobby", class: "button", id: "room-page-lobby" }, t("room_back_lobby")))),
    h("section", { class: "card", "aria-labelledby": "room-board-title" },
      h("h2", { id: "room-board-title" }, t(room.status === "open" ? "room_board_so_far" : "room_scoreboard")),
      scoreboardView(room, me)));
}

// The rooms I opened or played in, newest first, each leading to its scoreboard.
export function myRoomsSection() {
  const list = h("ul", { class: "my-rooms", id: "my-rooms" });
  const error = h("p", { class: "form-error", role: "alert" });
  const section = h("section", { class: "card", "aria-labelledby": "my-rooms-title" },
    h("h2", { id: "my-rooms-title" }, t("room_mine")), error, list);
  Promise.all([api("GET", "/me/rooms"), api("GET", "/me")]).then(([rooms, me]) => {
    if (!rooms.length) {
      list.replaceChildren(h("li", { class: "empty-note" }, t("room_none")));
      return;
    }
    list.replaceChildren(...rooms.map((room) => {
      const board = room.scoreboard;
      const at = board ? board.players.findIndex((p) => p.account_id === me.id) : -1;
      const mine = at >= 0 ? board.points[at] : null;
      const won = at >= 0 && winnersOf(board).includes(at);
      return h("li", { class: "my-room", dataset: { code: room.code, status: room.status } },
        h("span", { class: "my-room-what" },
          h("strong", { class: "room-code-mid" }, room.code), " ",
          `${t(room.variant)} · ${lengthText(room.length)}`),
        h("span", { class: `status-tag room-status ${room.status}` }, statusText(room)),
        mine === null ? null : h("span", { class: `my-room-points ${tone(mine)}` }, t("room_my_total", { n: signed(mine) })),
        won ? h("span", { class: "tag winner-tag" }, t("room_big_winner")) : null,
        h("a", { href: `#/room/${room.code}`, class: "button room-board-link", dataset: { code: room.code } },
          t(room.status === "open" ? "room_open_page" : "room_scoreboard")));
    }));
  }).catch((err) => showErrorIn(error, err));
  return section;
}
