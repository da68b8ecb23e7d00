// The profile (个人资料): silver, title, 湖州 level, the record per variant, the ledger.

import { api } from "./api.js";
import { h, fmt } from "./dom.js";
import { reason, t } from "./i18n.js";

const pct = (x) => `${(x * 100).toFixed(1)}%`;

export async function renderProfile(main) {
  const me = await api("GET", "/me");
  const rows = Object.entries(me.stats);
  const ledgerBody = h("tbody", { id: "ledger-rows" });
  const more = h("button", { type: "button", id: "ledger-more" }, t("more"));
  let before = null;

  async function page() {
    const query = before === null ? "?limit=20" : `?limit=20&before=${before}`;
    const data = await api("GET", `/me/ledger${query}`);
    for (const e of data.entries) {
      ledgerBody.append(h("tr", {},
        h("td", {}, new Date(e.created_at).toLocaleString()),
        h("td", { class: e.delta < 0 ? "neg num" : "pos num" }, (e.delta > 0 ? "+" : "") + fmt(e.delta)),
        h("td", { class: "num" }, fmt(e.balance_after)),
        h("td", {}, reason(e.reason), e.note ? ` · ${e.note}` : ""),
        h("td", {}, e.hand_id ?? "")));
    }
    before = data.next_before;
    more.hidden = before === null;
  }
  more.addEventListener("click", page);

  main.append(
    h("h1", {}, t("profile_title")),
    h("section", { class: "card", "aria-labelledby": "me-name" },
      h("h2", { id: "me-name" }, me.username),
      h("dl", { class: "facts" },
        h("dt", {}, t("balance")), h("dd", { id: "profile-balance" }, fmt(me.balance)),
        h("dt", {}, t("title")), h("dd", { id: "profile-title" }, me.title),
        h("dt", {}, t("huzhou_level")),
        h("dd", { id: "profile-level" },
          `${me.huzhou_level.title} (${t("base_score")} ${me.huzhou_level.base}, ${t("points")} ${me.huzhou_level.points})`))),
    h("section", { class: "card", "aria-labelledby": "stats-title" },
      h("h2", { id: "stats-title" }, t("stats")),
      rows.length === 0 ? h("p", {}, t("no_stats")) :
        h("table", { class: "grid", id: "stats-table" },
          h("thead", {}, h("tr", {}, ["variant", "points", "hands", "wins", "self_draws", "deal_ins",
            "escapes", "disconnects", "win_rate", "escape_rate"].map((k) => h("th", { scope: "col" }, t(k))))),
          h("tbody", {}, rows.map(([variant, s]) => h("tr", {},
            h("th", { scope: "row" }, t(variant)),
            [s.points, s.hands, s.wins, s.self_draws, s.deal_ins, s.escapes, s.disconnects]
              .map((n) => h("td", { class: "num" }, fmt(n))),
            h("td", { class: "num" }, pct(s.win_rate)), h("td", { class: "num" }, pct(s.escape_rate))))))),
    h("section", { class: "card", "aria-labelledby": "ledger-title" },
      h("h2", { id: "ledger-title" }, t("ledger")),
      h("table", { class: "grid", id: "ledger-table" },
        h("thead", {}, h("tr", {}, ["time", "delta", "balance_after", "reason", "hand"]
          .map((k) => h("th", { scope: "col" }, t(k))))),
        ledgerBody),
      more));
  await page();
}
