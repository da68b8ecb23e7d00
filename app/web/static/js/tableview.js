// Drawing the table from the controller's state, laid out as players of 雀魂 or 欢乐麻将
// expect: this seat at the bottom with its hand along the bottom edge, the next seat in turn
// order on the right, the one across at the top; each seat's discards in a grid of fixed size
// in front of it (so the board never grows and pushes the hand down), its melds beside its
// hand with the claimed tile turned and its giver named, its flowers apart; a centre with
// the winds (whose turn, who deals), the wall count, the wild and the dice; a timer on every
// seat that is thinking; the action bar with exactly the legal actions and the rule behind
// any tile held back; the action log. Dialogs are in tabledialogs.js.

import { h, fmt } from "./dom.js";
import { t, titleName } from "./i18n.js";
import { buyInHelp, discardRestriction, wildName } from "./tablerules.js";
import { runOf, sortHand, tileElement, tileName } from "./tiles.js";
import { howToWinButton } from "./howtowin.js";
import { confirmDialog, settlementDialog } from "./tabledialogs.js";
import { chooseAction, deadEndDialog } from "./claimwarn.js";
import { mayFillBots, roomDialogs, roomStrip } from "./tableroom.js";
import { cupDialogs, cupStrip } from "./tableevent.js";
import { waitingBlock, waitingMid } from "./tablewait.js";
import { windToast } from "./tablewind.js";
import { autoplayLabel } from "./autolevel.js";
import { bubbleOf, chatPanel, toggleChat } from "./tablechat.js";
import { confirmFirst, discard, tapTile } from "./tableinput.js";
import { botLevelBadge } from "./botlevel.js";

const WINDS = ["east", "south", "west", "north"];
const PLACES = ["bottom", "right", "top", "left"];
// discards a river holds at full size (columns x rows in client.css); past that they shrink
const RIVER_ROOM = { wide: { mid: 24, side: 24 }, narrow: { mid: 28, side: 24 }, flat: { mid: 26, side: 21 } };
const NARROW = "(max-width: 800px)";
const FLAT = "(orientation: landscape) and (max-height: 520px)"; // a phone turned on its side
const FRESH_MS = 600; // a discard this new is animated into its river

export function windOf(c, seat, short = false) {
  const dealer = c.hand ? c.hand.dealer : (c.tableState ? c.tableState.dealer : 0);
  const wind = WINDS[(seat - dealer + 4) % 4];
  return t(short ? `wind_short_${wind}` : wind);
}

// where another seat sits as `seat` sees it: 上家 (the previous seat), 对家, 下家
function relation(seat, other) {
  return ["", "rel_next", "rel_across", "rel_prev"][(other - seat + 4) % 4];
}

export function tileOpts(c, code) {
  const wild = c.hand && c.hand.wild;
  return {
    wild: Boolean(wild && code && code === wild.wild),
    substitute: Boolean(wild && code && wild.substitute && code === wild.substitute && code !== wild.wild),
    wildName: wildName(c.variant),
  };
}

export function smallTile(c, code, extra = {}) {
  return tileElement(code, { small: true, ...tileOpts(c, code), ...extra });
}

function tilesCount(n) {
  return t(n === 1 ? "tiles_count_one" : "tiles_count", { n });
}

function seatTimer(seat) {
  return h("span", { class: "seat-timer", id: `timer-${seat}`, role: "timer", "aria-live": "off" });
}

function plate(c, seat) {
  const p = c.players[seat] || {};
  const hand = c.hand;
  const flags = [];
  if (p.bot) flags.push(h("span", { class: "badge bot" }, t("bot")), botLevelBadge(c));
  else if (p.autoplay) flags.push(h("span", { class: "badge auto" }, t("autoplay")));
  if (p.name && p.connected === false) flags.push(h("span", { class: "badge off" }, t("offline")));
  if (p.name && c.muted.has(seat)) {
    flags.push(h("span", { class: "badge muted", title: t("chat_muted_one", { name: p.name }) },
      t("chat_muted_badge")));
  }
  // between hands: who said 准备 (table_state's ready; a bot always is)
  const between = c.tableState && c.tableState.hand_id === null;
  if (between && p.name && p.ready && !p.bot) flags.push(h("span", { class: "badge ready" }, t("ready_done")));
  const decision = hand && hand.seats[seat].decision;
  if (decision) {
    // a non-dealer's "decline" answers the dealer's buy: 不顶 rather than 不买
    const label = decision === "decline" && hand.dealer !== seat ? t("act_decline_counter") : t(`decision_${decision}`);
    flags.push(h("span", { class: "badge decision" }, label));
  }
  const name = p.name || t("empty_seat");
  const dealer = hand ? hand.dealer : (c.tableState ? c.tableState.dealer : null);
  const isDealer = dealer === seat && (hand || c.tableState);
  const turn = hand && !hand.ended && hand.turn === seat;
  const title = titleName(p.title);
  const hasBalance = p.balance !== null && p.balance !== undefined;
  const streak = isDealer && c.streak && c.streak.k > 1 && c.variant === "wenzhou" ? c.streak.k : null;
  return h("div", {
    class: "plate" + (turn ? " turn" : ""), id: `plate-${seat}`, role: "group",
    "aria-label": `${t("seat_label", { wind: windOf(c, seat), name })}` + (isDealer ? `, ${t("dealer")}` : "") +
      (title ? `, ${title}` : "") + (hasBalance ? `, ${t("balance")} ${fmt(p.balance)}` : ""),
  },
  h("span", { class: "wind" + (isDealer ? " dealer" : ""), "aria-hidden": "true" },
    h("span", { class: "wind-long" }, windOf(c, seat)), h("span", { class: "wind-short" }, windOf(c, seat, true)),
    isDealer ? h("span", { class: "dealer-mark", title: t("dealer") }, streak ? `${t("dealer")}${streak}` : t("dealer")) : null),
  h("span", { class: "name", title: name }, name),
  hand && seat !== c.seat && hand.seats[seat].count
    ? h("span", { class: "plate-count", "aria-hidden": "true" }, tilesCount(hand.seats[seat].count)) : null,
  seatTimer(seat),
  title ? h("span", { class: "title" }, title) : null,
  hasBalance ? h("span", { class: "balance", dataset: { balance: p.balance } }, `${fmt(p.balance)} ${t("balance")}`) : null,
  ...flags);
}

// A meld as it lies: the claimed tile turned on its side, placed towards its giver (left
// for 上家, middle for 对家, right for 下家), and the giver's wind beside it (东家, from E).
function meldElement(c, seat, m) {
  const tiles = m.tiles ? [...m.tiles] : [null, null, null, null];
  const from = m.from_seat;
  const claimed = from !== null && from !== undefined && m.claimed ? m.claimed : null;
  let at = -1;
  if (claimed) {
    const i = tiles.indexOf(claimed);
    if (i >= 0) tiles.splice(i, 1);
    const rel = relation(seat, from);
    at = rel === "rel_prev" ? 0 : rel === "rel_across" ? 1 : tiles.length;
    tiles.splice(at, 0, claimed);
  }
  const added = m.kind === "added_kong" && m.claimed && !claimed ? m.claimed : null;
  const label = claimed
    ? t("meld_from", { meld: t(`meld_${m.kind}`), tile: tileName(claimed), from: c.nameOf(from) })
    : t("meld_self", { meld: t(`meld_${m.kind}`), tile: m.tiles ? tileName(m.tiles[0]) : "" });
  // the giver's mark stands above the turned tile, as wide as it and never over a face: its
  // wind, and an arrow to where the giver sits on this screen (the label names it in full)
  const dir = claimed ? PLACES[(from - (c.seat ?? 0) + 4) % 4] : null;
  return h("span", { class: `meld ${m.kind}` + (claimed ? " has-from" : ""), role: "group", "aria-label": label, title: label },
    tiles.map((code, i) => {
      const el = smallTile(c, code, { turned: i === at });
      if (i === at) {
        el.classList.add("claimed-in");
        return h("span", { class: "claimed-slot" },
          h("span", { class: "meld-from", dataset: { dir }, "aria-hidden": "true" }, windOf(c, from, true)),
          el);
      }
      if (added && code === added && i === tiles.lastIndexOf(added)) el.classList.add("added");
      return el;
    }));
}

function meldsOf(c, seat) {
  const s = c.hand.seats[seat];
  return h("div", { class: "melds", "aria-label": t("melds") }, s.melds.map((m) => meldElement(c, seat, m)));
}

function flowersOf(c, seat) {
  const s = c.hand.seats[seat];
  if (!s.flowers.length) return null;
  return h("div", { class: "flowers", role: "group", "aria-label": `${t("flowers")} ${s.flowers.length}` },
    h("span", { class: "flowers-label", "aria-hidden": "true" }, `${t("flowers")}${s.flowers.length}`),
    s.flowers.map((f) => smallTile(c, f)));
}

function concealedOf(c, seat) {
  const hand = c.hand;
  const s = hand.seats[seat];
  if (s.hand && hand.ended) {
    const shown = sortHand(s.hand, hand.wild && hand.wild.wild).map((code) => smallTile(c, code));
    return h("div", { class: "concealed revealed", "aria-label": t("hand_revealed") }, shown);
  }
  return h("div", { class: "concealed", "aria-label": tilesCount(s.count) },
    h("span", { class: "backs", "aria-hidden": "true" },
      Array.from({ length: s.count }, () => tileElement(null, { small: true }))),
    h("span", { class: "count", "aria-hidden": "true" }, tilesCount(s.count)));
}

function riverOf(c, seat, place) {
  const screen = window.matchMedia(FLAT).matches ? "flat" : window.matchMedia(NARROW).matches ? "narrow" : "wide";
  const room = RIVER_ROOM[screen][
    place === "top" || place === "bottom" ? "mid" : "side"];
  const hand = c.hand;
  const s = hand.seats[seat];
  const last = hand.lastDiscard;
  const fresh = c.freshDiscard && Date.now() - c.freshDiscard.at < FRESH_MS ? c.freshDiscard : null;
  return h("div", {
    class: "discards river" + (s.discards.length > room ? " dense" : ""), id: `river-${seat}`,
    role: "group", "aria-label": `${t("discards")} ${c.nameOf(seat)}`,
  }, s.discards.map((d, i) => {
    const el = smallTile(c, d.tile);
    if (d.claimed) el.classList.add("claimed");
    const isLast = last && last.seat === seat && i === s.discards.length - 1 && !d.claimed;
    if (isLast) {
      el.classList.add("last");
      el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, ${t("last_discard")}`);
      if (fresh && fresh.seat === seat) el.classList.add("fresh");
    }
    return el;
  }));
}


function seatArea(c, seat, place) {
  const area = h("section", { class: `seat seat-${place}` + (c.hand && !c.hand.ended && c.hand.turn === seat ? " turn" : ""),
    id: `seat-${seat}`, dataset: { seat },
    "aria-label": t("seat_label", { wind: windOf(c, seat), name: c.nameOf(seat) }) });
  const info = h("div", { class: "seat-info" }, plate(c, seat), bubbleOf(c, seat));
  area.append(info);
  if (!c.hand) return area;
  if (place !== "bottom" || c.spectator) info.append(seatTiles(c, seat, place));
  area.append(riverOf(c, seat, place));
  return area;
}

// A seat's hidden tiles (another seat's), melds and flowers. A player's own lie under its
// hand (#my-melds), where a phone has room to show them large.
function seatTiles(c, seat, place) {
  const row = h("div", { class: "seat-tiles" });
  if (place !== "bottom" || c.spectator) row.append(concealedOf(c, seat));
  row.append(meldsOf(c, seat));
  const flowers = flowersOf(c, seat);
  if (flowers) row.append(flowers);
  return row;
}

function myMelds(c) {
  if (!c.hand || c.spectator || c.seat === null || c.seat === undefined) return null;
  const row = seatTiles(c, c.seat, "bottom");
  row.id = "my-melds";
  row.classList.add("my-melds");
  row.dataset.seat = String(c.seat);
  return row;
}

function compass(c, me) {
  const hand = c.hand;
  const dealer = hand ? hand.dealer : (c.tableState ? c.tableState.dealer : null);
  const cells = PLACES.map((place, i) => {
    const seat = (me + i) % 4;
    const turn = hand && !hand.ended && hand.turn === seat;
    return h("span", { class: `compass-wind at-${place}` + (turn ? " turn" : "") + (dealer === seat ? " dealer" : ""),
      "aria-hidden": "true" }, windOf(c, seat, true));
  });
  const wall = hand ? hand.wall : null;
  // the wall count while a hand is played; between hands the seconds to the next deal
  const mid = hand && !hand.ended
    ? h("span", { id: "wall-count", dataset: { wall }, "aria-label": t("tiles_left", { n: wall }) },
      h("small", {}, t("wall_label")), h("b", {}, String(wall)))
    : !hand ? waitingMid(c) // before the first hand: who is seated, never 下局
      : h("span", { id: "ready-mid", "aria-hidden": "true" }, h("small", {}, t("next_short")), h("b", { id: "ready-seconds" }, ""));
  return h("div", { class: "compass" }, ...cells, h("span", { class: "compass-mid" }, mid));
}

function centre(c) {
  const hand = c.hand;
  const me = c.seat ?? 0;
  const box = h("section", { class: "centre", "aria-label": t("table_centre") });
  box.append(compass(c, me));
  const info = h("div", { class: "centre-info" });
  box.append(info);
  if (hand) {
    const wild = hand.wild;
    const turn = !hand.ended && hand.turn !== null && hand.turn !== undefined ? hand.turn : null;
    info.append(...[
      turn !== null ? h("p", { id: "turn-of", class: "turn-of" }, t("turn_of", { name: c.nameOf(turn) })) : null,
      wild ? h("div", { id: "wild", class: "wild-info" },
        wild.indicator && wild.indicator !== wild.wild
          ? h("span", { class: "indicator" }, `${t("indicator")} `, smallTile(c, wild.indicator)) : null,
        h("span", {}, `${capital(wildName(c.variant))} `, tileElement(wild.wild, { small: true, wild: true, wildName: wildName(c.variant) }))) : null,
      hand.dice ? h("p", { id: "dice", "aria-label": `${t("dice")} ${hand.dice.join(" + ")}` },
        h("span", { class: "dice-label" }, `${t("dice")} `), hand.dice.map((d) => h("span", { class: "die" }, String(d)))) : null,
    ].filter(Boolean)); // no wild (上海) or no dice yet: nothing in their place
  }
  if (!hand || hand.ended) {
    info.append(hand ? h("p", { class: "status", id: "table-status" }) : waitingBlock(c),
    h("p", { id: "ready-countdown", class: "ready-countdown", role: "timer", "aria-live": "off" }));
    if (c.settlement && c.settlement.closed) {
      info.append(h("button", { type: "button", id: "reopen-settlement", class: "small-button",
        "aria-label": t("last_settlement"), onclick: () => c.reopenSettlement() }, t("settlement")));
    }
    box.classList.add(hand ? "between-hands" : "waiting");
  }
  return box;
}

function actionLabel(c, a) {
  switch (a.type) {
    case "chow":
      return [t("act_chow"), " ", ...runOf(a.low).map((code) => smallTile(c, code))];
    case "concealed_kong":
    case "added_kong":
    case "special":
      return [t(a.type === "special" ? `act_${a.name}` : `act_${a.type}`), " ", smallTile(c, a.tile)];
    case "decide": {
      const counterRound = c.prompt.legal.some((x) => x.type === "decide" && x.choice === "counter");
      const key = a.choice === "decline" && counterRound ? "act_decline_counter" : `act_${a.choice}`;
      return [t(key)];
    }
    default:
      return [t(`act_${a.type}`)];
  }
}

function actionAria(a) {
  if (a.type === "chow") return `${t("act_chow")} ${runOf(a.low).map((x) => tileName(x)).join(" ")}`;
  if (a.tile && a.type !== "discard") return `${t(a.type === "special" ? `act_${a.name}` : `act_${a.type}`)} ${tileName(a.tile)}`;
  return null;
}

// What the hand may let go now, and why the rest is held back.
export function restrictionOf(c) {
  const hand = c.hand;
  const mine = hand && c.seat !== null ? hand.seats[c.seat] : null;
  if (!mine || !mine.hand || !c.prompt) return null;
  const legal = new Set(c.prompt.legal.filter((a) => a.type === "discard").map((a) => a.tile));
  return discardRestriction({ variant: c.variant, hand: mine.hand, legal, wild: hand.wild && hand.wild.wild,
    lastDiscard: hand.lastDiscard, seat: c.seat });
}

function actionBar(c) {
  const bar = h("div", { id: "actions", role: "toolbar", "aria-label": t("your_hand") });
  const legal = c.prompt ? c.prompt.legal : [];
  const discards = legal.filter((a) => a.type === "discard");
  const buttons = h("div", { class: "action-buttons" });
  bar.append(buttons);
  if (c.prompt) {
    buttons.append(h("span", { class: "my-timer" },
      discards.length ? h("span", { class: "hint", id: "your-turn" }, t("your_turn")) : null,
      h("span", { id: "countdown", role: "timer", "aria-live": "off" })));
  }
  // between hands, once the settlement is closed: 准备, or who it waits for
  const between = c.hand && c.hand.ended && c.seat !== null && (!c.settlement || c.settlement.closed);
  if (between) {
    buttons.append(c.isReady()
      ? h("span", { id: "ready-said", class: "hint" }, t("ready_waiting"))
      : h("button", { type: "button", class: "primary", id: "ready-button", onclick: () => c.sayReady() }, t("ready")));
  }
  const selected = c.selected && discards.some((a) => a.tile === c.selected.tile) ? c.selected.tile : null;
  if (selected) {
    buttons.append(h("button", { type: "button", class: "confirm-discard primary", id: "discard-selected",
      dataset: { tile: selected }, onclick: () => discard(c, selected) },
    t("act_discard_tile", { tile: tileName(selected) })));
  }
  legal.filter((a) => a.type !== "discard").forEach((a, i) => {
    buttons.append(h("button", {
      type: "button",
      class: "act" + (a.type === "hu" ? " primary" : "") + (a.type === "pass" ? " pass" : ""),
      id: `act-${i}`,
      dataset: { action: a.type, low: a.low, tile: a.tile, choice: a.choice },
      "aria-label": actionAria(a),
      onclick: () => chooseAction(c, a),
    }, ...actionLabel(c, a)));
  });
  const notes = [];
  if (legal.some((a) => a.type === "decide")) {
    const counterRound = legal.some((a) => a.type === "decide" && a.choice === "counter");
    notes.push(...buyInHelp({ counterRound, k: c.streak ? c.streak.k : null }));
  }
  const restriction = restrictionOf(c);
  if (restriction && restriction.line) notes.push(restriction.line);
  if (c.restrictNote) notes.push(c.restrictNote);
  else if (c.selected) notes.push(t("tap_again"));
  if (notes.length) {
    bar.append(h("div", { class: "rule-help", id: "rule-help", "aria-live": "polite" },
      [...new Set(notes)].map((line) => h("p", {}, line))));
  }
  return bar;
}

function myHand(c) {
  const hand = c.hand;
  const mine = hand && c.seat !== null ? hand.seats[c.seat] : null;
  const box = h("div", { id: "my-hand", role: "group", "aria-label": t("your_hand"),
    dataset: { confirm: confirmFirst() ? "1" : "0" } });
  if (!mine || !mine.hand) return box;
  const wild = hand.wild && hand.wild.wild;
  const legalActions = (c.prompt ? c.prompt.legal : []).filter((a) => a.type === "discard");
  const legal = new Set(legalActions.map((a) => a.tile));
  const restriction = restrictionOf(c);
  const tiles = [...mine.hand];
  const ownTurn = hand.turn === c.seat && !hand.ended;
  let drawn = null;
  // a fresh draw stays apart at the right, except a wild: wilds always lead the hand
  if (ownTurn && hand.drawn && hand.drawn !== wild && tiles.includes(hand.drawn)) {
    tiles.splice(tiles.lastIndexOf(hand.drawn), 1);
    drawn = hand.drawn;
  }
  const make = (code, index, isDrawn) => {
    const el = tileElement(code, { button: true, ...tileOpts(c, code) });
    el.dataset.index = String(index);
    if (isDrawn) el.classList.add("drawn");
    const can = legal.has(code);
    if (can) el.classList.add("legal");
    if (can && c.selected && c.selected.index === index && c.selected.tile === code) el.classList.add("selected");
    if (!legal.size) {
      el.disabled = true; // not this seat's turn to discard
    } else if (!can) {
      const why = restriction && restriction.reasons.get(code);
      el.classList.add("restricted");
      el.setAttribute("aria-disabled", "true");
      if (why) {
        el.title = why;
        el.dataset.reason = why;
      }
    }
    el.tabIndex = -1;
    el.addEventListener("click", (ev) => tapTile(c, code, index, { keyboard: ev.detail === 0 }));
    const marks = [];
    const ready = can ? readyOf(c, code) : null;
    if (ready) { // 听牌: this discard leaves the hand ready; hovering it shows the waits
      el.classList.add("ready");
      el.append(h("span", { class: "ready-mark", "aria-hidden": "true" }));
      el.title = waitsText(ready.waits);
      el.addEventListener("mouseenter", () => showWaits(c, ready.waits));
      el.addEventListener("mouseleave", () => showWaits(c, null));
      // the keyboard's focus too (not the focus the page gives the hand when a turn comes)
      el.addEventListener("focus", () => { if (el.matches(":focus-visible")) showWaits(c, ready.waits); });
      el.addEventListener("blur", () => showWaits(c, null));
      marks.push(t("ready_if_discarded", { waits: waitsText(ready.waits) }));
    }
    if (isDrawn) marks.push(t("drawn"));
    if (el.classList.contains("restricted")) marks.push(t("cannot_discard_now"));
    if (marks.length) el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, ${marks.join(", ")}`);
    return el;
  };
  box.append(waitsStrip(c)); // 听牌, floating above the hand
  const sorted = sortHand(tiles, wild);
  sorted.forEach((code, i) => box.append(make(code, i, false)));
  if (drawn) box.append(make(drawn, sorted.length, true));
  const buttons = [...box.querySelectorAll("button")];
  const first = buttons.find((b) => b.classList.contains("selected")) ||
    buttons.find((b) => b.classList.contains("legal")) || buttons[0];
  if (first) first.tabIndex = 0;
  return box;
}

// the prompt's 听牌 entry for discarding `code`, if any
function readyOf(c, code) {
  return (c.prompt && c.prompt.ready ? c.prompt.ready : []).find((r) => r.discard === code) || null;
}

function waitsText(waits) {
  return waits.map((w) => t("wait_n", { tile: tileName(w.tile), n: w.unseen })).join(t("list_sep"));
}

// The 听牌 strip by the hand: the waits of the tile selected or pointed at (before the
// discard), else the hand's own waits after it. `preview`: the waits of a tile pointed at
// (null: back to what the hand shows).
function waitsStrip(c) {
  const strip = h("div", { id: "ready-strip", class: "ready-strip", "aria-live": "polite" });
  fillWaits(c, strip, null);
  return strip;
}

function fillWaits(c, strip, preview) {
  const selected = c.selected ? readyOf(c, c.selected.tile) : null;
  const waits = preview || (selected && selected.waits) || c.waits;
  const before = Boolean(preview || selected);
  strip.hidden = !waits || !waits.length;
  strip.classList.toggle("preview", before);
  if (strip.hidden) {
    strip.replaceChildren();
    return;
  }
  strip.replaceChildren(h("span", { class: "ready-label" }, t(before ? "ready_after" : "ready_now")),
    ...waits.map((w) => h("span", { class: "wait", dataset: { tile: w.tile, unseen: w.unseen } },
      smallTile(c, w.tile), h("span", { class: "wait-count", "aria-hidden": "true" }, `×${w.unseen}`),
      h("span", { class: "sr-only" }, t("unseen_n", { n: w.unseen })))));
}

function showWaits(c, waits) {
  const strip = c.main.querySelector("#ready-strip");
  if (strip) fillWaits(c, strip, waits);
}

function eventStrip(c) {
  const alert = c.alert && Date.now() < c.alert.until ? c.alert : null;
  const last = c.log.length ? c.log[c.log.length - 1] : null;
  const text = alert ? alert.text() : last ? c.describe(last) : "";
  const tile = !alert && last && last.kind === "discarded" ? smallTile(c, last.tile) : null;
  return h("button", { type: "button", id: "event-strip", class: "event-strip" + (alert ? " alert" : ""),
    "aria-expanded": String(Boolean(c.logOpen)), "aria-controls": "action-log",
    onclick: () => c.toggleLog() },
  h("span", { class: "strip-label" }, t("log")),
  h("span", { id: "last-event", class: "strip-text" }, text),
  tile);
}

function actionLog(c) {
  const list = h("ol", { id: "log-entries" }, c.log.map((entry) => {
    const li = h("li", { class: `log-${entry.kind}` + (entry.seat === c.seat ? " mine" : "") + (entry.auto ? " auto" : "") },
      c.describe(entry));
    return li;
  }));
  if (!c.log.length) list.append(h("li", { class: "empty" }, t("log_empty")));
  return h("aside", { id: "action-log", class: "action-log" + (c.logOpen ? " open" : ""),
    "aria-label": t("log_title") },
  h("div", { class: "log-head" }, h("h2", {}, t("log_title")),
    h("button", { type: "button", id: "log-close", class: "small-button", "aria-label": t("close_log"),
      onclick: () => c.toggleLog(false) }, "×")),
  list);
}


// the variant and the stake; a press opens the variant's 玩法 card (howtowin.js)
function variantName(c) {
  const text = `${t(c.variant || "")} · ${t("stake_short")} ${fmt(c.stake)}`;
  if (!c.variant) return h("span", { class: "variant-name" }, text);
  return howToWinButton("table-how-to-win", () => c.variant, { text, cls: "variant-name" });
}

function tableBar(c) {
  const empty = c.players.some((p) => !p.name);
  const chat = h("button", { type: "button", id: "chat-open", "aria-expanded": String(c.chatOpen),
    "aria-controls": "chat-panel", onclick: () => toggleChat(c) }, t("chat"));
  const title = [
    h("h1", { class: "sr-only" }, `${t(c.variant || "")} ${t("tables")}`),
    variantName(c),
  ];
  const notice = c.notice ? h("p", { class: "notice", role: "status" }, c.notice) : null;
  if (c.spectator) {
    return h("div", { class: "table-bar" }, ...title,
      h("span", { class: "badge watching", id: "watching", dataset: { spectators: c.spectators } },
        t("watching_n", { n: c.spectators || 1 })),
      chat,
      h("button", { type: "button", id: "leave", onclick: () => c.stopWatching() }, t("watch_stop")),
      notice);
  }
  return h("div", { class: "table-bar" + (c.room ? " in-room" : "") }, ...title,
    c.event ? cupStrip(c) : roomStrip(c), // a tournament's table is a room the player never sees
    c.spectators ? h("span", { class: "badge watching", id: "watching", dataset: { spectators: c.spectators } },
      t("spectators_n", { n: c.spectators })) : null,
    chat,
    h("button", { type: "button", id: "autoplay", "aria-pressed": String(c.autoplay),
      class: c.autoplay ? "on" : "", onclick: () => c.toggleAutoplay() },
    ...autoplayLabel(c)),
    empty && c.hand && c.hand.ended && mayFillBots(c) // before the first hand: the centre's
      ? h("button", { type: "button", id: "fill-bots", onclick: () => c.fillBots() }, t("fill_bots")) : null,
    h("button", { type: "button", id: "leave", onclick: () => c.leave() }, t("leave_short")),
    notice);
}

export function renderTable(main, c) {
  const top = tableBar(c);
  const board = h("div", { class: "board" });
  const me = c.seat ?? 0;
  const seats = PLACES.map((place, i) => seatArea(c, (me + i) % 4, place));
  board.append(seats[2], seats[3], centre(c), seats[1], seats[0]);
  const over = c.room && c.room.status !== "open"; // a private room's session ended
  const view = h("div", { class: "table-view" + (c.spectator ? " spectating" : "") + (over ? " room-over" : ""), id: "table-view",
    dataset: { table: c.tableId, seat: c.seat ?? "", watching: c.spectator ? "1" : "" } },
  top, board, eventStrip(c), actionBar(c), myHand(c), myMelds(c), actionLog(c),
  h("p", { class: "help", id: "keyboard-help" }, t(c.spectator ? "watch_help" : "keyboard_help")));
  if (c.chatOpen) view.append(chatPanel(c));
  if (c.settlement && !c.settlement.closed) view.append(settlementDialog(c));
  if (c.confirming) view.append(confirmDialog(c));
  if (c.confirmingClaim) view.append(deadEndDialog(c));
  view.append(...(c.event ? cupDialogs(c) : roomDialogs(c)));
  const toast = windToast(c); // 你是南家 · 庄家：…
  if (toast) board.append(toast);
  c.fx.decorate(view, c);
  main.replaceChildren(view);
  const entries = main.querySelector("#log-entries");
  if (entries) entries.scrollTop = entries.scrollHeight;
  updateCountdown(c);
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function seconds(deadline) {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

// Every running timer: this seat's prompt, another seat's turn, the pause between hands.
export function updateCountdown(c) {
  const mine = c.prompt ? seconds(c.prompt.deadline) : null;
  const el = document.getElementById("countdown");
  if (el) {
    el.textContent = mine === null ? "" : t("countdown", { s: mine });
    el.classList.toggle("urgent", mine !== null && mine <= 3);
  }
  for (let seat = 0; seat < 4; seat++) {
    const chip = document.getElementById(`timer-${seat}`);
    if (!chip) continue;
    let left = null;
    if (seat === c.seat && c.prompt) left = mine;
    else if (c.turnClock && c.turnClock.seat === seat && c.hand && !c.hand.ended) left = seconds(c.turnClock.deadline);
    chip.textContent = left === null ? "" : t("timer_s", { s: left });
    chip.classList.toggle("running", left !== null);
    chip.classList.toggle("urgent", left !== null && left <= 3);
  }
  const ready = c.readyAt ? seconds(c.readyAt) : null;
  const mid = document.getElementById("ready-seconds");
  if (mid) mid.textContent = ready === null ? "…" : String(ready);
  for (const id of ["ready-countdown", "settle-countdown"]) {
    const box = document.getElementById(id);
    if (!box) continue;
    if (!c.hand || c.hand.ended) {
      box.textContent = ready === null
        ? (id === "ready-countdown" && c.hand ? t("next_hand_soon") : "")
        : t("next_hand_in", { s: ready });
    } else {
      box.textContent = "";
    }
  }
}

// Which control had focus before a redraw, so the same one gets it back afterwards.
export function focusKey(main) {
  const el = document.activeElement;
  if (!el || !main.contains(el)) return null;
  if (el.id && el.id !== "") return { id: el.id };
  if (el.dataset && el.dataset.index !== undefined) return { index: Number(el.dataset.index) };
  return null;
}

export function restoreFocus(main, c, key, { prompted = false, settled = false } = {}) {
  const confirm = main.querySelector("#confirm-dialog");
  if (confirm) {
    const no = confirm.querySelector("#confirm-no");
    if (no && !confirm.contains(document.activeElement)) no.focus();
    return;
  }
  if (settled) {
    const dialog = main.querySelector("#settlement");
    if (dialog) dialog.focus();
    return;
  }
  if (main.querySelector("#settlement")) return;
  if (prompted && c.prompt) {
    const act = main.querySelector("#actions button.act");
    const drawn = main.querySelector("#my-hand button.drawn.legal");
    const inHand = key && key.index !== undefined
      ? main.querySelector(`#my-hand button.legal[data-index="${key.index}"]`) : null;
    const target = act || inHand || drawn || main.querySelector("#my-hand button.legal");
    if (target) {
      target.tabIndex = 0;
      target.focus({ preventScroll: true });
      return;
    }
  }
  if (!key) return;
  const el = key.id ? main.querySelector(`#${key.id}`) : main.querySelector(`#my-hand button[data-index="${key.index}"]`);
  if (el) {
    if (el.tabIndex < 0) el.tabIndex = 0;
    el.focus({ preventScroll: true });
  }
}
