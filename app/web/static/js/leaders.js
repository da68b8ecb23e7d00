// Leaderboards (排行榜): by silver, by points in a variant, by win rate in a variant among
// players with at least the chosen number of hands. An empty board says why it is empty.

import { api } from "./api.js";
import { h, fmt } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { currentLang, t } from "./i18n.js";
import { titleName } from "./ranks.js";
import { VARIANTS } from "./lobby.js";

const DEFAULT_MIN_HANDS = 20;

function emptyText(kind, variant, minHands) {
  if (kind === "silver") return t("board_empty_silver");
  if (kind === "points") return t("board_empty_points", { variant: t(variant) });
  const said = t("board_empty_win_rate", { variant: t(variant), n: fmt(minHands) });
  return minHands > 1 ? [said, t("board_lower_min")].join(currentLang() === "zh" ? "" : " ") : said;
}

export async function renderLeaders(main) {
  const board = h("select", { id: "board-kind" },
    h("option", { value: "silver" }, t("by_silver")),
    h("option", { value: "points" }, t("by_points")),
    h("option", { value: "win-rate" }, t("by_win_rate")));
  const variant = h("select", { id: "board-variant" },
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const minHands = h("input", { id: "board-min", type: "number", min: 1, step: 1, value: DEFAULT_MIN_HANDS,
    inputmode: "numeric" });
  const field = (id, label, control) => h("div", { class: "field", id: `${id}-field` },
    h("label", { for: control.id }, label), control);
  const variantField = field("board-variant", t("board_variant"), variant);
  const minField = field("board-min", t("board_min_hands"), minHands);
  const body = h("tbody", { id: "board-rows" });
  const valueHead = h("th", { scope: "col", class: "num" }, t("value"));
  const empty = h("p", { id: "board-empty", class: "empty-note", hidden: true });
  const error = h("p", { class: "form-error", role: "alert", id: "board-error" });
  const table = h("table", { class: "grid", id: "board" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, t("rank")),
      h("th", { scope: "col" }, t("player")), h("th", { scope: "col" }, t("title")), valueHead)),
    body);

  async function load() {
    const kind = board.value;
    variantField.hidden = kind === "silver";
    minField.hidden = kind !== "win-rate";
    const min = Math.max(1, Math.floor(Number(minHands.value)) || 1);
    const path = kind === "silver" ? "/leaderboards/silver"
      : kind === "points" ? `/leaderboards/points/${variant.value}`
        : `/leaderboards/win-rate/${variant.value}?min_hands=${min}`;
    let data;
    try {
      data = await api("GET", path);
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    error.textContent = "";
    valueHead.textContent = t(kind === "silver" ? "balance" : kind === "points" ? "points" : "win_rate");
    body.replaceChildren(...data.rows.map((r) => h("tr", {},
      h("td", { class: "num" }, r.rank),
      h("td", { class: "player" }, r.username),
      h("td", {}, titleName(r.title)),
      h("td", { class: "num" }, kind === "win-rate"
        ? `${(r.value * 100).toFixed(1)}% (${fmt(r.wins)}/${fmt(r.hands)})` : fmt(r.value)))));
    table.hidden = data.rows.length === 0;
    empty.hidden = data.rows.length > 0;
    empty.textContent = data.rows.length ? "" : emptyText(kind, variant.value, min);
  }
  for (const el of [board, variant, minHands]) el.addEventListener("change", load);
  main.append(
    h("h1", {}, t("leaders_title")),
    h("section", { class: "card" },
      h("div", { class: "row board-bar" }, field("board-kind", t("board_kind"), board), variantField, minField),
      error,
      empty,
      h("div", { class: "scroll-x" }, table)));
  await load();
}
