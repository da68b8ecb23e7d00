// The seat wind at the deal (门风, docs/rooms.md "The seat wind"): the winds turn with the
// dealer, so when a hand is dealt and this player's wind or the dealer differs from the
// hand before (or it is the first hand this page sees), a short notice in the event strip
// ("你是南家 · 庄家：张三", a toast of its own over the board: the event strip's alerts stay
// for what the server did for the player) and a line in the table's log, once per hand. The
// wind marks of the seats stay on the table throughout.

import { h } from "./dom.js";
import { push } from "./tablelog.js";

const TOAST_MS = 4000;

const WINDS = ["east", "south", "west", "north"];

export function seatingNotice(c, e) {
  if (c.spectator || c.seat === null || c.seat === undefined || e.dealer === undefined) return;
  const wind = WINDS[(c.seat - e.dealer + 4) % 4];
  const before = c.seating;
  c.seating = { wind, dealer: e.dealer };
  if (before && before.wind === wind && before.dealer === e.dealer) return;
  const entry = { kind: "seating", seat: c.seat, dealer: e.dealer, wind };
  push(c.log, entry);
  c.windToast = { entry, until: Date.now() + TOAST_MS };
  setTimeout(() => c.render(), TOAST_MS + 50);
}

// The toast while it lasts (null after).
export function windToast(c) {
  const toast = c.windToast;
  if (!toast || Date.now() >= toast.until) return null;
  return h("p", { class: "wind-toast", id: "wind-toast", role: "status" }, c.describe(toast.entry));
}
