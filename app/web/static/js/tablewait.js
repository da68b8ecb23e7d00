// The table before its first hand (docs/rooms.md "Before the first hand"): the centre says
// who is seated and who is awaited ("等待玩家 2/4", each seat's wind with a name or an empty
// chair), a private room's 邀请, and the owner's call for bots. Never "下局 …": no hand has
// been dealt, so there is no next one to count down to.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { mayFillBots, roomInvite } from "./tableroom.js";

const WINDS = ["east", "south", "west", "north"];

export function seatedCount(c) {
  return c.players.filter((p) => p.name).length;
}

// The compass's middle before the first hand: "2/4" under 等待.
export function waitingMid(c) {
  const n = seatedCount(c);
  return h("span", { id: "waiting-mid", "aria-hidden": "true" }, h("small", {}, t("waiting_short")), h("b", {}, `${n}/4`));
}

// The centre's block before the first hand (null once a hand was dealt).
export function waitingBlock(c) {
  if (c.hand) return null;
  const n = seatedCount(c);
  const room = c.room && c.room.status === "open" ? c.room : null;
  const me = c.seat;
  // seats in wind order (东 南 西 北) as they stand before the deal
  const seats = [0, 1, 2, 3].map((seat) => {
    const p = c.players[seat] || {};
    const wind = t(`wind_short_${WINDS[seat]}`);
    return h("li", { class: "waiting-seat" + (p.name ? " taken" : " empty") + (seat === me ? " mine" : ""),
      dataset: { seat, name: p.name || "" } },
    h("span", { class: "waiting-wind", "aria-hidden": "true" }, wind),
    h("span", { class: "waiting-name" }, p.name ? p.name : t("waiting_empty_chair")),
    seat === me ? h("span", { class: "tag you-tag" }, t("lobby_seat_you")) : null);
  });
  const bots = n < 4 && !c.spectator && c.seat !== null && mayFillBots(c)
    ? h("button", { type: "button", id: "fill-bots", onclick: () => c.fillBots() }, t("fill_bots")) : null;
  return h("div", { class: "waiting-box", id: "waiting", dataset: { seated: n } },
    h("p", { class: "waiting-count", id: "waiting-count", role: "status" }, t("waiting_count", { n })),
    h("ul", { class: "waiting-seats", id: "waiting-seats", "aria-label": t("seats") }, seats),
    room || bots ? h("div", { class: "row waiting-actions" },
      room && !c.spectator ? roomInvite(c, "waiting-invite", true) : null, bots) : null);
}
