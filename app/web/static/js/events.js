// Tournaments (比赛场, docs/tournaments.md) in the lobby: a card of the events coming (name,
// variant, fee, seats taken, prize pool and first prize, a countdown to the start, 报名 /
// 退赛), the ones in play (their round; the player's table) and the last ones finished
// (their winner). Each names its page (#/event/<id>, eventpage.js). An event the player
// entered that starts while the card shows opens their table. The helpers here are shared with that page
// and with the table's strip (tableevent.js).

import { api } from "./api.js";
import { fmt, h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { t } from "./i18n.js";

const TICK_MS = 1000; // the countdowns
const READ_MS = 15000; // the lists, read again while the card shows
const SOON_MS = 60000; // an event the player entered starts within this: the lists are read
const SOON_READ_MS = 2000; // this often, and their table opens once it starts
const UPCOMING = 4; // events of each kind the card lists
const RUNNING = 3;
const FINISHED = 2;

// "3天2小时", "1小时5分", "04:59": the time until `when` (ms since the epoch)
export function timeLeft(when) {
  const s = Math.max(0, Math.floor((when - Date.now()) / 1000));
  const d = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return t("ev_d_h", { d, h: hours });
  if (hours > 0) return t("ev_h_m", { h: hours, m });
  return `${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

// "第2轮/共3轮", or "决赛" at the final table (round rounds + 1)
export function roundText(round, rounds) {
  return round > rounds ? t("ev_final") : t("ev_round_of", { round, rounds });
}

// the countdown to an event's start, kept current by `tickCountdowns`
export function countdown(event, cls = "ev-countdown") {
  return h("span", { class: cls, dataset: { starts: Date.parse(event.starts_at) } },
    startsText(Date.parse(event.starts_at)));
}

function startsText(when) {
  return when - Date.now() > 1000 ? t("ev_starts_in", { left: timeLeft(when) }) : t("ev_starting");
}

export function tickCountdowns(root) {
  for (const el of root.querySelectorAll("[data-starts]")) el.textContent = startsText(Number(el.dataset.starts));
}

// 报名 / 退赛 (signed in): the button, and what it does; `done(event)` redraws with the event
// the server answers, the player's silver updated in the header
export function registerButton(event, me, error, done) {
  const full = event.players >= event.seats;
  const mine = Boolean(event.registered);
  return h("button", {
    type: "button", class: "ev-register" + (mine ? "" : " primary"), dataset: { event: event.id, registered: String(mine) },
    disabled: event.status !== "open" || (full && !mine),
    "aria-label": `${t(mine ? "ev_unregister" : "ev_register")} ${event.name}`,
    onclick: async () => {
      error.textContent = "";
      delete error.dataset.code;
      try {
        const answer = await api(mine ? "DELETE" : "POST", `/tournaments/${event.id}/register`);
        me.balance = answer.balance;
        window.dispatchEvent(new CustomEvent("me-changed", { detail: me }));
        done(answer.tournament);
      } catch (err) {
        showErrorIn(error, err);
        try {
          done(await api("GET", `/tournaments/${event.id}`)); // seats taken meanwhile, the start come
        } catch {
          // the list is read again soon
        }
      }
    },
  }, t(mine ? "ev_unregister" : full ? "ev_full" : "ev_register"));
}

// "报名费 100 · 5/8 人 · 奖池 720 · 冠军 360" (the first prize at the pool so far: `first`)
export function moneyLine(event, first = true) {
  const parts = [
    event.fee ? t("ev_fee", { n: fmt(event.fee) }) : t("ev_free"),
    t("ev_seats", { n: event.players, seats: event.seats }),
    t("ev_pool", { n: fmt(event.pool.total) }),
  ];
  if (first && event.prizes.length && event.prizes[0] > 0) parts.push(t("ev_first", { n: fmt(event.prizes[0]) }));
  return parts.map((p, i) => h("span", { class: "ev-fact" + (i === 3 ? " ev-top-prize" : "") }, i ? `· ${p}` : p));
}

function link(event) {
  return h("a", { href: `#/event/${event.id}`, class: "ev-name" }, event.name);
}

function upcomingItem(event, me, error, redraw) {
  const item = h("li", { class: "ev-item upcoming" + (event.registered ? " mine" : ""), dataset: { event: event.id } });
  const fill = (ev) => {
    item.className = "ev-item upcoming" + (ev.registered ? " mine" : "");
    item.replaceChildren(
      h("div", { class: "ev-head" }, link(ev), h("span", { class: "ev-variant" }, t(ev.variant)),
        ev.registered ? h("span", { class: "tag you-tag ev-in" }, t("ev_registered")) : null),
      h("p", { class: "ev-facts" }, ...moneyLine(ev)),
      h("div", { class: "ev-foot" }, countdown(ev), registerButton(ev, me, error, (next) => { fill(next); redraw(); })));
  };
  fill(event);
  return item;
}

// the player's table in the round in play (not played out yet), if they are at one
export function myTable(standings, me) {
  if (!standings) return null;
  return standings.tables.find((x) => x.round === standings.round && x.accounts.includes(me.id) &&
    x.status !== "done") || null;
}

function runningItem(event, standings, me) {
  const table = event.registered ? myTable(standings, me) : null;
  return h("li", { class: "ev-item running" + (event.registered ? " mine" : ""), dataset: { event: event.id } },
    h("div", { class: "ev-head" }, link(event), h("span", { class: "ev-variant" }, t(event.variant)),
      h("span", { class: "status-tag playing" }, standings ? roundText(standings.round, standings.rounds) : t("ev_running"))),
    h("p", { class: "ev-facts" }, t("ev_seats", { n: event.players, seats: event.seats }), ` · ${t("ev_pool", { n: fmt(event.pool.total) })}`),
    table ? h("a", { class: "button primary ev-to-table", href: `#/table/${table.table_id}` }, t("ev_to_table")) : null);
}

function finishedItem(event, standings) {
  const first = standings && standings.standings.find((s) => s.place === 1);
  const line = event.status === "cancelled" ? t("ev_refunded")
    : first ? t("ev_winner", { name: first.name }) : t("ev_finished");
  return h("li", { class: "ev-item finished", dataset: { event: event.id } },
    h("div", { class: "ev-head" }, link(event), h("span", { class: "ev-variant" }, t(event.variant))),
    h("p", { class: "ev-facts ev-winner" }, line));
}

async function standingsOf(events) {
  return Promise.all(events.map((ev) => (ev.status === "cancelled" ? null
    : api("GET", `/tournaments/${ev.id}/standings`).catch(() => null))));
}

// The card (in a lobby section whose summary note says the next start): drawn at once,
// filled as the server answers; it stops its timers once it is no longer in the page.
export function eventsCard({ me, note }) {
  const error = h("p", { class: "form-error", role: "alert", id: "events-error" });
  const list = h("ul", { class: "ev-list", id: "event-list" });
  const card = h("section", { class: "card events-card", id: "events-card", "aria-labelledby": "events-title" },
    h("h2", { id: "events-title", class: "sr-only" }, t("ev_section")), list, error);
  let next = null; // the soonest upcoming event: the section's note counts down to it
  let awaited = new Set(); // events the player is registered for, seen here before their start
  let playing = 0; // events in play, said in the note when none is coming
  let soon = false; // one of them starts within a minute: the lists are read more often

  function noteText() {
    if (!next) return playing ? t("ev_running_n", { n: playing }) : t("ev_none");
    return t("ev_next", { name: next.name, left: timeLeft(Date.parse(next.starts_at)) });
  }

  async function load() {
    let upcoming, running, finished;
    try {
      [upcoming, running, finished] = await Promise.all([
        api("GET", `/tournaments?status=upcoming&limit=${UPCOMING}`),
        api("GET", `/tournaments?status=running&limit=${RUNNING}`),
        api("GET", `/tournaments?status=finished&limit=${FINISHED}`)]);
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    const [runStandings, endStandings] = await Promise.all([standingsOf(running), standingsOf(finished)]);
    // an event the player waited for here has started: their table opens (as the event's page does)
    for (const [i, ev] of running.entries()) {
      const table = awaited.has(ev.id) ? myTable(runStandings[i], me) : null;
      if (table && document.body.contains(card)) {
        location.hash = `#/table/${table.table_id}`;
        return;
      }
    }
    awaited = new Set(upcoming.filter((ev) => ev.registered).map((ev) => ev.id));
    soon = upcoming.some((ev) => ev.registered && Date.parse(ev.starts_at) - Date.now() < SOON_MS);
    if (card.contains(document.activeElement) && document.activeElement.tagName === "BUTTON") return; // not under a finger
    next = upcoming[0] || null;
    playing = running.length;
    if (note) note.textContent = noteText();
    const items = [
      ...upcoming.map((ev) => upcomingItem(ev, me, error, () => {})),
      ...running.map((ev, i) => runningItem(ev, runStandings[i], me)),
      ...finished.map((ev, i) => finishedItem(ev, endStandings[i])),
    ];
    if (!items.length) items.push(h("li", { class: "ev-item none" }, t("ev_none")));
    list.replaceChildren(...items);
  }

  const timers = [];
  const alive = (fn) => () => {
    if (document.body.contains(card)) fn();
    else timers.forEach(clearInterval);
  };
  timers.push(setInterval(alive(() => {
    tickCountdowns(card);
    if (note) note.textContent = noteText();
  }), TICK_MS));
  let last = 0;
  timers.push(setInterval(alive(() => {
    if (Date.now() - last < (soon ? SOON_READ_MS : READ_MS)) return;
    last = Date.now();
    load();
  }), TICK_MS));
  last = Date.now();
  load();
  return card;
}
