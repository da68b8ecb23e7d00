// The lobby (大厅): tables by variant and stake, opening a table, sitting down, quick join.

import { api, ApiError } from "./api.js";
import { h, fmt } from "./dom.js";
import { t } from "./i18n.js";

export const VARIANTS = ["lishui", "wenzhou", "huzhou", "fuzhou", "shanghai"];

function byVariantAndStake(a, b) {
  return VARIANTS.indexOf(a.variant) - VARIANTS.indexOf(b.variant) || a.stake - b.stake ||
    b.seats_taken - a.seats_taken;
}

export async function sitAt(tableId) {
  await api("POST", `/tables/${tableId}/sit`, {});
  location.hash = `#/table/${tableId}`;
}

// Quick join (快速加入): the fullest waiting table of this variant and stake with a free seat,
// or a new one.
export async function quickJoin(variant, stake) {
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
  const created = await api("POST", "/tables", { variant, stake });
  await sitAt(created.id);
}

export async function renderLobby(main, { me }) {
  const error = h("p", { class: "form-error", role: "alert", id: "lobby-error" });
  const show = (err) => { error.textContent = err instanceof ApiError ? `${err.message} (${err.code})` : String(err); };
  const filter = h("select", { id: "lobby-filter", "aria-label": t("variant") },
    h("option", { value: "" }, t("all_variants")),
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const variant = h("select", { id: "create-variant", name: "variant" },
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
  const stake = h("input", { id: "create-stake", name: "stake", type: "number", min: 1, max: 1000000,
    value: 1, required: true });
  const list = h("tbody", { id: "table-list" });
  const mine = h("p", { id: "my-table" });

  async function load() {
    error.textContent = "";
    let tables;
    try {
      tables = await api("GET", "/tables");
    } catch (err) {
      show(err);
      return;
    }
    list.replaceChildren();
    mine.replaceChildren();
    const seated = tables.find((x) => x.seats.includes(me.id));
    if (seated) {
      mine.append(h("a", { href: `#/table/${seated.id}`, class: "button primary", id: "back-to-table" },
        `${t("back_to_table")} (${t(seated.variant)} · ${seated.stake})`));
    }
    const shown = tables.filter((x) => !filter.value || x.variant === filter.value).sort(byVariantAndStake);
    if (!shown.length) list.append(h("tr", {}, h("td", { colspan: 5 }, t("no_tables"))));
    for (const table of shown) {
      const here = table.seats.includes(me.id);
      const sit = h("button", {
        type: "button", class: "sit", dataset: { table: table.id },
        disabled: table.seats_taken >= 4 || Boolean(seated) || me.balance < table.min_balance,
        "aria-label": `${t("sit")}: ${t(table.variant)}, ${t("stake")} ${table.stake}`,
        onclick: () => sitAt(table.id).catch(show),
      }, t("sit"));
      list.append(h("tr", { dataset: { table: table.id, variant: table.variant } },
        h("td", {}, t(table.variant)),
        h("td", {}, fmt(table.stake), h("br"), h("small", {}, t("min_balance", { n: fmt(table.min_balance) }))),
        h("td", {}, `${table.seats_taken} / 4`),
        h("td", {}, t(table.status)),
        h("td", {}, here ? h("a", { href: `#/table/${table.id}` }, t("back_to_table")) : sit)));
    }
  }

  const create = h("form", { class: "card", id: "create-form", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, t("create_table")),
    h("label", { for: "create-variant" }, t("variant")), variant,
    h("label", { for: "create-stake" }, t("stake")), stake,
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary", id: "create-submit" }, t("create_table")),
      h("button", { type: "button", id: "quick-join", onclick: () => {
        quickJoin(variant.value, Number(stake.value)).catch(show);
      } }, t("quick_join"))));
  create.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const created = await api("POST", "/tables", { variant: variant.value, stake: Number(stake.value) });
      await sitAt(created.id);
    } catch (err) {
      show(err);
    }
  });
  filter.addEventListener("change", load);

  main.append(
    h("h1", {}, t("lobby_title")),
    mine,
    error,
    h("div", { class: "lobby" },
      h("section", { class: "card", "aria-labelledby": "tables-title" },
        h("div", { class: "row" }, h("h2", { id: "tables-title" }, t("tables")), filter,
          h("button", { type: "button", id: "lobby-refresh", onclick: load }, t("refresh"))),
        h("table", { class: "grid" },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, t("variant")), h("th", { scope: "col" }, t("stake")),
            h("th", { scope: "col" }, t("seats")), h("th", { scope: "col" }, t("status")),
            h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("sit"))))),
          list)),
      create));
  await load();
  return load;
}
