// 玩法: a short card per variant on how a hand wins there (RULES.md 2-6), opened from the
// lobby (by the variant choice) and from the table's bar. One dialog at a time, over the
// page, in the language chosen (a language switch while it is open redraws it).

import { h } from "./dom.js";
import { hasLabel, onLangChange, t } from "./i18n.js";

export const VARIANTS = ["lishui", "wenzhou", "huzhou", "fuzhou", "shanghai"];

let shown = null; // {dialog, variant, back}: the card open now

// the card's lines: howto_<variant>_1, _2, ... as far as they go
function lines(variant) {
  const out = [];
  for (let i = 1; hasLabel(`howto_${variant}_${i}`); i++) out.push(t(`howto_${variant}_${i}`));
  return out;
}

function fill(dialog, variant) {
  dialog.dataset.variant = variant;
  dialog.replaceChildren(
    h("div", { class: "howto-head" },
      h("h2", { id: "how-to-win-title" }, t("howto_title", { variant: t(variant) })),
      h("button", { type: "button", id: "how-to-win-close", class: "small-button", "aria-label": t("howto_close"),
        onclick: () => closeHowToWin() }, "×")),
    h("ul", { class: "howto-lines" }, lines(variant).map((line) => h("li", {}, line))),
    h("p", { class: "howto-more" }, t("howto_more")));
}

// Opens the card of `variant`; focus comes back to what had it when the card closes.
export function openHowToWin(variant) {
  if (!VARIANTS.includes(variant)) return;
  closeHowToWin();
  const dialog = h("dialog", { id: "how-to-win", class: "card dialog how-to-win",
    "aria-labelledby": "how-to-win-title" });
  fill(dialog, variant);
  dialog.addEventListener("close", () => closeHowToWin());
  dialog.addEventListener("click", (ev) => { if (ev.target === dialog) closeHowToWin(); }); // the backdrop
  document.body.append(dialog);
  shown = { dialog, variant, back: document.activeElement };
  dialog.showModal();
  dialog.querySelector("#how-to-win-close").focus();
}

export function closeHowToWin() {
  if (!shown) return;
  const { dialog, back } = shown;
  shown = null;
  if (dialog.open) dialog.close();
  dialog.remove();
  if (back && back.isConnected) back.focus({ preventScroll: true });
}

// the button that opens it: `variant()` says which card, when pressed. `text`: the
// button's own words (the table's bar: its variant and stake), with a "?" after them.
export function howToWinButton(id, variant, { text = null, cls = "" } = {}) {
  const attrs = { type: "button", id, class: `how-to-win-open ${cls}`.trim(), "aria-haspopup": "dialog",
    title: t("howto_open_hint"), onclick: () => openHowToWin(variant()) };
  if (text === null) return h("button", attrs, t("howto_open"));
  return h("button", { ...attrs, "aria-label": `${text}, ${t("howto_open")}` },
    text, h("span", { class: "howto-q", "aria-hidden": "true" }, "?"));
}

onLangChange(() => { if (shown) fill(shown.dialog, shown.variant); });
