// The lobby (大厅): tables by variant and stake with who sits at each seat, opening a table
// (told before it is made when the stake is more than the player's silver allows), sitting
// down, quick join. The first screen has one way to play: quick match, big, at the top; the
// tournaments (比赛场, events.js), the private rooms and the tables (browse, open one) are
// sections below, folded on a phone.

import { howToWinButton } from "./howtowin.js";
import { practiceOffer } from "./guide.js";
import { api, ApiError } from "./api.js";
import { h, fmt } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { t } from "./i18n.js";
import { quickMatchCard } from "./quickmatch.js";
import { roomsCard } from "./rooms.js";
import { eventsCard } from "./events.js";
import { titleName } from "./ranks.js";
import { botLevelField, botLevelName } from "./botlevel.js";

export const VARIANTS = ["lishui", "wenzhou", "huzhou", "fuzhou", "shanghai"];

// Sitting needs this many times the stake in silver (app/tables/registry.py
// MIN_BALANCE_PER_STAKE); the server refuses with insufficient_balance otherwise.
export const MIN_BALANCE_PER_STAKE = 100;
const BOT_PREFIX = "bot-"; // the house's bots (app/store/house.py), when a seat has no bot flag
const MAX_PLAYER_READS = 24; // tables whose seats are read one by one when the list has no names
// wider and taller than a phone (upright or on its side): the lobby's sections start open
const UNFOLDED = "(min-width: 700px) and (min-height: 600px)";

// the sections a player opened or folded in this tab: the lobby drawn again (a language
// switch, a return from a table, a second drawing as the page settles) keeps them so
const folds = new Map();

// A section of the lobby below quick match: a summary to tap, open from the start on a wide
// screen, then as the player left it.
function section(id, name, note, ...body) {
  const open = folds.has(id) ? folds.get(id) : matchMedia(UNFOLDED).matches;
  const details = h("details", { class: "lobby-section", id, open },
    h("summary", {}, h("span", { class: "section-name" }, name), h("span", { class: "section-note" }, note)),
    ...body);
  details.addEventListener("toggle", () => folds.set(id, details.open));
  return details;
}

function byVariantAndStake(a, b) {
  return VARIANTS.indexOf(a.variant) - VARIANTS.indexOf(b.variant) || a.stake - b.stake ||
    b.seats_taken - a.seats_taken;
}

// The account id sitting at a seat of a listed table: the list gives ids (or, from a newer
// server, seat objects that carry one).
function accountAt(seat) {
  if (seat === null || seat === undefined) return null;
  if (typeof seat === "object") return seat.account_id ?? seat.id ?? null;
  return seat;
}

export function seatedAt(table, me) {
  return (table.seats || []).some((s) => accountAt(s) === me.id);
}

// Who sits at each of the four seats, {name, title, bot, account} or null when empty: from
// the list itself when the server names the players there, else from `known` (the
// players read per table).
function peopleOf(table, known) {
  const listed = Array.isArray(table.players) ? table.players : null;
  return [0, 1, 2, 3].map((i) => {
    const account = accountAt((table.seats || [])[i]);
    const fromList = listed ? listed.find((p) => p && p.seat === i) ?? listed[i] : null;
    const fromSeat = typeof (table.seats || [])[i] === "object" ? table.seats[i] : null;
    const read = known ? known[i] : null;
    const p = [fromList, fromSeat, read].find((x) => x && x.name) || null;
    if (!p) return account === null ? null : { name: null, title: null, bot: false, account };
    return { name: p.name, title: p.title ?? null, bot: Boolean(p.bot) || p.name.startsWith(BOT_PREFIX), account };
  });
}

function namesListed(table) {
  const listed = Array.isArray(table.players) ? table.players : (table.seats || []);
  return listed.some((p) => p && typeof p === "object" && "name" in p);
}

// The players of tables whose list entry has no names, read once per table and seating.
const playerCache = new Map();

async function readPlayers(tables) {
  const wanted = tables.filter((x) => x.seats_taken > 0 && !namesListed(x)).slice(0, MAX_PLAYER_READS);
  await Promise.all(wanted.map(async (table) => {
    const key = `${table.id}:${(table.seats || []).map(accountAt).join(",")}`;
    if (playerCache.has(key)) return;
    try {
      const found = await api("GET", `/tables/${table.id}/players`);
      playerCache.set(key, found.seats);
    } catch {
      // the table closed between the list and this read: it shows without names
    }
  }));
  return (table) => playerCache.get(`${table.id}:${(table.seats || []).map(accountAt).join(",")}`) || null;
}

export async function sitAt(tableId) {
  await api("POST", `/tables/${tableId}/sit`, {});
  location.hash = `#/table/${tableId}`;
}

// Quick join (快速加入): the fullest waiting table of this variant and stake with a free seat,
// or a new one.
// A new table gets the form's bots' level; joining takes any level (the player wants a seat).
export async function quickJoin(variant, stake, botLevel = "standard") {
  const tables = await api("GET", "/tables");
  const open = tables
    .filter((x) => x.variant === variant && x.stake === stake && x.seats_taken < 4)
    .sort((a, b) => b.seats_taken - a.seats_taken);
  for (const table of open) {
    try {
      await sitAt(table.id);
      return;
    } catch (err) {
      if (!(err instanceof ApiError) || !["seat_taken", "table_full"].includes(err.code)) throw err;
    }
  }
  const created = await api("POST", "/tables", { variant, stake, bot_level: botLevel });
  await sitAt(created.id);
}

function seatChip(person, me) {
  if (!person) return h("li", { class: "seat-chip empty" }, t("lobby_seat_empty"));
  const mine = person.account === me.id;
  const name = person.name ?? "…";
  return h("li", { class: "seat-chip" + (person.bot ? " bot" : "") + (mine ? " mine" : ""),
    dataset: { name: person.name ?? "" } },
  h("span", { class: "seat-name" }, name),
  person.bot ? h("span", { class: "tag bot-tag" }, t("lobby_seat_bot")) : null,
  mine ? h("span", { class: "tag you-tag" }, t("lobby_seat_you")) : null,
  !person.bot && person.title ? h("span", { class: "seat-title" }, titleName(person.title)) : null);
}

function tableItem(table, people, me, seatedSomewhere, onSit) {
  const here = seatedAt(table, me);
  const cannotAfford = me.balance < table.min_balance;
  const title = t("lobby_table_of", { variant: t(table.variant), stake: fmt(table.stake) });
  const action = here
    ? h("a", { href: `#/table/${table.id}`, class: "button primary sit-here" }, t("back_to_table"))
    : h("button", {
      type: "button", class: "sit", dataset: { table: table.id },
      disabled: table.seats_taken >= 4 || seatedSomewhere || cannotAfford,
      "aria-label": t("lobby_sit_at", { variant: t(table.variant), stake: fmt(table.stake) }),
      onclick: onSit,
    }, t("sit"));
  return h("li", { class: "table-item" + (here ? " here" : ""), dataset: { table: table.id, variant: table.variant } },
    h("div", { class: "table-head" },
      h("strong", { class: "table-name" }, title),
      h("span", { class: `status-tag ${table.status}` }, t(table.status)),
      h("span", { class: "table-count" }, t("lobby_seats_taken", { n: table.seats_taken }))),
    h("p", { class: "table-needs" + (cannotAfford ? " short" : "") },
      t("min_balance", { n: fmt(table.min_balance) }),
      cannotAfford && !here ? ` · ${t("lobby_short")}` : "",
      ` · ${t("lobby_bot_level", { level: botLevelName(table.bot_level) })}`),
    h("ul", { class: "seat-chips", "aria-label": t("seats") }, people.map((p) => seatChip(p, me))),
    h("div", { class: "table-action" }, action,
      here ? null : h("a", { href: `#/watch/${table.id}`, class: "button watch", dataset: { table: table.id },
        "aria-label": t("lobby_watch_at", { variant: t(table.variant), stake: fmt(table.stake) }) }, t("watch"))));
}

export async function renderLobby(main, { me }) {
  const error = h("p", { class: "form-error", role: "alert", id: "lobby-error" });
  const show = (err) => {
    showErrorIn(error, err);
    if (err instanceof ApiError && err.code === "insufficient_balance") refreshMe();
  };

  // The silver moved since the page was drawn (the server said so): read it again, for the
  // header, the stake's hint and the sit buttons.
  async function refreshMe() {
    try {
      Object.assign(me, await api("GET", "/me"));
    } catch {
      return;
    }
    window.dispatchEvent(new CustomEvent("me-changed", { detail: me }));
    checkStake();
    await load();
  }
  const filter = h("select", { id: "lobby-filter" },
    h("option", { value: "" }, t("all_variants")),
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const variant = h("select", { id: "create-variant", name: "variant" },
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const stake = h("input", { id: "create-stake", name: "stake", type: "number", min: 1, max: 1000000,
    step: 1, value: 1, required: true, inputmode: "numeric", "aria-describedby": "stake-needs" });
  const needs = h("p", { id: "stake-needs", class: "stake-needs", "aria-live": "polite" });
  const level = botLevelField("create-bot-level"); // who plays the bots that fill its seats
  const submit = h("button", { type: "submit", class: "primary", id: "create-submit" }, t("create_table"));
  const quick = h("button", { type: "button", id: "quick-join", onclick: () => {
    error.textContent = "";
    quickJoin(variant.value, Number(stake.value), level.select.value).catch(show);
  } }, t("quick_join"));
  const list = h("ul", { id: "table-list", class: "table-list", "aria-labelledby": "tables-title" });
  const mine = h("p", { id: "my-table" });

  // What a stake needs, said before the table is made; the buttons wait for an affordable one.
  function checkStake() {
    const value = Number(stake.value);
    const valid = Number.isInteger(value) && value >= 1 && value <= 1000000;
    const needed = valid ? value * MIN_BALANCE_PER_STAKE : null;
    const short = needed !== null && me.balance < needed;
    const most = Math.floor(me.balance / MIN_BALANCE_PER_STAKE);
    needs.classList.toggle("short", short);
    needs.dataset.short = String(short);
    if (needed === null) needs.textContent = "";
    else if (short) {
      needs.textContent = t("lobby_cannot_afford", { needed: fmt(needed), balance: fmt(me.balance) }) +
        (most >= 1 ? ` ${t("lobby_max_stake", { n: fmt(most) })}` : "");
    } else needs.textContent = t("lobby_stake_needs", { needed: fmt(needed), balance: fmt(me.balance) });
    submit.disabled = short || !valid;
    quick.disabled = short || !valid;
  }
  stake.addEventListener("input", checkStake);

  let listFailed = false;
  async function load() {
    let tables;
    try {
      tables = await api("GET", "/tables");
    } catch (err) {
      show(err);
      listFailed = true;
      return;
    }
    const shown = tables.filter((x) => !filter.value || x.variant === filter.value).sort(byVariantAndStake);
    const known = await readPlayers(shown);
    if (listFailed) error.textContent = ""; // a refusal of the player's action stays shown
    listFailed = false;
    const seated = tables.find((x) => seatedAt(x, me));
    mine.replaceChildren();
    if (seated) {
      mine.append(h("a", { href: `#/table/${seated.id}`, class: "button primary", id: "back-to-table" },
        `${t("back_to_table")} (${t(seated.variant)} · ${fmt(seated.stake)})`));
    }
    list.replaceChildren();
    if (!shown.length) list.append(h("li", { class: "table-item none" }, t("no_tables")));
    for (const table of shown) {
      list.append(tableItem(table, peopleOf(table, known(table)), me, Boolean(seated),
        () => {
          error.textContent = "";
          sitAt(table.id).catch(show);
        }));
    }
  }

  const create = h("form", { class: "card", id: "create-form", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, t("create_table")),
    h("label", { for: "create-variant" }, t("variant")),
    h("div", { class: "row variant-row" }, variant, howToWinButton("lobby-how-to-win", () => variant.value)),
    h("label", { for: "create-stake" }, t("stake")), stake,
    needs,
    level.label, level.select, level.hint,
    h("div", { class: "row" }, submit, quick));
  create.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    try {
      const created = await api("POST", "/tables", {
        variant: variant.value, stake: Number(stake.value), bot_level: level.select.value });
      await sitAt(created.id);
    } catch (err) {
      show(err);
    }
  });
  filter.addEventListener("change", load);

  const rooms = section("lobby-rooms", t("lobby_rooms_section"), t("lobby_rooms_note"),
    roomsCard({ me, onBack: () => { rooms.open = true; } })); // 好友房: join by code, open a room
  // 比赛场: folded on a phone, its summary counting down to the next start
  const events = section("lobby-events", t("ev_section"), "");
  events.append(eventsCard({ me, note: events.querySelector(".section-note") }));
  main.append(
    h("h1", {}, t("lobby_title")),
    mine,
    error,
    practiceOffer(me, error), // 新手教学: offered once to a new account, then a small button
    quickMatchCard({ me, variants: VARIANTS }),
    events,
    rooms,
    section("lobby-tables", t("lobby_tables_section"), t("lobby_tables_note"), h("div", { class: "lobby" },
      h("section", { class: "card tables-card", "aria-labelledby": "tables-title" },
        h("div", { class: "row lobby-bar" },
          h("h2", { id: "tables-title" }, t("tables")),
          h("label", { for: "lobby-filter", class: "inline-label" }, t("lobby_filter")), filter,
          h("button", { type: "button", id: "lobby-refresh", onclick: load }, t("refresh"))),
        list),
      create)));
  checkStake();
  await load();
  return load;
}
