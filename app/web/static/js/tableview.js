// Drawing the table from the controller's state: four seats around the centre (this seat at
// the bottom, the next seat in turn order on the right), the action bar with exactly the
// legal actions, the own hand (wilds first), and the settlement dialog.

import { h, fmt } from "./dom.js";
import { reason, special, t } from "./i18n.js";
import { silverMoved } from "./model.js";
import { runOf, sortHand, tileElement, tileName } from "./tiles.js";

const WINDS = ["east", "south", "west", "north"];
const PLACES = ["bottom", "right", "top", "left"];

function windOf(c, seat) {
  const dealer = c.hand ? c.hand.dealer : (c.tableState ? c.tableState.dealer : 0);
  return t(WINDS[(seat - dealer + 4) % 4]);
}

function tileOpts(c, code) {
  const wild = c.hand && c.hand.wild;
  return {
    wild: Boolean(wild && code && code === wild.wild),
    substitute: Boolean(wild && code && wild.substitute && code === wild.substitute && code !== wild.wild),
  };
}

function smallTile(c, code) {
  return tileElement(code, { small: true, ...tileOpts(c, code) });
}

function plate(c, seat) {
  const p = c.players[seat] || {};
  const hand = c.hand;
  const flags = [];
  if (hand && hand.dealer === seat) flags.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer")));
  if (p.bot) flags.push(h("span", { class: "badge" }, t("bot")));
  else if (p.autoplay) flags.push(h("span", { class: "badge auto" }, t("autoplay")));
  if (p.name && p.connected === false) flags.push(h("span", { class: "badge off" }, t("offline")));
  const decision = hand && hand.seats[seat].decision;
  if (decision) {
    // a non-dealer's "decline" answers the dealer's buy: 不顶 rather than 不买
    const label = decision === "decline" && hand.dealer !== seat ? t("act_decline_counter") : t(`decision_${decision}`);
    flags.push(h("span", { class: "badge decision" }, label));
  }
  const name = p.name || t("empty_seat");
  const turn = hand && !hand.ended && hand.turn === seat;
  return h("div", {
    class: "plate" + (turn ? " turn" : ""), id: `plate-${seat}`, role: "group",
    "aria-label": `${t("seat_label", { wind: windOf(c, seat), name })}` +
      (p.title ? `, ${p.title}` : "") + (p.balance !== null && p.balance !== undefined ? `, ${t("balance")} ${p.balance}` : ""),
  },
  h("span", { class: "wind", "aria-hidden": "true" }, windOf(c, seat)),
  h("span", { class: "name" }, name),
  p.title ? h("span", { class: "title" }, p.title) : null,
  p.balance !== null && p.balance !== undefined
    ? h("span", { class: "balance", dataset: { balance: p.balance } }, `${fmt(p.balance)} ${t("balance")}`) : null,
  ...flags);
}

function meldsOf(c, seat) {
  const s = c.hand.seats[seat];
  return h("div", { class: "melds", "aria-label": t("melds") },
    s.melds.map((m) => h("span", { class: `meld ${m.kind}`, "aria-label": t(`meld_${m.kind}`) },
      (m.tiles || [null, null, null, null]).map((code) => {
        const el = smallTile(c, code);
        if (code && m.claimed === code) el.classList.add("claimed-in");
        return el;
      }))));
}

function seatArea(c, seat, place) {
  const hand = c.hand;
  const area = h("section", { class: `seat seat-${place}`, id: `seat-${seat}`, dataset: { seat },
    "aria-label": t("seat_label", { wind: windOf(c, seat), name: c.nameOf(seat) }) });
  area.append(plate(c, seat));
  if (!hand) return area;
  const s = hand.seats[seat];
  if (place !== "bottom") {
    const concealed = s.hand && hand.ended
      ? sortHand(s.hand, hand.wild && hand.wild.wild).map((code) => smallTile(c, code))
      : Array.from({ length: s.count }, () => tileElement(null, { small: true }));
    area.append(h("div", { class: "concealed", "aria-label": `${s.count}` }, concealed));
  }
  area.append(meldsOf(c, seat));
  if (s.flowers.length) {
    area.append(h("div", { class: "flowers", "aria-label": t("flowers") }, s.flowers.map((f) => smallTile(c, f))));
  }
  const last = hand.lastDiscard;
  area.append(h("div", { class: "discards", "aria-label": `${t("discards")} ${c.nameOf(seat)}` },
    s.discards.map((d, i) => {
      const el = smallTile(c, d.tile);
      if (d.claimed) el.classList.add("claimed");
      if (last && last.seat === seat && i === s.discards.length - 1 && !d.claimed) el.classList.add("last");
      return el;
    })));
  return area;
}

function centre(c) {
  const hand = c.hand;
  const box = h("section", { class: "centre", "aria-label": "table" });
  if (!hand) {
    box.append(h("p", { class: "status", id: "table-status" }, c.waiting ? t("waiting_players") : t("next_hand_soon")));
    return box;
  }
  const wild = hand.wild;
  box.append(...[
    h("p", { class: "variant" }, `${t(hand.variant || c.variant || "")} · ${t("stake")} ${c.stake}`),
    h("p", { id: "wall-count", dataset: { wall: hand.wall } }, t("tiles_left", { n: hand.wall })),
    hand.dice ? h("p", { id: "dice", "aria-label": `${t("dice")} ${hand.dice.join(" + ")}` },
      `${t("dice")} `, hand.dice.map((d) => h("span", { class: "die" }, String(d)))) : null,
    wild ? h("div", { id: "wild", class: "wild-info" },
      wild.indicator ? h("span", {}, `${t("indicator")} `, smallTile(c, wild.indicator)) : null,
      h("span", {}, ` ${t("wild")} `, tileElement(wild.wild, { small: true, wild: true }))) : null,
    h("p", { id: "countdown", role: "timer", "aria-live": "off" }, ""),
    h("p", { id: "last-event", class: "status" }, c.lastEvent || ""),
  ].filter(Boolean)); // no wild (上海) or no dice yet: nothing in their place
  if (hand.ended) box.append(h("p", { class: "status", id: "table-status" }, t("next_hand_soon")));
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

function actionBar(c) {
  const bar = h("div", { id: "actions", role: "toolbar", "aria-label": t("your_hand") });
  const legal = c.prompt ? c.prompt.legal : [];
  const discards = legal.filter((a) => a.type === "discard");
  if (discards.length) bar.append(h("span", { class: "hint", id: "your-turn" }, t("your_turn")));
  legal.filter((a) => a.type !== "discard").forEach((a, i) => {
    bar.append(h("button", {
      type: "button",
      class: "act" + (a.type === "hu" ? " primary" : "") + (a.type === "pass" ? " pass" : ""),
      id: `act-${i}`,
      dataset: { action: a.type, low: a.low, tile: a.tile, choice: a.choice },
      "aria-label": actionAria(a),
      onclick: () => c.act(a),
    }, ...actionLabel(c, a)));
  });
  return bar;
}

function myHand(c) {
  const hand = c.hand;
  const mine = hand && c.seat !== null ? hand.seats[c.seat] : null;
  const box = h("div", { id: "my-hand", role: "group", "aria-label": t("your_hand") });
  if (!mine || !mine.hand) return box;
  const wild = hand.wild && hand.wild.wild;
  const legal = new Set((c.prompt ? c.prompt.legal : []).filter((a) => a.type === "discard").map((a) => a.tile));
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
    el.disabled = !can;
    el.setAttribute("aria-disabled", String(!can));
    el.tabIndex = -1;
    el.addEventListener("click", () => c.discard(code));
    if (isDrawn) el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, ${t("drawn")}`);
    return el;
  };
  const sorted = sortHand(tiles, wild);
  sorted.forEach((code, i) => box.append(make(code, i, false)));
  if (drawn) box.append(make(drawn, sorted.length, true));
  const buttons = [...box.querySelectorAll("button")];
  const firstEnabled = buttons.find((b) => !b.disabled) || buttons[0];
  if (firstEnabled) firstEnabled.tabIndex = 0;
  return box;
}

function settlementDialog(c) {
  const s = c.settlement;
  const ended = s.ended;
  const outcome = ended.outcome === "win" ? t("outcome_win") : ended.outcome === "escape" ? t("outcome_escape") : t("outcome_draw");
  const wins = s.wins.map((w) => h("div", { class: "win" },
    h("p", {}, `${t("winner")}: ${c.nameOf(w.seat)} · `,
      w.self_draw ? t("self_draw") : `${t("from_seat")} ${c.nameOf(w.from_seat)}`, " · ", smallTile(c, w.tile)),
    h("p", {}, `${t("multiplier")}: ×${w.multiplier}`),
    w.specials.length ? h("p", {}, `${t("specials")}: ${w.specials.map(special).join("、")}`) : null,
    h("div", { class: "revealed" }, w.hand.map((code) => smallTile(c, code)))));
  const penalties = ended.transfers.filter((x) => ["followed", "wild_discard", "escape"].includes(x.reason));
  const myMove = c.seat !== null ? silverMoved(ended, c.seat, c.stake) : null;
  return h("div", { class: "overlay" },
    h("div", { id: "settlement", class: "card dialog", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "settle-title", tabindex: -1 },
    h("h2", { id: "settle-title" }, `${t("settlement")} · ${outcome}`),
    h("p", {}, `${t("stake")}: ${c.stake}`),
    ...wins,
    h("table", { class: "grid", id: "settle-table" },
      h("thead", {}, h("tr", {}, [t("player"), t("net"), t("house"), t("silver_moved")].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, [0, 1, 2, 3].map((seat) => {
        const moved = silverMoved(ended, seat, c.stake);
        return h("tr", { dataset: { seat, moved } },
          h("th", { scope: "row" }, `${windOf(c, seat)} ${c.nameOf(seat)}`),
          h("td", { class: "num" }, ended.net[seat]),
          h("td", { class: "num" }, ended.house_silver ? ended.house_silver[seat] : 0),
          h("td", { class: `num ${moved < 0 ? "neg" : "pos"}` }, (moved > 0 ? "+" : "") + fmt(moved)));
      }))),
    h("h3", {}, t("transfers")),
    h("ul", { id: "settle-transfers" }, ended.transfers.map((x) => h("li", {},
      `${c.nameOf(x.payer)} → ${c.nameOf(x.payee)}: ${x.points} × ${c.stake} (${reason(x.reason)})`))),
    penalties.length ? h("p", {}, `${t("penalties")}: ${penalties.map((x) => `${c.nameOf(x.payer)} ${reason(x.reason)} ${x.points}`).join("; ")}`) : null,
    h("p", { class: "my-result" }, `${t("silver_moved")}: `,
      h("strong", { id: "settle-moved" }, myMove === null ? "" : (myMove > 0 ? "+" : "") + fmt(myMove)),
      ` · ${t("your_balance")}: `,
      h("strong", { id: "settle-balance", dataset: { balance: s.balance ?? "" }, "aria-live": "polite" },
        s.balance === null ? t("balance_pending") : fmt(s.balance))),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "settle-close", onclick: () => c.closeSettlement() }, t("close")),
      h("button", { type: "button", id: "settle-leave", onclick: () => c.leave() }, t("leave_table")))));
}

export function renderTable(main, c) {
  const empty = c.players.some((p) => !p.name);
  const top = h("div", { class: "table-bar" },
    h("h1", { class: "sr-only" }, `${t(c.variant || "")} ${t("tables")}`),
    h("span", { class: "variant-name" }, `${t(c.variant || "")} · ${t("stake")} ${c.stake}`),
    h("button", { type: "button", id: "autoplay", "aria-pressed": String(c.autoplay),
      class: c.autoplay ? "on" : "", onclick: () => c.toggleAutoplay() },
    c.autoplay ? t("autoplay_off") : t("autoplay")),
    empty && (!c.hand || c.hand.ended)
      ? h("button", { type: "button", id: "fill-bots", onclick: () => c.fillBots() }, t("fill_bots")) : null,
    h("button", { type: "button", id: "leave", onclick: () => c.leave() }, t("leave_table")),
    c.notice ? h("span", { class: "notice", role: "status" }, c.notice) : null);
  const board = h("div", { class: "board" });
  const me = c.seat ?? 0;
  const seats = PLACES.map((place, i) => seatArea(c, (me + i) % 4, place));
  board.append(seats[2], seats[3], centre(c), seats[1], seats[0]);
  const view = h("div", { class: "table-view", id: "table-view", dataset: { table: c.tableId, seat: c.seat ?? "" } },
    top, board, actionBar(c), myHand(c),
    h("p", { class: "help", id: "keyboard-help" }, t("keyboard_help")));
  if (c.settlement && !c.settlement.closed) view.append(settlementDialog(c));
  main.replaceChildren(view);
  updateCountdown(c);
}

export function updateCountdown(c) {
  const el = document.getElementById("countdown");
  if (!el) return;
  if (!c.prompt) {
    el.textContent = "";
    return;
  }
  const left = Math.max(0, Math.ceil((c.prompt.deadline - Date.now()) / 1000));
  el.textContent = t("countdown", { s: left });
  el.classList.toggle("urgent", left <= 3);
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
  if (settled) {
    const dialog = main.querySelector("#settlement");
    if (dialog) dialog.focus();
    return;
  }
  if (main.querySelector("#settlement")) return;
  if (prompted && c.prompt) {
    const act = main.querySelector("#actions button.act");
    const drawn = main.querySelector("#my-hand button.drawn:not([disabled])");
    const inHand = key && key.index !== undefined
      ? main.querySelector(`#my-hand button[data-index="${key.index}"]:not([disabled])`) : null;
    const target = act || inHand || drawn || main.querySelector("#my-hand button:not([disabled])");
    if (target) {
      target.tabIndex = 0;
      target.focus();
      return;
    }
  }
  if (!key) return;
  const el = key.id ? main.querySelector(`#${key.id}`) : main.querySelector(`#my-hand button[data-index="${key.index}"]`);
  if (el) {
    if (el.tabIndex < 0) el.tabIndex = 0;
    el.focus();
  }
}
