// A reference client of the table WebSocket, protocol version 2 (docs/protocol.md, "A
// reference client"): the client kit's connection (clients/js, @zjmahjong/client). It
// knows the protocol and nothing of pages: it is given its WebSocket class and timers, so
// it runs in a browser, a test page, React Native or Node. The browser client's table page
// (table.js) is built on it.
//
// - Connecting: opens `url`, sends `hello` with the token `token()` gives (a string or a
//   promise of one), then `resume` for each table it follows with the last seq it has, then
//   a `ping` (its `pong` tells that the hello was taken) and a ping every 20 s. The status
//   turns `open` at the server's first frame on the socket, not when the socket opens: a
//   socket that opens and then hears nothing (a network that lets connections open and
//   carries nothing) stays `connecting` or `reconnecting`, and is dropped at the pong timeout.
// - Heartbeat: a socket that hears nothing from the server within 10 s of a ping (no pong,
//   no other frame) is taken for dead: a phone that lost its network often keeps a socket
//   "open" for minutes, with no close event. The client drops it without waiting for a
//   close handshake, reports `reconnecting` with `{code: 1006, reason: "pong_timeout"}` and
//   connects again (1006 is what a browser reports for a connection lost without a close
//   frame). A socket that does not open within 10 s is dropped the same way
//   ("open_timeout"). `probe()` pings at once: call it when the app comes back to the
//   foreground, so a socket that died in the background is noticed in seconds. Each action
//   sent is followed by a ping too: a player who acts on a dead link learns it within the
//   pong timeout, not at the next heartbeat.
// - The app's own news of the network: `reconnect(reason)` drops the socket at once and
//   connects again with the backoff (a browser's `offline` event: the socket may look open
//   for minutes); `retry()` tries now (its `online` event, a "reconnect now" button, the
//   foreground): an open socket is probed, a pause before the next attempt is cut short.
// - Order: per table, an event is passed on only when its seq is the last one + 1; older
//   ones are duplicates and ignored. A gap (or a prompt ahead of the last event) sends `resume`
//   with the last seq, at most once per 3 s until something answers it. A snapshot
//   replaces the table's state and seq.
// - Refusals: an `error` is paired with the action or resume that carried its `ref_seq`,
//   and handed to `onError(error, sent)` (a refusal names only a seq: send one action per
//   prompt). `stale` (the action was sent on an old state) also resumes.
// - Dropped frames: see RESENDING below.
// - Status: `onStatus(status, detail)` and the `status` property: `connecting`, `open`,
//   `reconnecting` (detail: code, reason, wait in ms), or an end: `replaced`, `kicked`,
//   `banned`, `unauthorized`, `closed` (by `close()`). A UI shows "reconnecting" from it.
// - Reconnecting: after a drop, with a pause of 0.4 s doubling to 8 s, each taken at
//   random between half and all of it (jitter: a server's clients do not all come back at
//   once). After 4401 it calls `refresh()` first. It stops for good on 4000 (replaced by a
//   newer connection), 4003 (kicked, seated nowhere) and 4004 (banned); after 4429 it waits
//   the seconds the close reason names; 4008 and 4009 (the client did not read) are drops.
// - Watching (旁观): `watch(tableId)` follows a table as a spectator: on each connection it
//   sends `watch` (not `resume`), whose `watching` answer sets the table's last seq; a gap
//   sends `watch` again (a fresh snapshot). `unwatch` stops.
// - Quick chat: `chat(tableId, phrase)`, `mute(tableId, seat, on)`; `chat` and `muted`
//   messages go to `onChat` and `onMuted`.
// - Private rooms (好友房): a `room` message (the room's code, progress, dissolve vote and,
//   at its end, the session scoreboard) goes to `onRoom`; it carries no seq.
// - Tournaments (比赛场): a `tournament` message (the event's round, the standings, your
//   table of the round) goes to `onTournament`; it carries no seq.
//
// RESENDING. Over 20 frames a second the server drops the frames and says so with at most
// one `rate_limited` error a second, which names no frame. So after a notice the client
// sends nothing for a pause (1.1 s: the server's window empties; what is sent meanwhile
// waits), then sends once more every action of the 2 s before the notice that was not
// refused, unchanged: the same seq. That is safe because the server applies an action only
// while the seat owes a decision whose prompt is no newer than the action's seq: if the
// first copy was applied, that decision is gone (or a newer prompt waits), so the second
// copy is refused with one of HARMLESS, and such a refusal of a copy is not passed on. An
// action is never sent again with a newer seq: it could be taken as a second move. A
// resume waiting for its answer is sent again (resuming twice is harmless). `autoplay` and
// `leave` are not resent: the app repeats them if it wants (table_state shows whether
// 托管 took; a leave during a hand is an escape and costs silver).

export const VERSION = 2;
export const CLOSE = {
  REPLACED: 4000, KICKED: 4003, BANNED: 4004, TOO_SLOW: 4008, WATCH_TOO_SLOW: 4009,
  UNAUTHORIZED: 4401, TOO_MANY: 4429,
};
// refusals of an action's copy that mean "the first copy was taken, or the chance passed"
export const HARMLESS = new Set(["stale", "not_your_turn", "already_answered", "hand_over",
  "not_in_hand"]);

const OPEN = 1; // WebSocket.OPEN
const DEFAULTS = {
  pingMs: 20000, pongTimeoutMs: 10000, openTimeoutMs: 10000, resyncMs: 3000, backoffMs: 400,
  backoffMaxMs: 8000, pauseMs: 1100, resendWindowMs: 2000, kept: 32,
};
// what a socket dropped by the client itself is reported with: a connection lost without a
// close frame, as a browser reports one
const LOST = 1006;
const noop = () => {};

export class ProtocolClient {
  // options: url; token() and refresh() (a promise, rejected when the session is over);
  // callbacks onEvent, onPrompt, onSnapshot, onSeated, onTableState, onWatching, onChat,
  // onMuted, onRoom, onTournament, onError(error, sent), onStatus(status, detail);
  // WebSocket, setTimeout, clearTimeout, now, random (to replace in tests); and any of
  // DEFAULTS.
  constructor(options) {
    this.o = { ...DEFAULTS, WebSocket: globalThis.WebSocket,
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (id) => globalThis.clearTimeout(id), now: () => Date.now(),
      random: Math.random, refresh: () => Promise.reject(new Error("no refresh")),
      ...options };
    for (const name of ["onEvent", "onPrompt", "onSnapshot", "onSeated", "onTableState",
      "onWatching", "onChat", "onMuted", "onRoom", "onTournament", "onError", "onStatus"])
      this.o[name] ??= noop;
    // table id -> {lastSeq, handId, resumedAt (null: answered), watch ({code}: a spectator)}
    this.tables = new Map();
    this.ws = null;
    this.ready = false; // the hello is sent: other messages may go
    this.retries = 0;
    this.stopped = true;
    this.status = "closed"; // the last status given to onStatus
    this.timers = { reconnect: null, ping: null, pause: null, pong: null, open: null };
    this.sent = []; // the last actions and resumes: {msg, at, copies (in flight), resent}
    this.pausedUntil = 0; // after rate_limited: messages wait in `held` until then
    this.held = [];
  }

  // --- what the app calls --------------------------------------------------------------

  follow(tableId, lastSeq = 0) {
    if (!this.tables.has(tableId)) {
      this.tables.set(tableId, { lastSeq, handId: null, resumedAt: null });
      if (this.ready) this.resume(tableId);
    }
  }

  unfollow(tableId) { this.tables.delete(tableId); }

  // Watch a table as a spectator (a private room's `code`, if any): sent on every connection
  // and after a gap; its `watching` answer gives the seq the events follow.
  watch(tableId, code = null) {
    this.tables.set(tableId, { lastSeq: 0, handId: null, resumedAt: null, watch: { code } });
    if (this.ready) this.resume(tableId);
  }

  unwatch(tableId) {
    const table = this.tables.get(tableId);
    if (!table || !table.watch) return null;
    this.tables.delete(tableId);
    return this.send({ type: "unwatch", table_id: tableId });
  }

  // quick chat: a phrase id of the server's list; mute (or unmute) the player at `seat`
  chat(tableId, phrase) { return this.send({ type: "chat", table_id: tableId, phrase }); }

  mute(tableId, seat, on = true) {
    return this.send({ type: on ? "mute" : "unmute", table_id: tableId, seat });
  }

  lastSeq(tableId) { return this.tables.get(tableId)?.lastSeq ?? 0; }

  get isOpen() { return this.ready && this.ws !== null && this.ws.readyState === OPEN; }

  // Send an action (`{type: "discard", tile: "5m"}`...) with the table's last seq. The
  // message sent, or null when the socket is not open (the prompt comes back after the
  // reconnect's resume).
  act(tableId, action) {
    const msg = this.send({ type: "action", table_id: tableId, seq: this.lastSeq(tableId), action });
    if (msg) this.probe(); // an answer is due: a dead link is noticed within the pong timeout
    return msg;
  }

  // 托管 on or off; `level` ("standard" or "expert", 高手) says who plays the seat while on
  // (left out: standard, the rule book's 托管)
  autoplay(tableId, on, level) {
    return this.send({ type: "autoplay", table_id: tableId, on, ...(level ? { level } : {}) });
  }

  leave(tableId) { return this.send({ type: "leave", table_id: tableId }); }

  // 准备 between hands: once every seat is ready the server deals at once
  sayReady(tableId) { return this.send({ type: "ready", table_id: tableId }); }

  resume(tableId) {
    const table = this.tables.get(tableId);
    if (!table) return null;
    table.resumedAt = this.o.now();
    if (table.watch) return this.send({ type: "watch", table_id: tableId, code: table.watch.code });
    return this.send({ type: "resume", table_id: tableId, last_seq: table.lastSeq });
  }

  connect() {
    if (!this.o.WebSocket) {
      throw new Error("no WebSocket class: pass options.WebSocket (in Node 20, the ws package's)");
    }
    this.stopped = false;
    this.o.clearTimeout(this.timers.reconnect);
    this.setStatus("connecting");
    this.open();
  }

  close() {
    this.stopped = true;
    this.drop();
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.setStatus("closed");
  }

  // Ping now and expect an answer within pongTimeoutMs: for an app coming back to the
  // foreground, whose socket may have died meanwhile. False when no socket is open.
  probe() {
    if (!this.isOpen) return false;
    this.send({ type: "ping", nonce: String(this.o.now()) });
    this.expectPong();
    return true;
  }

  // The network is gone (a browser's `offline` event): drop the socket now, reported as
  // `reconnecting` (1006, `reason`), and connect again after the backoff pause. False when
  // there is no socket to drop (already reconnecting, or ended).
  reconnect(reason = "offline") {
    if (this.stopped || !this.ws) return false;
    this.lost(this.ws, reason);
    return true;
  }

  // Try now (the network is back, the app is in the foreground again, the player asked):
  // an open socket is probed, a socket still opening is left to open, and a client waiting
  // out its pause before the next attempt opens a socket at once. False once ended.
  retry() {
    if (this.stopped) return false;
    if (this.ws) {
      this.probe();
      return true;
    }
    this.o.clearTimeout(this.timers.reconnect);
    this.timers.reconnect = null;
    this.open();
    return true;
  }

  setStatus(status, detail) {
    this.status = status;
    if (detail === undefined) this.o.onStatus(status);
    else this.o.onStatus(status, detail);
  }

  // --- the socket ----------------------------------------------------------------------

  open() {
    if (this.ws) this.lostQuietly(); // connect() again while a socket opens: one at a time
    const ws = new this.o.WebSocket(this.o.url);
    this.ws = ws;
    this.timers.open = this.o.setTimeout(() => this.lost(ws, "open_timeout"), this.o.openTimeoutMs);
    ws.onopen = async () => {
      this.o.clearTimeout(this.timers.open);
      this.timers.open = null;
      let token;
      try {
        token = await this.o.token();
      } catch {
        token = "";
      }
      if (this.ws !== ws || ws.readyState !== OPEN) return;
      ws.send(JSON.stringify({ v: VERSION, type: "hello", token: token || "" }));
      this.ready = true; // messages may go; the status turns open when the server is heard
      for (const tableId of this.tables.keys()) this.resume(tableId);
      this.ping();
    };
    ws.onmessage = (frame) => {
      if (this.ws !== ws) return;
      this.o.clearTimeout(this.timers.pong); // the server is there
      this.timers.pong = null;
      let m;
      try { m = JSON.parse(frame.data); } catch { return; }
      this.retries = 0; // the server took the hello
      if (this.status !== "open") this.setStatus("open");
      this.receive(m);
    };
    // a failed or lost connection also closes: onclose decides (and an EventEmitter-based
    // socket, such as Node's ws, must not find its error unheard)
    ws.onerror = () => {};
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.drop();
      if (!this.stopped) this.closed(ev.code, ev.reason || "");
    };
  }

  // what a closed socket leaves: no pings, nothing held back, no pause
  drop() {
    this.ready = false;
    for (const [name, id] of Object.entries(this.timers)) {
      this.o.clearTimeout(id);
      this.timers[name] = null;
    }
    this.held = [];
    this.pausedUntil = 0;
  }

  // A socket that went silent (no pong) or never opened: given up at once, since a dead
  // connection's close handshake may take minutes, and reconnected like any drop.
  lost(ws, reason) {
    if (this.ws !== ws) return;
    this.lostQuietly(reason);
    if (!this.stopped) this.closed(LOST, reason);
  }

  // the socket given up, nothing reported
  lostQuietly(reason = "replaced") {
    const ws = this.ws;
    this.ws = null;
    this.drop();
    try {
      ws.close(1000, reason);
    } catch {
      // a socket still connecting may refuse to close in some implementations: dropped anyway
    }
  }

  // the next frame must come within pongTimeoutMs (the earliest deadline holds)
  expectPong() {
    if (this.timers.pong !== null) return;
    const ws = this.ws;
    this.timers.pong = this.o.setTimeout(() => this.lost(ws, "pong_timeout"), this.o.pongTimeoutMs);
  }

  closed(code, reason) {
    const end = { [CLOSE.REPLACED]: "replaced", [CLOSE.KICKED]: "kicked",
      [CLOSE.BANNED]: "banned" }[code];
    if (end) {
      this.stopped = true;
      this.setStatus(end, { code, reason });
      return;
    }
    let wait = Math.min(this.o.backoffMaxMs, this.o.backoffMs * 2 ** this.retries);
    wait = wait / 2 + (this.o.random() * wait) / 2;
    if (code === CLOSE.TOO_MANY) {
      const seconds = Number((/(\d+)\s*s\b/.exec(reason) || [])[1]);
      if (seconds > 0) wait = seconds * 1000 + this.o.random() * 1000;
    }
    this.retries += 1;
    this.setStatus("reconnecting", { code, reason, wait });
    const again = () => {
      if (!this.stopped) this.timers.reconnect = this.o.setTimeout(() => this.open(), wait);
    };
    if (code !== CLOSE.UNAUTHORIZED) {
      again();
      return;
    }
    this.o.refresh().then(again, () => {
      this.stopped = true;
      this.setStatus("unauthorized", { code, reason });
    });
  }

  ping() {
    if (this.send({ type: "ping", nonce: String(this.o.now()) })) this.expectPong();
    this.timers.ping = this.o.setTimeout(() => this.ping(), this.o.pingMs);
  }

  send(message) {
    if (!this.isOpen) return null;
    const msg = { v: VERSION, ...message };
    if (msg.type === "action" || msg.type === "resume") {
      this.sent.push({ msg, at: this.o.now(), copies: 1 });
      if (this.sent.length > this.o.kept) this.sent.shift();
    }
    if (this.o.now() < this.pausedUntil) this.held.push(msg);
    else this.ws.send(JSON.stringify(msg));
    return msg;
  }

  // --- what the server sends -----------------------------------------------------------

  receive(m) {
    if (m.type === "error") {
      this.refused(m);
      return;
    }
    if (m.type === "seated") this.o.onSeated(m);
    else if (m.type === "table_state") this.o.onTableState(m);
    else if (m.type === "chat") this.o.onChat(m);
    else if (m.type === "muted") this.o.onMuted(m);
    else if (m.type === "room") this.o.onRoom(m);
    else if (m.type === "tournament") this.o.onTournament(m);
    const table = this.tables.get(m.table_id);
    if (!table) return; // pong, or a table not followed: its seq cannot be kept
    if (m.type === "watching") {
      if (!table.watch) return;
      table.lastSeq = m.seq; // a snapshot at this seq (if the table has dealt), then events
      table.handId = null;
      table.resumedAt = null;
      this.o.onWatching(m);
      return;
    }
    if (m.type === "event") {
      if (m.seq <= table.lastSeq) return; // a duplicate
      const otherHand = m.event.kind !== "hand_started" && table.handId !== null &&
        m.hand_id !== table.handId;
      if (m.seq !== table.lastSeq + 1 || otherHand) {
        this.gap(m.table_id); // the resume brings what was missed, or a snapshot
        return;
      }
      table.lastSeq = m.seq;
      table.handId = m.hand_id;
      table.resumedAt = null;
      this.o.onEvent(m);
    } else if (m.type === "prompt") {
      // a prompt keeps its seq while other seats answer in the same window (it may follow
      // later events); one ahead of the last event comes again after the resume
      if (m.seq > table.lastSeq) this.gap(m.table_id);
      else this.o.onPrompt(m);
    } else if (m.type === "snapshot") {
      table.lastSeq = m.seq;
      table.handId = m.hand_id;
      table.resumedAt = null;
      this.o.onSnapshot(m);
    }
  }

  gap(tableId) {
    const table = this.tables.get(tableId);
    if (table.resumedAt === null || this.o.now() - table.resumedAt >= this.o.resyncMs) {
      this.resume(tableId);
    }
  }

  // the newest action that carried the error's ref_seq, else the newest resume (`no_hand`
  // answers only a resume)
  pair(m) {
    if (m.ref_seq === null || m.ref_seq === undefined) return null;
    const types = m.code === "no_hand" ? ["resume"] : ["action", "resume"];
    for (const type of types) {
      for (let i = this.sent.length - 1; i >= 0; i--) {
        const { msg } = this.sent[i];
        if (msg.type === type && (msg.seq ?? msg.last_seq) === m.ref_seq) return this.sent[i];
      }
    }
    return null;
  }

  refused(m) {
    if (m.code === "rate_limited") this.rateLimited();
    const entry = this.pair(m);
    if (entry) {
      entry.copies -= 1;
      if (entry.copies <= 0) this.sent.splice(this.sent.indexOf(entry), 1);
      if (entry.resent && HARMLESS.has(m.code)) return; // the first copy was taken
      const table = this.tables.get(entry.msg.table_id);
      if (table && entry.msg.type === "resume") table.resumedAt = null; // answered
      if (table && m.code === "stale") this.gap(entry.msg.table_id);
    } else if (m.code === "stale") {
      for (const tableId of this.tables.keys()) this.gap(tableId);
    }
    this.o.onError(m, entry ? entry.msg : null);
  }

  rateLimited() {
    const now = this.o.now();
    this.pausedUntil = now + this.o.pauseMs;
    const lost = this.sent.filter((e) => e.msg.type === "action" && !e.resent &&
      !this.held.includes(e.msg) && now - e.at <= this.o.resendWindowMs);
    const resuming = [...this.tables].filter(([, t]) => t.resumedAt !== null).map(([id]) => id);
    this.o.clearTimeout(this.timers.pause);
    this.timers.pause = this.o.setTimeout(() => {
      if (!this.isOpen) return;
      this.pausedUntil = 0;
      for (const entry of lost) {
        if (!this.sent.includes(entry)) continue; // refused meanwhile
        entry.resent = true;
        entry.copies += 1;
        this.ws.send(JSON.stringify(entry.msg));
      }
      const held = this.held;
      this.held = [];
      for (const tableId of resuming) {
        const waiting = held.some((msg) => msg.type === "resume" && msg.table_id === tableId);
        if (!waiting && this.tables.get(tableId)?.resumedAt !== null) this.resume(tableId);
      }
      for (const msg of held) this.ws.send(JSON.stringify(msg));
    }, this.o.pauseMs);
  }
}
