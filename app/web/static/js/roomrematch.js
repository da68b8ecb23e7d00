// 再来一局 on a private room's final scoreboard (docs/rooms.md "Rematch"): a player of the
// room opens a new room with the same rules and owner (POST /rooms/{code}/rematch) and sits
// in it; every other player's scoreboard then says "X 邀请你再来一局" with a button that
// seats them there (the old room's `rematch`, from its `room` message). Declining is simply
// not joining.

import { api } from "./api.js";
import { h } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { joinRoom } from "./rooms.js";

function isPlayer(room, me) {
  const board = room.scoreboard;
  return room.owner_id === me || Boolean(board && board.players.some((p) => p.account_id === me));
}

function nameOf(room, account) {
  const board = room.scoreboard;
  const known = board && board.players.find((p) => p.account_id === account);
  return known ? known.name : "…";
}

async function busy(c, work) {
  c.rematchBusy = true;
  c.rematchError = "";
  c.render();
  try {
    await work();
  } catch (err) {
    c.rematchError = errorText(err);
  }
  c.rematchBusy = false;
  c.render();
}

function start(c) {
  return busy(c, async () => {
    const made = await api("POST", `/rooms/${c.room.code}/rematch`);
    if (made.status === "open") {
      c.room = { ...c.room, rematch: { code: made.code, table_id: made.table_id, by: c.me.id } };
      await joinRoom(made.code, made);
    } else if (c.room.rematch === null) { // opened and closed again meanwhile: nothing to join
      c.rematchError = t("rematch_gone");
    }
  });
}

function join(c) {
  const r = c.room.rematch;
  return busy(c, () => joinRoom(r.code, { table_id: r.table_id }));
}

// The scoreboard's 再来一局 part, for a player of the room (null for anyone else).
export function rematchPart(c) {
  const room = c.room;
  const me = c.me.id;
  if (!room || room.status === "open" || c.spectator || !isPlayer(room, me)) return null;
  const r = room.rematch;
  const error = c.rematchError ? h("p", { class: "form-error", role: "alert", id: "room-rematch-error" }, c.rematchError) : null;
  if (!r) {
    return h("div", { class: "room-rematch", id: "room-rematch" },
      h("button", { type: "button", class: "primary", id: "room-rematch-start", disabled: Boolean(c.rematchBusy),
        onclick: () => start(c) }, t("rematch")),
      error);
  }
  const text = r.by === me ? t("rematch_mine", { code: r.code })
    : t("rematch_invited", { name: nameOf(room, r.by), code: r.code });
  return h("div", { class: "room-rematch invited", id: "room-rematch", dataset: { code: r.code } },
    h("p", { id: "room-rematch-text", role: "status" }, text),
    h("button", { type: "button", class: "primary", id: "room-rematch-join", disabled: Boolean(c.rematchBusy),
      onclick: () => join(c) }, t("rematch_join")),
    error);
}

// The same on the room's page (#/room/<code>): a player who left the table still finds the
// rematch there, or the invitation to it.
export function rematchOnPage(room, me) {
  const box = h("div", { class: "room-rematch-page" });
  const c = { room, me, spectator: false, rematchBusy: false, rematchError: "",
    render() { box.replaceChildren(...[rematchPart(c)].filter(Boolean)); } };
  c.render();
  return box;
}
