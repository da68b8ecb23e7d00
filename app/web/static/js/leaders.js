// Leaderboards (排行榜): by silver, by points in a variant, by win rate in a variant among
// players with at least the chosen number of hands. An empty board says why it is empty.
// Your own row is marked (你 / You); when it is not on the page shown, a line under the board
// says your rank and value (GET .../me), or why the board does not rank you yet.

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

function valueText(kind, r) {
  return kind === "win-rate"
    ? `${(r.value * 100).toFixed(1)}% (${fmt(r.wins)}/${fmt(r.hands)})` : fmt(r.value);
}

// The line under the board: where the player stands when their row is not on the page.
function mineText(kind, variant, min, mine) {
  if (mine.rank !== null) {
    return t("board_mine", { rank: fmt(mine.rank), value: valueText(kind, mine) });
  }
  if (kind === "win-rate") {
    return t("board_mine_few", { variant: t(variant), hands: fmt(mine.hands), n: fmt(min) });
  }
  return t("board_mine_unranked", { variant: t(variant) });
}

export async function renderLeaders(main, { me } = {}) {
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
  const mineLine = h("p", { id: "board-mine", class: "board-mine", hidden: true });
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
    const mePath = kind === "win-rate" ? path.replace("?", "/me?") : `${path}/me`;
    let data;
    let mine = null;
    try {
      [data, mine] = await Promise.all([api("GET", path), me ? api("GET", mePath).catch(() => null) : null]);
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    error.textContent = "";
    valueHead.textContent = t(kind === "silver" ? "balance" : kind === "points" ? "points" : "win_rate");
    const myName = me ? me.username : null;
    body.replaceChildren(...data.rows.map((r) => {
      const own = r.username === myName;
      return h("tr", { class: own ? "mine" : null, "aria-current": own ? "true" : null },
        h("td", { class: "num" }, r.rank),
        h("td", { class: "player" }, r.username, own ? h("span", { class: "tag you-tag" }, t("board_you")) : null),
        h("td", {}, titleName(r.title)),
        h("td", { class: "num" }, valueText(kind, r)));
    }));
    const onPage = data.rows.some((r) => r.username === myName);
    mineLine.hidden = !mine || onPage;
    mineLine.textContent = mine && !onPage ? mineText(kind, variant.value, min, mine) : "";
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
      h("div", { class: "scroll-x" }, table),
      mineLine));
  await load();
}
