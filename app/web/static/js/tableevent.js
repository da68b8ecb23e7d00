// A tournament's table (比赛场, docs/tournaments.md): the strip in the table's bar (the
// event's name and 第2轮/共3轮, or 决赛), and between rounds (this table's room over, or the
// event moved on) the standings with 下一轮即将开始 until the event seats the player at their
// next table: its `seated` comes over this socket, and the page follows it. At the event's
// end the same panel shows the final places and prizes. The controller (table.js) keeps the
// event in `c.event` (the `tournament` message's TournamentInfo) once it knows it.

import { api } from "./api.js";
import { fmt, h } from "./dom.js";
import { t } from "./i18n.js";
import { roundText } from "./events.js";

const SHOWN_MS = 5000; // the standings show at least this long before the next table opens
const known = new Map(); // table id -> the event as last told with that table (this tab)

// A `tournament` message seen anywhere in this tab (the event page, a table).
export function rememberEvent(info) {
  if (info.table_id) known.set(info.table_id, info);
}

// When the page opens: the event of this table, as told before in this tab, else found
// among the events in play (a reload). Only a room's table can be a tournament's (its
// players' read names a room: tableroom.js keeps its code).
export async function findEvent(c) {
  if (c.spectator) return;
  c.event = known.get(c.tableId) || null;
  if (c.event) {
    c.cupRound = c.event.round;
    return;
  }
  if (!c.roomCode) return;
  try {
    const running = await api("GET", "/tournaments?status=running&limit=50");
    for (const ev of running) {
      const st = await api("GET", `/tournaments/${ev.id}/standings`);
      const table = st.tables.find((x) => x.table_id === c.tableId);
      if (!table) continue;
      c.event = { id: ev.id, name: ev.name, status: st.status, round: table.round, rounds: st.rounds,
        final_table: st.final_table, table_id: c.tableId, standings: st.standings };
      c.cupRound = table.round;
      c.render();
      return;
    }
  } catch {
    // no strip: the table plays as any table
  }
}

function follow(c) {
  if (!c.nextTable || c.closed) return;
  const wait = c.betweenSince ? c.betweenSince + SHOWN_MS - Date.now() : 0;
  const id = c.nextTable;
  setTimeout(() => { if (!c.closed) location.hash = `#/table/${id}`; }, Math.max(0, wait));
}

export function onTournament(c, m) {
  const info = m.tournament;
  rememberEvent(info);
  if (info.table_id === c.tableId) {
    c.event = info;
    c.cupRound = info.round;
    return;
  }
  if (!c.event || c.event.id !== info.id) return;
  c.event = info; // this table's round is over: the standings after it
  c.betweenSince = c.betweenSince || Date.now();
  follow(c);
}

// `seated` for another table: the event's next round (the page follows it once the
// standings have shown a moment). Any other table's messages are not this page's.
export function onSeatedElsewhere(c, m) {
  if (!c.event || c.spectator) return;
  c.nextTable = m.table_id;
  c.betweenSince = c.betweenSince || Date.now();
  follow(c);
}

// between rounds: this table's room is over, or the event has moved on from it
function between(c) {
  const ev = c.event;
  if (!ev) return false;
  return Boolean(c.betweenSince) || ev.status === "finished" || (c.room && c.room.status !== "open");
}

export function cupStrip(c) {
  const ev = c.event;
  if (!ev) return null;
  const round = c.cupRound ?? ev.round; // this table's round, as the event moves on
  const final = round > ev.rounds;
  // not a link: the way to the event's page, away from the hand, is in the dialog between rounds
  return h("span", { class: "cup-strip" + (final ? " final" : ""), id: "cup-strip",
    dataset: { event: ev.id, round } },
  h("span", { class: "cup-strip-name" }, ev.name), " · ",
  h("strong", { class: "cup-strip-round" }, roundText(round, ev.rounds)));
}

function standingsList(ev, me) {
  const over = ev.status === "finished";
  const head = h("div", { class: "cup-standings-head" + (over ? " over" : ""), "aria-hidden": "true" }, h("span", {}, t("ev_place")),
    h("span", {}, t("ev_player")), h("span", { class: "num" }, t("ev_points")), over ? h("span", { class: "num" }, t("ev_prize")) : null);
  return [head, h("ol", { class: "cup-standings" + (over ? " over" : ""), id: "cup-standings" }, ev.standings.map((s) =>
    h("li", { class: s.account_id === me.id ? "mine" : "", dataset: { place: s.place, account: s.account_id } },
      h("span", { class: "ev-place" }, String(s.place)),
      h("span", { class: "ev-who" }, s.name,
        s.account_id === me.id ? h("span", { class: "tag you-tag" }, t("ev_you")) : null,
        s.bot ? h("span", { class: "tag bot-tag" }, t("ev_bot")) : null),
      h("span", { class: "num" }, fmt(s.final_points ?? s.points)),
      over ? h("span", { class: "num ev-prize" }, s.prize ? fmt(s.prize) : "–") : null)))];
}

export function cupDialogs(c) {
  const ev = c.event;
  if (!ev || !between(c) || c.eventPanelClosed === ev.round + ev.status) return [];
  const over = ev.status === "finished" || ev.status === "cancelled";
  const mine = ev.standings.find((s) => s.account_id === c.me.id);
  const done = c.cupRound ?? ev.round; // the round just played here
  const title = over ? t("ev_final_results") : done > ev.rounds ? t("ev_final") : t("ev_after_round", { n: done });
  return [h("div", { class: "overlay cup-overlay" },
    h("div", { class: "card dialog cup-dialog", id: "cup-between", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "cup-between-title", dataset: { status: ev.status } },
    h("h2", { id: "cup-between-title" }, `${ev.name} · ${title}`),
    over && mine ? h("p", { class: "ev-mine", id: "cup-mine" }, t("ev_my_place", { place: mine.place }),
      mine.prize ? ` · ${t("ev_my_prize", { n: fmt(mine.prize) })}` : "") : null,
    h("div", { class: "cup-standings-wrap" + (over ? " over" : "") }, ...standingsList(ev, c.me)),
    h("p", { class: "cup-next", id: "cup-next", role: "status" }, over ? t("ev_event_over") : t("ev_next_round")),
    h("div", { class: "row" },
      h("a", { href: `#/event/${ev.id}`, class: "button" + (over ? " primary" : ""), id: "cup-event-link" }, t("ev_to_event")),
      over ? h("a", { href: "#/lobby", class: "button", id: "cup-lobby" }, t("ev_back")) : null,
      h("button", { type: "button", id: "cup-between-close", onclick: () => {
        c.eventPanelClosed = ev.round + ev.status;
        c.render();
      } }, t("view_board")))))];
}
