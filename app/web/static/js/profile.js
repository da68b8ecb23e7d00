// The profile (个人资料): silver, title, 湖州 level (each with the next one up its ladder and
// a bar of the way there, or a word at the top), the record per variant, the ledger page by
// page (newest first; "more" only while the server says there is a next page), each hand's
// rows leading to its replay.

import { api } from "./api.js";
import { h, fmt } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { ledgerReason, t, titleGloss } from "./i18n.js";
import { titleName } from "./ranks.js";
import { VARIANTS } from "./lobby.js";
import { myRoomsSection } from "./rooms.js";

const PAGE_SIZE = 20;
const METRICS = ["points", "hands", "wins", "self_draws", "deal_ins", "escapes", "disconnects",
  "win_rate", "escape_rate"];
const RATES = new Set(["win_rate", "escape_rate"]);

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const two = (n) => String(n).padStart(2, "0");

// A row's time as date and time of day in the browser's zone, the same in both languages;
// the year only when it is not this one.
function when(iso) {
  const d = new Date(iso);
  const day = `${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  return [d.getFullYear() === new Date().getFullYear() ? day : `${d.getFullYear()}-${day}`,
    `${two(d.getHours())}:${two(d.getMinutes())}`];
}

export function replayLink(handId) {
  return h("a", { href: `#/replay/${encodeURIComponent(handId)}`, class: "hand-link",
    dataset: { hand: handId }, "aria-label": t("ledger_hand_link", { id: handId }), title: handId }, t("ledger_replay_of"));
}

// The record: a card per variant played (narrow enough for a phone: two to a row), the
// variants not played yet named in one line.
function statsCards(stats) {
  const variants = VARIANTS.filter((v) => v in stats).concat(Object.keys(stats).filter((v) => !VARIANTS.includes(v)));
  const played = variants.filter((v) => stats[v].hands > 0 || stats[v].points > 0);
  const unplayed = variants.filter((v) => !played.includes(v));
  return h("div", { id: "stats-table", class: "stats-cards" },
    played.length === 0 ? h("p", { class: "empty-note" }, t("no_stats")) : null,
    played.map((v) => h("section", { class: "stat-card", dataset: { variant: v }, "aria-labelledby": `stats-${v}` },
      h("h3", { id: `stats-${v}` }, t(v)),
      h("dl", {}, METRICS.flatMap((m) => [
        h("dt", {}, t(m)),
        h("dd", { class: "num", dataset: { metric: m } }, RATES.has(m) ? pct(stats[v][m]) : fmt(stats[v][m])),
      ])))),
    unplayed.length && played.length
      ? h("p", { class: "empty-note", id: "stats-unplayed" }, t("stats_unplayed", { variants: unplayed.map((v) => t(v)).join(t("list_sep")) }))
      : null);
}

// The way to the next title (or level): "距 赌客 还差 1,200 银两" and a bar from the floor of
// the title held to the next; at the top of the ladder, a word that it is the top.
function nextStep(id, value, next, textKey, topKey) {
  if (!next) return h("div", { class: "next-step top", id }, h("span", { class: "next-text" }, t(topKey)));
  const span = Math.max(1, next.at - next.since);
  const done = Math.min(span, Math.max(0, value - next.since));
  const pctDone = Math.round((done / span) * 100);
  const text = t(textKey, { title: titleName(next.title), n: fmt(next.at - value) });
  const fill = h("span", { class: "next-fill" });
  fill.style.width = `${pctDone}%`; // set through the CSSOM: the page's CSP allows no inline style
  return h("div", { class: "next-step", id, dataset: { next: next.title } },
    h("span", { class: "next-text" }, text),
    h("div", { class: "next-bar", role: "progressbar", "aria-label": text, "aria-valuemin": 0,
      "aria-valuemax": 100, "aria-valuenow": pctDone }, fill));
}

function ledgerRow(e) {
  const [day, time] = when(e.created_at);
  return h("tr", { dataset: { id: e.id, reason: e.reason } },
    h("td", { class: "when" }, h("time", { datetime: e.created_at }, h("span", {}, day), " ", h("span", {}, time))),
    h("td", { class: e.delta < 0 ? "neg num" : "pos num" }, (e.delta > 0 ? "+" : "") + fmt(e.delta)),
    h("td", { class: "num" }, fmt(e.balance_after)),
    h("td", { class: "reason" }, h("span", { class: "reason-text" }, ledgerReason(e.reason)),
      e.note ? h("span", { class: "note" }, ` · ${e.note}`) : null,
      e.hand_id ? h("span", { class: "hand-ref" }, replayLink(e.hand_id)) : null));
}

export async function renderProfile(main) {
  const me = await api("GET", "/me");
  const ledgerBody = h("tbody", { id: "ledger-rows" });
  const more = h("button", { type: "button", id: "ledger-more", hidden: true }, t("ledger_more"));
  const empty = h("p", { id: "ledger-empty", class: "empty-note", hidden: true }, t("ledger_empty"));
  const error = h("p", { class: "form-error", role: "alert", id: "ledger-error" });
  const seen = new Set();
  let before = null; // the next page's cursor; null once the last page is in
  let loading = false;

  // The next page of the ledger, appended below the rows already shown.
  async function page() {
    if (loading) return;
    loading = true;
    more.disabled = true;
    try {
      const query = before === null ? `?limit=${PAGE_SIZE}` : `?limit=${PAGE_SIZE}&before=${before}`;
      const data = await api("GET", `/me/ledger${query}`);
      for (const e of data.entries) {
        if (seen.has(e.id)) continue; // a row is never listed twice
        seen.add(e.id);
        ledgerBody.append(ledgerRow(e));
      }
      before = data.next_before;
      error.textContent = "";
    } catch (err) {
      showErrorIn(error, err);
    } finally {
      loading = false;
      more.disabled = false;
      more.hidden = before === null;
      empty.hidden = seen.size > 0;
    }
  }
  more.addEventListener("click", page);

  const level = me.huzhou_level;
  main.append(
    h("h1", {}, t("profile_title")),
    h("section", { class: "card", "aria-labelledby": "me-name" },
      h("h2", { id: "me-name" }, me.username),
      h("dl", { class: "facts" },
        h("dt", {}, t("balance")), h("dd", { id: "profile-balance" }, fmt(me.balance)),
        h("dt", {}, t("title")),
        h("dd", {}, h("span", { id: "profile-title", title: titleGloss(me.title) }, titleName(me.title)),
          nextStep("profile-next-title", me.balance, me.next_title, "next_title_silver", "top_title")),
        h("dt", {}, t("huzhou_level")),
        h("dd", {}, h("span", { id: "profile-level", title: titleGloss(level.title) },
          `${titleName(level.title)} (${t("level_detail", { base: fmt(level.base), points: fmt(level.points) })})`),
        nextStep("profile-next-level", level.points, level.next, "next_level_points", "top_level")))),
    h("section", { class: "card", "aria-labelledby": "stats-title" },
      h("h2", { id: "stats-title" }, t("stats")),
      statsCards(me.stats)),
    myRoomsSection(), // 好友房: the rooms I opened or played in, to their scoreboards
    h("section", { class: "card", "aria-labelledby": "ledger-title" },
      h("h2", { id: "ledger-title" }, t("ledger")),
      error,
      h("div", { class: "scroll-x" },
        h("table", { class: "grid ledger", id: "ledger-table" },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, t("time")), h("th", { scope: "col", class: "num" }, t("delta")),
            h("th", { scope: "col", class: "num" }, t("balance_after")), h("th", { scope: "col" }, t("reason")))),
          ledgerBody)),
      empty,
      more));
  await page();
}
