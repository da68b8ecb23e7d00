// The player's hand under the fingers and keys: a tap (or click) on a tile, the discard (a
// costly wild asks first), and the table's keyboard (←→ choose a tile, Enter throws it, D the
// tile drawn, H 胡, P 碰, K 杠, C 吃, G or Esc 过, T 托管; Esc also closes what is open). What
// is sent goes through the controller (`c.act`, table.js); a 上海 dead-end claim asks first
// (claimwarn.js).

import { answerDeadEnd, chooseAction } from "./claimwarn.js";
import { wildDiscardCosts } from "./tablerules.js";
import { toggleChat } from "./tablechat.js";

// a narrow screen or a touch screen: a tap selects a tile, a second tap discards it
const CONFIRM_FIRST = "(max-width: 800px), (pointer: coarse)";

export function mayDiscard(c, tile) {
  return Boolean(c.prompt && c.prompt.legal.some((a) => a.type === "discard" && a.tile === tile));
}

export function confirmFirst() {
  return window.matchMedia(CONFIRM_FIRST).matches;
}

// A tap (or click) on a tile of the hand: on a narrow or touch screen the first tap
// selects and the second discards; a mouse click or the keyboard discards at once. A
// tile the rules hold back says why.
export function tapTile(c, tile, index, { keyboard = false } = {}) {
  if (!c.prompt) return;
  if (!mayDiscard(c, tile)) {
    const el = c.main.querySelector(`#my-hand button[data-index="${index}"]`);
    c.restrictNote = (el && el.dataset.reason) || "";
    c.selected = null;
    c.render();
    return;
  }
  c.restrictNote = "";
  const again = c.selected && c.selected.index === index && c.selected.tile === tile;
  if (!keyboard && !again && confirmFirst()) {
    c.selected = { tile, index };
    c.render();
    const el = c.main.querySelector(`#my-hand button[data-index="${index}"]`);
    if (el) el.focus({ preventScroll: true });
    return;
  }
  discard(c, tile);
}

export function discard(c, tile) {
  if (!mayDiscard(c, tile)) return;
  const wild = c.hand && c.hand.wild ? c.hand.wild.wild : null;
  if (wildDiscardCosts(c.variant, tile, wild)) {
    c.confirming = tile; // 误打财神 costs a point to each seat: ask first
    c.render();
    return;
  }
  c.act({ type: "discard", tile });
}

export function confirmDiscard(c, yes) {
  const tile = c.confirming;
  c.confirming = null;
  if (yes && tile && mayDiscard(c, tile)) c.act({ type: "discard", tile });
  else c.render();
}

export function keydown(c, ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const target = ev.target;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  const key = ev.key.toLowerCase();
  if (key === "escape" && (c.confirming || c.confirmingClaim || c.logOpen || c.chatOpen)) {
    if (c.confirmingClaim) answerDeadEnd(c, false);
    else if (c.confirming) confirmDiscard(c, false);
    else if (c.chatOpen) toggleChat(c, false);
    else c.toggleLog(false);
    ev.preventDefault();
    return;
  }
  if (c.spectator || !c.link.live) return; // nothing to play, or no link to play on
  const legal = c.prompt ? c.prompt.legal : [];
  const first = (type) => legal.find((a) => a.type === type);
  if (key === "arrowleft" || key === "arrowright") {
    const tiles = [...c.main.querySelectorAll("#my-hand button.tile")];
    if (!tiles.length) return;
    const at = tiles.indexOf(document.activeElement);
    const next = at < 0 ? 0 : (at + (key === "arrowright" ? 1 : tiles.length - 1)) % tiles.length;
    tiles.forEach((b, i) => { b.tabIndex = i === next ? 0 : -1; });
    tiles[next].focus();
    ev.preventDefault();
    return;
  }
  let action = null;
  if (key === "h") action = first("hu");
  else if (key === "p") action = first("pung");
  else if (key === "k") action = first("exposed_kong") || first("concealed_kong") || first("added_kong");
  else if (key === "g" || key === "escape") action = first("pass");
  else if (key === "d" && c.hand && c.hand.drawn) {
    if (mayDiscard(c, c.hand.drawn)) {
      ev.preventDefault();
      discard(c, c.hand.drawn); // a costly wild still asks first
    }
    return;
  } else if (key === "c") {
    const chows = legal.filter((a) => a.type === "chow");
    if (chows.length === 1) action = chows[0];
    else if (chows.length > 1) {
      const button = c.main.querySelector('#actions button[data-action="chow"]');
      if (button) button.focus();
      ev.preventDefault();
      return;
    }
  } else if (key === "t") {
    c.toggleAutoplay();
    ev.preventDefault();
    return;
  }
  if (action) {
    ev.preventDefault();
    chooseAction(c, action); // a 上海 dead-end claim asks first
  }
}
