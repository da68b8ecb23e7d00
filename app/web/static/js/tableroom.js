// The table page of a private room (好友房, docs/rooms.md): the room strip in the table's bar
// (the code, large, a tap copies it; the progress, 第 2/8 局; the rules in words behind a
// toggle; 解散), the dissolve vote (a dialog for a player asked to agree, its countdown and
// who agreed; a line in the strip for the others), and once the room is over the session
// scoreboard (大结算) with the way back to the lobby. The controller (table.js) keeps the
// room in `c.room`, from GET /rooms/{code} when the page opens and each `room` message.

import { api, ApiError } from "./api.js";
import { h } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { copyText, inviteButton } from "./roominvite.js";
import { rematchPart } from "./roomrematch.js";
import { handsPlayed, progressText, roomOptions, rulesBlock, scoreboardView, statusText } from "./rooms.js";

const COPIED_MS = 2000;
const SVG = "http://www.w3.org/2000/svg";

// two sheets, one over the other: "copy"
function copyIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "copy-icon");
  svg.setAttribute("aria-hidden", "true");
  for (const [x, y] of [[5, 1], [1, 5]]) {
    const rect = document.createElementNS(SVG, "rect");
    for (const [k, v] of Object.entries({ x, y, width: 10, height: 10, rx: 2 })) rect.setAttribute(k, String(v));
    svg.append(rect);
  }
  return svg;
}

// --- the controller's side -----------------------------------------------------------------------

// The room of this table, read when the page learns its code (GET /tables/{id}/players
// names it for a player seated there).
export async function loadRoom(c, code) {
  if (c.roomCode === code) return;
  c.roomCode = code;
  try {
    const room = await api("GET", `/rooms/${code}`);
    if (room.table_id === c.tableId) applyRoom(c, room);
    c.roomSpecs = (await roomOptions())[room.variant] || null;
  } catch {
    c.roomCode = null; // read again with the next players read
    return;
  }
  c.render();
}

// A room as the server shows it now (a `room` message, or the answer to a dissolve or a vote).
export function applyRoom(c, room) {
  const before = c.room;
  c.room = room;
  c.roomCode = room.code;
  c.voteEnds = room.vote ? Date.now() + room.vote.seconds_left * 1000 : null;
  if (before && before.vote && !room.vote && room.status === "open") {
    c.warn(() => t("room_vote_failed")); // a refusal, or the deadline: play goes on
  }
  if (room.status !== "open" && (!before || before.status === "open")) {
    // the session is over: its scoreboard replaces the last settlement; no next hand
    c.boardOpen = true;
    c.focusBoard = true;
    if (c.settlement) c.settlement.closed = true;
    c.prompt = null;
    c.readyAt = null;
    c.rulesOpen = false;
  }
}

export function onRoomMessage(c, m) {
  if (!m.room || m.room.table_id !== c.tableId) return;
  applyRoom(c, m.room);
}

// Whether the session has dealt (before it only the owner dissolves, at once).
function started(c) {
  return c.room.hands_played > 0 || Boolean(c.hand);
}

function isOwner(c) {
  return c.room && c.room.owner_id === c.me.id;
}

// The owner of a room calls bots; nobody else may.
export function mayFillBots(c) {
  return !c.room || isOwner(c);
}

async function dissolve(c) {
  const vote = started(c);
  if (!window.confirm(t(vote ? "room_dissolve_ask" : "room_dissolve_confirm"))) return;
  try {
    applyRoom(c, await api("POST", `/rooms/${c.room.code}/dissolve`));
    c.notice = "";
  } catch (err) {
    c.notice = errorText(err);
  }
  c.render();
}

async function vote(c, agree) {
  try {
    applyRoom(c, await api("POST", `/rooms/${c.room.code}/vote`, { agree }));
  } catch (err) {
    if (err instanceof ApiError && err.code === "no_vote" && c.room) {
      c.room = { ...c.room, vote: null }; // it ended meanwhile
    }
    c.notice = errorText(err);
  }
  c.render();
}

async function copyCode(c) {
  flash(c, "code", await copyText(c.room.code) ? "copied" : "failed");
}

// "copied" (or "shared", "failed") said where it was asked, for a moment
export function flash(c, what, result) {
  if (result === "cancelled") return;
  c.copied = what;
  c.copiedUntil = Date.now() + COPIED_MS;
  c.copyFailed = result === "failed";
  c.copyResult = result;
  c.render();
  setTimeout(() => c.render(), COPIED_MS + 50);
}

// The 邀请 button of the room strip and of the waiting state: its text says what happened.
export function roomInvite(c, id = "room-invite", primary = false) {
  const shown = c.copiedUntil && Date.now() < c.copiedUntil && c.copied === id;
  const button = inviteButton(c.room, { id, primary, onDone: (result) => flash(c, id, result) });
  if (shown) { // "邀请已复制" in its place for a moment (a live region reads it out)
    button.replaceChildren(h("span", { class: "room-invite-state", "aria-live": "polite" }, t(`invite_${c.copyResult}`)));
    button.classList.add("done");
  }
  return button;
}

function toggleRules(c) {
  c.rulesOpen = !c.rulesOpen;
  c.render();
  const target = c.main.querySelector(c.rulesOpen ? "#room-rules-close" : "#room-rules-toggle");
  if (target) target.focus({ preventScroll: true });
}

function closeBoard(c) {
  c.boardOpen = false;
  c.render();
  const opener = c.main.querySelector("#room-board-open");
  if (opener) opener.focus({ preventScroll: true });
}

function openBoard(c) {
  c.boardOpen = true;
  c.focusBoard = true;
  c.render();
}

// --- what the page shows -----------------------------------------------------------------------

function nameOfAccount(c, account) {
  const seat = c.room.seats.indexOf(account);
  if (seat >= 0 && c.players[seat] && c.players[seat].name) return c.players[seat].name;
  const board = c.room.scoreboard;
  const known = board && board.players.find((p) => p.account_id === account);
  return known ? known.name : "…";
}

function voteLeft(c) {
  return c.voteEnds ? Math.max(0, Math.ceil((c.voteEnds - Date.now()) / 1000)) : 0;
}

// In the table's bar: the code (a tap copies it), the progress, the rules toggle, 解散 or
// how the vote stands, and 大结算 once the room is over.
export function roomStrip(c) {
  const room = c.room;
  if (!room) return null;
  const open = room.status === "open";
  const copied = c.copiedUntil && Date.now() < c.copiedUntil && c.copied === "code";
  const v = room.vote;
  const seated = c.seat !== null && !c.spectator;
  const parts = [
    h("button", { type: "button", id: "room-code-copy", class: "room-code-button", dataset: { code: room.code },
      "aria-label": t("room_copy_label", { code: room.code }), onclick: () => copyCode(c) },
    h("span", { class: "room-code-label" }, t("room_code")),
    h("strong", { class: "room-code-digits" }, room.code),
    h("span", { class: "room-copy-state", "aria-live": "polite", title: t("room_copy") },
      copied ? t(c.copyFailed ? "room_copy_failed" : "room_copied") : copyIcon())),
    open ? roomInvite(c) : null,
    h("span", { class: "room-progress", id: "room-progress", dataset: { played: room.hands_played, count: room.length.count } },
      open ? progressText(room) : statusText(room)),
    h("button", { type: "button", id: "room-rules-toggle", "aria-expanded": String(Boolean(c.rulesOpen)),
      "aria-controls": "room-rules-panel", onclick: () => toggleRules(c) }, t("room_rules_short")),
  ];
  if (open && v) {
    parts.push(h("span", { class: "room-vote-line", id: "room-vote-line", role: "status" },
      t("room_vote_line", { agreed: v.agreed.length, voters: v.voters.length }), " · ",
      h("span", { class: "room-vote-left", "data-clock": "vote-short" }, t("room_vote_secs", { s: voteLeft(c) }))));
  } else if (open && seated && (started(c) || isOwner(c))) {
    parts.push(h("button", { type: "button", id: "room-dissolve", class: "room-dissolve", onclick: () => dissolve(c),
      title: t(started(c) ? "room_dissolve_vote" : "room_dissolve_now") }, t("room_dissolve")));
  }
  if (!open) {
    parts.push(h("button", { type: "button", id: "room-board-open", class: "primary", onclick: () => openBoard(c) },
      t("room_scoreboard")),
    h("a", { href: "#/lobby", class: "button", id: "room-lobby" }, t("room_back_lobby")));
  }
  return h("div", { class: "room-strip", id: "room-strip", dataset: { code: room.code, status: room.status } }, parts);
}

// The rules panel, the vote dialog (for a voter who has not agreed) and the scoreboard.
export function roomDialogs(c) {
  const room = c.room;
  if (!room) return [];
  const out = [];
  if (c.rulesOpen) {
    out.push(h("section", { id: "room-rules-panel", class: "room-rules-panel", role: "dialog",
      "aria-labelledby": "room-rules-title" },
    h("div", { class: "chat-head" }, h("h2", { id: "room-rules-title" }, t("room_rules_of", { code: room.code })),
      h("button", { type: "button", id: "room-rules-close", class: "small-button", "aria-label": t("room_close"),
        onclick: () => toggleRules(c) }, "×")),
    rulesBlock(room, c.roomSpecs)));
  }
  const v = room.vote;
  const me = c.me.id;
  if (room.status === "open" && v && v.voters.includes(me) && !v.agreed.includes(me)) {
    out.push(h("div", { class: "overlay room-vote-overlay" },
      h("div", { id: "room-vote", class: "card dialog room-vote", role: "alertdialog", "aria-modal": "true",
        "aria-labelledby": "room-vote-title", "aria-describedby": "room-vote-text" },
      h("h2", { id: "room-vote-title" }, t("room_vote_title", { name: nameOfAccount(c, v.by) })),
      h("p", { id: "room-vote-text" }, t("room_vote_text")),
      h("ul", { class: "room-voters", id: "room-voters" }, v.voters.map((account) => {
        const yes = v.agreed.includes(account);
        return h("li", { class: yes ? "agreed" : "waiting", dataset: { account } },
          h("span", { class: "voter-name" }, nameOfAccount(c, account),
            account === me ? h("span", { class: "tag you-tag" }, t("lobby_seat_you")) : null),
          h("span", { class: `tag ${yes ? "agreed-tag" : "waiting-tag"}` }, t(yes ? "room_vote_agreed" : "room_vote_waiting")));
      })),
      h("p", { class: "room-vote-clock" }, h("span", { id: "room-vote-left", "data-clock": "vote-long", role: "timer",
        "aria-live": "off" }, t("room_vote_left", { s: voteLeft(c) }))),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "room-vote-yes", onclick: () => vote(c, true) }, t("room_vote_agree")),
        h("button", { type: "button", id: "room-vote-no", onclick: () => vote(c, false) }, t("room_vote_refuse"))))));
  }
  if (room.status !== "open" && c.boardOpen) {
    const played = handsPlayed(room); // nothing counted: a small dialog that says so
    const rematch = rematchPart(c);
    out.push(h("div", { class: "overlay room-board-overlay" + (played ? "" : " small") },
      h("div", { id: "room-scoreboard", class: "card dialog room-board-dialog", role: "dialog", "aria-modal": "true",
        "aria-labelledby": "room-board-title", tabindex: -1, dataset: { status: room.status } },
      h("div", { class: "room-board-body" },
        h("h2", { id: "room-board-title" }, t(played ? "room_scoreboard" : "room_dissolved_title")),
        h("p", { class: "room-board-meta" },
          h("span", { class: `status-tag room-status ${room.status}` }, statusText(room)), " ",
          t("room_board_meta", { code: room.code, variant: t(room.variant), played })),
        scoreboardView(room, c.me)),
      h("div", { class: "settle-foot room-board-foot" },
        rematch,
        h("div", { class: "row" },
          h("a", { href: "#/lobby", class: "button" + (rematch ? "" : " primary"), id: "room-board-lobby" }, t("room_back_lobby")),
          h("button", { type: "button", id: "room-board-close", onclick: () => closeBoard(c) }, t("view_board")))))));
  }
  return out;
}

// After a redraw: the scoreboard takes focus when it opens, the vote dialog when it asks.
export function roomFocus(c) {
  if (c.focusBoard) {
    const dialog = c.main.querySelector("#room-scoreboard");
    if (dialog) {
      c.focusBoard = false;
      dialog.focus();
    }
    return;
  }
  const yes = c.main.querySelector("#room-vote-yes");
  const dialog = c.main.querySelector("#room-vote");
  if (yes && !dialog.contains(document.activeElement)) yes.focus({ preventScroll: true });
}

// Every 250 ms (table.js tick): the vote's countdown.
export function updateRoomClock(c) {
  if (!c.room || !c.room.vote) return;
  const s = voteLeft(c);
  for (const el of c.main.querySelectorAll('[data-clock="vote-long"]')) el.textContent = t("room_vote_left", { s });
  for (const el of c.main.querySelectorAll('[data-clock="vote-short"]')) el.textContent = t("room_vote_secs", { s });
}
