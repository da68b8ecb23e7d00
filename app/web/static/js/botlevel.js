// The level of a table's house bots (issue 39): 新手 / 普通 / 高手 (beginner, standard, expert).
// The create-table and room forms choose it (普通 unless the player picks another: the bot the
// house always played); a bot's seat plate shows it beside the 机器人 badge; a room's facts
// name it. The server says it in table_state.bot_level and GET /tables/{id}/players.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const BOT_LEVELS = ["beginner", "standard", "expert"];
export const DEFAULT_BOT_LEVEL = "standard";

function known(level) {
  return BOT_LEVELS.includes(level) ? level : DEFAULT_BOT_LEVEL;
}

export function botLevelName(level) {
  return t(`bot_level_${known(level)}`);
}

// The forms' choice: a labelled select, 普通 chosen; its hint says what each level means.
export function botLevelField(id) {
  const select = h("select", { id, name: id, "aria-describedby": `${id}-hint` },
    BOT_LEVELS.map((level) => h("option", { value: level, selected: level === DEFAULT_BOT_LEVEL },
      botLevelName(level))));
  const hint = h("p", { class: "field-hint bot-level-hint", id: `${id}-hint`, "aria-live": "polite" });
  const say = () => { hint.textContent = t(`bot_level_${known(select.value)}_hint`); };
  select.addEventListener("change", say);
  say();
  return { select, hint, label: h("label", { for: id }, t("bot_level")) };
}

// The table's level as the page knows it: the latest table_state, else GET .../players.
export function tableBotLevel(c) {
  return known((c.tableState && c.tableState.bot_level) || c.botLevel);
}

// The badge beside a bot's 机器人 badge on its seat plate.
export function botLevelBadge(c) {
  const level = tableBotLevel(c);
  return h("span", { class: `badge bot-level level-${level}`, title: t("bot_level_title", { level: botLevelName(level) }) },
    botLevelName(level));
}
