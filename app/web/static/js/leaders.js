// Leaderboards (排行榜): by silver, by points in a variant, by win rate in a variant.

import { api } from "./api.js";
import { h, fmt } from "./dom.js";
import { t } from "./i18n.js";
import { VARIANTS } from "./lobby.js";

export async function renderLeaders(main) {
  const board = h("select", { id: "board-kind", "aria-label": t("leaders_title") },
    h("option", { value: "silver" }, t("by_silver")),
    h("option", { value: "points" }, t("by_points")),
    h("option", { value: "win-rate" }, t("by_win_rate")));
  const variant = h("select", { id: "board-variant", "aria-label": t("variant") },
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const minHands = h("input", { id: "board-min", type: "number", min: 1, value: 20, "aria-label": t("min_hands") });
  const body = h("tbody", { id: "board-rows" });
  const valueHead = h("th", { scope: "col" }, t("value"));

  async function load() {
    variant.disabled = board.value === "silver";
    minHands.disabled = board.value !== "win-rate";
    const path = board.value === "silver" ? "/leaderboards/silver"
      : board.value === "points" ? `/leaderboards/points/${variant.value}`
        : `/leaderboards/win-rate/${variant.value}?min_hands=${Number(minHands.value) || 1}`;
    const data = await api("GET", path);
    valueHead.textContent = t(board.value === "silver" ? "balance" : board.value === "points" ? "points" : "win_rate");
    body.replaceChildren(...data.rows.map((r) => h("tr", {},
      h("td", { class: "num" }, r.rank),
      h("td", {}, r.username),
      h("td", {}, r.title),
      h("td", { class: "num" }, board.value === "win-rate"
        ? `${(r.value * 100).toFixed(1)}% (${r.wins}/${r.hands})` : fmt(r.value)))));
  }
  for (const el of [board, variant, minHands]) el.addEventListener("change", load);
  main.append(
    h("h1", {}, t("leaders_title")),
    h("section", { class: "card" },
      h("div", { class: "row" }, board, variant, minHands),
      h("table", { class: "grid", id: "board" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rank")), h("th", { scope: "col" }, t("player")),
          h("th", { scope: "col" }, t("title")), valueHead)),
        body)));
  await load();
}
