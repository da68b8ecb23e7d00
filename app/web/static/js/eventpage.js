// A tournament's page (#/event/<id>, docs/tournaments.md): its rules, its prize table, how
// many have entered; once it runs the standings (from GET /tournaments/{id}/standings, read
// again when a `tournament` message comes and every few seconds) and the tables of each
// round, the final table's 观战 link once drawn; at its end the final places with their
// prizes, the player's own line marked. An entrant keeps a socket open here: when the event
// seats them (`seated`), their table opens.

import { api, ApiError, refreshTokens, session } from "./api.js";
import { fmt, h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { currentLang, t } from "./i18n.js";
import { ProtocolClient } from "../kit/protocol.js";
import { botLevelName } from "./botlevel.js";
import { countdown, moneyLine, myTable, registerButton, roundText, tickCountdowns } from "./events.js";
import { rememberEvent } from "./tableevent.js";
import { lengthText } from "./rooms.js";

const READ_MS = 5000; // the event and its standings, read again while it is open or in play
const TICK_MS = 1000;

// "3 轮" / "1 round": a count with its unit, one or many
function counted(key, n) {
  return t(n === 1 ? `${key}_one` : key, { n });
}

function when(iso) {
  return new Date(iso).toLocaleString(currentLang() === "zh" ? "zh-CN" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}

function rulesCard(ev) {
  const row = (name, value) => [h("dt", {}, name), h("dd", {}, value)];
  return h("section", { class: "card ev-rules", "aria-labelledby": "ev-rules-title" },
    h("h2", { id: "ev-rules-title" }, t("ev_rules")),
    h("dl", { class: "ev-dl" },
      row(t("ev_variant"), t(ev.variant)),
      row(t("ev_stake"), fmt(ev.stake)),
      row(t("ev_starts_at"), when(ev.starts_at)),
      row(t("ev_format"), t("ev_format_text", { rounds: counted("ev_rounds", ev.rounds),
        length: lengthText(ev.length) }) +
        (ev.final_table ? t("ev_with_final") : "")),
      row(t("ev_fee_line"), ev.fee ? fmt(ev.fee) : t("ev_free")),
      row(t("ev_entrants"), t("ev_seats", { n: ev.players, seats: ev.seats }))),
    h("p", { class: "ev-hint" }, t("ev_bots", { level: botLevelName(ev.bot_level) })));
}

function prizesCard(ev) {
  const over = ev.status === "finished";
  const pool = fmt(ev.pool.total);
  return h("section", { class: "card ev-prizes", "aria-labelledby": "ev-prizes-title" },
    h("h2", { id: "ev-prizes-title" }, t("ev_prizes")),
    h("p", { class: "ev-hint" }, t(over ? "ev_pool_final" : "ev_pool_note", { n: pool }),
      ev.guarantee ? ` · ${t("ev_guarantee", { n: fmt(ev.guarantee) })}` : ""),
    h("ol", { class: "ev-prize-list", id: "prize-table" }, ev.prizes.map((p, i) =>
      h("li", { class: i === 0 ? "first" : "" }, h("span", { class: "ev-place" }, t("ev_place_n", { n: i + 1 })),
        h("strong", {}, fmt(p))))));
}

function standingsCard(ev, st, me) {
  const over = ev.status === "finished";
  const finalCol = st.final_table && st.standings.some((s) => s.final_points !== null);
  const head = h("tr", {}, h("th", { scope: "col" }, t("ev_place")), h("th", { scope: "col" }, t("ev_player")),
    h("th", { scope: "col" }, t("ev_points")), h("th", { scope: "col" }, t("ev_wins")),
    finalCol ? h("th", { scope: "col" }, t("ev_final_points")) : null,
    over ? h("th", { scope: "col" }, t("ev_prize")) : null);
  const rows = st.standings.map((s) => h("tr", {
    class: (s.account_id === me.id ? "mine" : "") + (s.place <= 3 ? ` top top-${s.place}` : ""),
    dataset: { account: s.account_id, place: s.place } },
  h("td", { class: "ev-place" }, s.place <= 3 ? h("span", { class: "ev-medal" }, String(s.place)) : String(s.place)),
  h("td", { class: "ev-who" }, h("span", { class: "ev-player-name" }, s.name),
    s.account_id === me.id ? h("span", { class: "tag you-tag" }, t("ev_you")) : null,
    s.bot ? h("span", { class: "tag bot-tag" }, t("ev_bot")) : null,
    s.forfeited ? h("span", { class: "tag ev-out" }, t("ev_forfeited")) : null),
  h("td", { class: "num" }, fmt(s.points)), h("td", { class: "num" }, String(s.wins)),
  finalCol ? h("td", { class: "num" }, s.final_points === null ? "–" : fmt(s.final_points)) : null,
  over ? h("td", { class: "num ev-prize" }, s.prize ? fmt(s.prize) : "–") : null));
  const title = over ? t("ev_final_results")
    : `${t("ev_standings")} · ${roundText(st.round, st.rounds)}`;
  return h("section", { class: "card ev-standings", "aria-labelledby": "ev-standings-title" },
    h("h2", { id: "ev-standings-title" }, title),
    h("div", { class: "ev-table-wrap" }, h("table", { class: "ev-board", id: "ev-board" }, h("thead", {}, head), h("tbody", {}, rows))));
}

function tablesCard(st) {
  const names = new Map(st.standings.map((s) => [s.account_id, s.name]));
  const rounds = [...new Set(st.tables.map((x) => x.round))].sort((a, b) => b - a); // the latest first
  return h("section", { class: "card ev-tables", "aria-labelledby": "ev-tables-title" },
    h("h2", { id: "ev-tables-title" }, t("ev_tables")),
    rounds.map((round, i) => h("details", { class: "ev-round", open: i === 0, dataset: { round } },
      h("summary", {}, roundText(round, st.rounds)),
      h("ul", { class: "ev-round-tables" }, st.tables.filter((x) => x.round === round).map((x) =>
        h("li", { class: "ev-table", dataset: { table: x.table_id } },
          h("span", { class: "ev-table-name" }, t("ev_table_n", { n: x.number })),
          h("span", { class: `status-tag ${x.status}` }, t(`ev_status_${x.status}`)),
          h("span", { class: "ev-table-who" }, x.accounts.map((a) => names.get(a) ?? `#${a}`).join("、")),
          x.room && x.status !== "done"
            ? h("a", { class: "button watch", id: "ev-watch", href: `#/watch/${x.table_id}/${x.room}` }, t("ev_watch")) : null))))));
}

// the player's own place and prize at the end, or their table while it runs
function myLine(ev, st, me) {
  if (!st) return null;
  const mine = st.standings.find((s) => s.account_id === me.id);
  if (!mine) return null;
  if (ev.status === "finished") {
    return h("p", { class: "ev-mine", id: "ev-mine" }, t("ev_my_place", { place: mine.place }),
      mine.prize ? ` · ${t("ev_my_prize", { n: fmt(mine.prize) })}` : "");
  }
  const table = myTable(st, me);
  return table ? h("a", { class: "button primary", id: "ev-my-table", href: `#/table/${table.table_id}` }, t("ev_to_table")) : null;
}

export async function renderEventPage(main, { id, me }) {
  const error = h("p", { class: "form-error", role: "alert", id: "event-error" });
  const body = h("div", { class: "ev-page", id: "event-page" });
  main.append(h("p", { class: "ev-crumb" }, h("a", { href: "#/lobby" }, `‹ ${t("ev_back")}`)), body, error);
  let client = null;
  let leaving = false;
  let over = false; // finished or cancelled: read once

  function socket(on) {
    if (on && !client) {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      client = new ProtocolClient({ url: `${scheme}://${location.host}/ws`, token: () => session.access,
        refresh: refreshTokens, onTournament: (m) => { rememberEvent(m.tournament); load(); },
        onSeated: (m) => {
          if (leaving) return;
          leaving = true;
          stop();
          location.hash = `#/table/${m.table_id}`;
        } });
      client.connect();
    } else if (!on && client) {
      client.close();
      client = null;
    }
  }

  async function load() {
    let ev, st = null;
    try {
      ev = await api("GET", `/tournaments/${id}`);
      if (ev.status !== "open" && ev.status !== "cancelled") st = await api("GET", `/tournaments/${id}/standings`);
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") body.replaceChildren(h("h1", {}, t("ev_not_found")));
      else showErrorIn(error, err);
      return;
    }
    if (!document.body.contains(body) || leaving) return;
    if (body.contains(document.activeElement) && document.activeElement.tagName === "BUTTON") return;
    over = ev.status === "finished" || ev.status === "cancelled";
    const status = ev.status === "open" ? "upcoming" : ev.status;
    const top = h("section", { class: "card ev-top", dataset: { status: ev.status } },
      h("div", { class: "ev-title-row" }, h("h1", { id: "event-name" }, ev.name),
        h("span", { class: `status-tag ev-status ${ev.status}`, id: "event-status" },
          ev.status === "running" && st ? roundText(st.round, st.rounds) : t(`ev_${status}`))),
      h("p", { class: "ev-facts" }, ...moneyLine(ev, ev.status !== "finished")),
      ev.status === "open" ? h("div", { class: "ev-foot" }, countdown(ev), registerButton(ev, me, error, () => load())) : null,
      ev.status === "open" && ev.registered ? h("p", { class: "ev-hint" }, t("ev_seated_soon")) : null,
      ev.status === "cancelled" ? h("p", { class: "ev-hint" }, t("ev_refunded")) : null,
      myLine(ev, st, me));
    // the event's column (its state, standings, tables), and beside it on a wide screen (under
    // it on a phone) the prize table, until the prizes are paid, and the rules
    const side = h("div", { class: "ev-side" }, ev.status === "finished" ? null : prizesCard(ev), rulesCard(ev));
    body.replaceChildren(h("div", { class: "ev-main" }, top, st ? standingsCard(ev, st, me) : null,
      st && st.tables.length ? tablesCard(st) : null), side);
    // an entrant waits here for their seat: the socket tells it
    socket(Boolean(ev.registered) && ["open", "running"].includes(ev.status));
  }

  const timers = [];
  function stop() {
    timers.forEach(clearInterval);
    socket(false);
  }
  const alive = (fn) => () => (document.body.contains(body) && !leaving ? fn() : stop());
  timers.push(setInterval(alive(() => tickCountdowns(body)), TICK_MS));
  timers.push(setInterval(alive(() => { if (!over) load(); }), READ_MS)); // an event over changes no more
  await load();
}
