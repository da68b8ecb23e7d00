// Quick chat (快捷语) at the table: a player's phrases and reactions show as a bubble by the
// speaker's plate for a few seconds and as a line in the table's log; a seated player sends
// them from the chat panel, where every other player can be muted (a spectator listens).
// The controller (table.js) keeps `c.bubbles`, `c.muted` and `c.chatOpen`; this module
// changes them and draws the panel and the bubbles.

import { announce, h } from "./dom.js";
import { t } from "./i18n.js";
import { phraseText, push } from "./tablelog.js";
import { faceElement, isReaction, PHRASES, REACTIONS } from "./faces.js";

const BUBBLE_MS = 4000; // how long a chat bubble shows by its seat's plate

// a phrase of the quick chat: a bubble by the speaker's plate, a line in the log
export function onChat(c, m) {
  c.bubbles[m.seat] = { phrase: m.phrase, until: Date.now() + BUBBLE_MS };
  push(c.log, { kind: "chat", seat: m.seat, phrase: m.phrase });
  announce(c.describe({ kind: "chat", seat: m.seat, phrase: m.phrase }));
}

// the bubbles past their time go: true when the table should be drawn again without them
export function bubblesOver(c) {
  const over = Object.entries(c.bubbles).filter(([, b]) => Date.now() >= b.until);
  for (const [seat] of over) delete c.bubbles[seat];
  return over.length > 0;
}

export function toggleChat(c, open = !c.chatOpen) {
  c.chatOpen = open;
  c.render();
  const target = c.main.querySelector(open ? "#chat-panel button" : "#chat-open");
  if (target) target.focus({ preventScroll: true });
}

function say(c, phrase) {
  if (c.client.chat(c.tableId, phrase)) c.chatOpen = false;
  c.render();
  const opener = c.main.querySelector("#chat-open");
  if (opener) opener.focus({ preventScroll: true });
}

function toggleMute(c, seat) {
  c.client.mute(c.tableId, seat, !c.muted.has(seat));
}

// A phrase a player just said, by its plate for a few seconds (quick chat).
export function bubbleOf(c, seat) {
  const b = c.bubbles[seat];
  if (!b || Date.now() >= b.until) return null;
  const face = isReaction(b.phrase);
  return h("p", { class: "chat-bubble" + (face ? " face" : ""), id: `bubble-${seat}`,
    dataset: { phrase: b.phrase }, title: phraseText(b.phrase), "aria-hidden": "true" },
  face ? faceElement(b.phrase) : phraseText(b.phrase));
}

// The quick chat's panel: a seated player's phrases and reactions (a spectator does not
// chat), and a mute toggle for every other player at the table.
export function chatPanel(c) {
  const others = [0, 1, 2, 3].filter((seat) => seat !== c.seat && c.players[seat] &&
    c.players[seat].name && !c.players[seat].bot);
  const talking = c.seat !== null && !c.spectator;
  return h("section", { id: "chat-panel", class: "chat-panel", role: "dialog", "aria-labelledby": "chat-title" },
    h("div", { class: "chat-head" }, h("h2", { id: "chat-title" }, t("chat")),
      h("button", { type: "button", id: "chat-close", class: "small-button", "aria-label": t("chat_close"),
        onclick: () => toggleChat(c, false) }, "×")),
    talking
      ? h("div", { class: "chat-phrases", role: "group", "aria-label": t("chat_phrases") },
        PHRASES.map((phrase) => h("button", { type: "button", class: "phrase", dataset: { phrase },
          onclick: () => say(c, phrase) }, t(`chat_${phrase}`))))
      : h("p", { class: "chat-note" }, t("chat_spectators_listen")),
    talking
      ? h("div", { class: "chat-reactions", role: "group", "aria-label": t("chat_reactions") },
        REACTIONS.map((phrase) => h("button", { type: "button", class: "reaction", dataset: { phrase },
          "aria-label": t(`chat_${phrase}`), title: t(`chat_${phrase}`), onclick: () => say(c, phrase) },
        faceElement(phrase))))
      : null,
    others.length ? h("div", { class: "chat-mutes", role: "group", "aria-label": t("chat_mutes") },
      h("h3", {}, t("chat_mutes")),
      others.map((seat) => {
        const on = c.muted.has(seat);
        return h("button", { type: "button", class: "mute" + (on ? " on" : ""), id: `mute-${seat}`,
          "aria-pressed": String(on), dataset: { seat }, onclick: () => toggleMute(c, seat) },
        h("span", { class: "mute-state" }, on ? t("chat_muted_badge") : t("chat_mute")), " ", c.nameOf(seat));
      })) : null);
}
