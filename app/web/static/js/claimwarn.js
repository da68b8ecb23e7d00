// 上海: before a claim (吃, 碰, 明杠) the prompt marks a dead end (`dead_ends`: after it the
// hand can make no winning shape, only 大吊车, 杠开 or 八花 could still win it), the table
// asks first, as it does before a costly discard. Never in another variant.

import { h } from "./dom.js";
import { t } from "./i18n.js";

function same(a, b) {
  return a.type === b.type && (a.low ?? null) === (b.low ?? null) && (a.tile ?? null) === (b.tile ?? null);
}

export function isDeadEnd(c, action) {
  const marked = (c.prompt && c.prompt.deadEnds) || [];
  return c.variant === "shanghai" && marked.some((d) => same(d, action));
}

// An action button or key: a dead-end claim waits for a yes, anything else goes at once.
export function chooseAction(c, action) {
  if (!isDeadEnd(c, action)) {
    c.act(action);
    return;
  }
  c.confirmingClaim = action;
  c.render();
  const cancel = c.main.querySelector("#dead-end-no"); // the safe answer has the focus
  if (cancel) cancel.focus({ preventScroll: true });
}

export function answerDeadEnd(c, yes) {
  const action = c.confirmingClaim;
  c.confirmingClaim = null;
  const still = action && c.prompt && c.prompt.legal.some((a) => same(a, action));
  if (yes && still) c.act(action);
  else c.render();
}

function actWord(action) {
  const word = t(`act_${action.type}`);
  return { act: word.toLowerCase(), Act: word.charAt(0).toUpperCase() + word.slice(1) };
}

export function deadEndDialog(c) {
  const words = actWord(c.confirmingClaim);
  return h("div", { class: "overlay" },
    h("div", { id: "dead-end-dialog", class: "card dialog confirm", role: "alertdialog", "aria-modal": "true",
      "aria-labelledby": "dead-end-title", "aria-describedby": "dead-end-text" },
    h("h2", { id: "dead-end-title" }, t("dead_end_title", words)),
    h("p", { id: "dead-end-text" }, t("dead_end_text", words)),
    h("p", { class: "note" }, t("dead_end_why")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary danger", id: "dead-end-yes", onclick: () => answerDeadEnd(c, true) },
        t("dead_end_yes", words)),
      h("button", { type: "button", id: "dead-end-no", onclick: () => answerDeadEnd(c, false) }, t("confirm_cancel")))));
}
