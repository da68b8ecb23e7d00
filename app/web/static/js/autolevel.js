// The level of the player's own 托管 (autoplay): 普通 (standard, the rule book's 托管: 胡 when
// it can, no claims, the greedy discard) or 高手 (expert: the expert bot plays the seat).
// Kept in localStorage like the sound settings, and sent with every 托管 on (`autoplay`
// `level`). 新手 is not offered: nobody asks to be played badly.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const LEVEL_KEY = "zj-autoplay-level";
export const AUTOPLAY_LEVELS = ["standard", "expert"];

export function autoplayLevel() {
  return localStorage.getItem(LEVEL_KEY) === "expert" ? "expert" : "standard";
}

export function setAutoplayLevel(level) {
  localStorage.setItem(LEVEL_KEY, level === "expert" ? "expert" : "standard");
}

// the 托管 button's text: off, or on at the level the server plays (`table_state`): "取消托管
// · 高手" (on a phone the level goes under the words, so that the bar keeps to one row)
export function autoplayLabel(c) {
  if (!c.autoplay) return [t("autoplay")];
  if (c.autoplayPlaying !== "expert") return [t("autoplay_off")];
  return [t("autoplay_off"), h("span", { class: "autoplay-level" },
    h("span", { class: "autoplay-sep" }, " · "), t("autoplay_short_expert"))];
}

// the choice in the settings menu: two radio buttons, each a full-width 40 px row
export function autoplayChoice(c, redraw) {
  const mine = autoplayLevel();
  const pick = (level) => {
    setAutoplayLevel(level);
    if (c.autoplay) c.setAutoplayLevel(level); // on already: it plays at the new level now
    redraw();
  };
  return h("div", { id: "autoplay-level", class: "fx-choice", role: "radiogroup", "aria-label": t("autoplay_level") },
    h("span", { class: "fx-choice-label" }, t("autoplay_level")),
    ...AUTOPLAY_LEVELS.map((level) => h("button", {
      type: "button", id: `autoplay-level-${level}`, role: "radio", "aria-checked": String(level === mine),
      class: "fx-toggle" + (level === mine ? " on" : ""), onclick: () => pick(level),
    }, h("span", { class: "fx-radio", "aria-hidden": "true" }), t(`autoplay_${level}`))));
}
