// The table controller: one per open table page. It owns the protocol client
// (protocol.js: the socket, seq order, resume, resends, reconnects), keeps the hand model
// from the events and snapshots it passes on, holds the current prompt, sends the player's
// actions and asks the view to redraw. Rendering is in tableview.js.
//
// A spectator's page (`watch: true`, #/watch/<id>) is the same controller on the public
// view: it watches instead of resuming, has no seat, no hand, no prompt, no Ready; it may
// mute players. Quick chat (快捷语): the players' phrases show as bubbles by their plates
// for a few seconds and in the action log; a seated player sends them from the chat panel,
// where every player can be muted too.

import { api, ApiError, refreshTokens, session } from "./api.js";
import { announce } from "./dom.js";
import { codeText, errorText } from "./errors.js";
import { t } from "./i18n.js";
import { applyEvent, emptyHand, fromSnapshot } from "../kit/model.js";
import { ProtocolClient } from "../kit/protocol.js";
import { describe, entriesOfSnapshot, entryOf, push } from "./tablelog.js";
import { nextDealerStreak } from "./tablerules.js";
import { renderTable, restoreFocus, focusKey, updateCountdown, windOf } from "./tableview.js";
import { loadRoom, onRoomMessage, roomFocus, updateRoomClock } from "./tableroom.js";
import { TableLink } from "./tablelink.js";
import { TableFx } from "./callouts.js";
import { HandProof } from "../kit/verify.js";
import { seatingNotice } from "./tablewind.js";
import { guideFor } from "./guide.js";
import { onChat, bubblesOver } from "./tablechat.js";
import { confirmFirst, keydown } from "./tableinput.js";
import { autoplayLevel } from "./autolevel.js";
import { findEvent, onSeatedElsewhere, onTournament } from "./tableevent.js";

const PLAYERS_POLL_MS = 3000; // seat plates over REST until the server sends table_state
const HOUSE_TIMERS = { discard: 15, claim: 8, decide: 8, ready: 15 }; // RULES.md 1, Timers
const ALERT_MS = 8000; // how long a notice of an automatic play stays in the event strip
const LATE_MS = 1500; // a prompt this close to its deadline when its window closes timed out
const SEEN_KEY = "zj-settlement-seen"; // the last hand whose settlement this tab showed
// events that leave a pending decision open (another seat's answer in the same 买底 round,
// a penalty); any other event means the decision was taken or the window closed
const KEEPS_PROMPT = new Set(["decided", "penalized"]);

export class TableController {
  constructor(main, { tableId, me, onBanner, watch = false, code = null }) {
    this.main = main;
    this.tableId = tableId;
    this.me = me;
    this.onBanner = onBanner;
    this.spectator = watch; // watching (旁观): the public view, no seat
    this.watchCode = code; // a private room watched: its code
    this.spectators = 0; // how many watch the table (table_state)
    this.bubbles = {}; // seat -> {phrase, until}: the chat shown by its plate
    this.muted = new Set(); // the seats whose players' chat this page does not get
    this.chatOpen = false; // the chat panel
    this.seat = null;
    this.variant = null;
    this.stake = 1;
    this.players = [0, 1, 2, 3].map((seat) => ({ seat, name: null }));
    this.knownNames = [null, null, null, null]; // each seat's last player, kept once it leaves
    this.tableState = null; // the latest table_state, once the server sends one
    this.hand = null; // the model of the hand in play (or the last one)
    this.prompt = null; // {legal, deadline (ms since epoch), timeout, seq, ready}
    // 听牌: the turn prompt's ready discards ({discard, waits}) until this seat's discard, then
    // the waits of the one discarded, shown until the hand changes (a turn, a claim, the end)
    this.readyHints = [];
    this.waits = null;
    this.autoplay = false;
    this.settlement = null; // {ended, handId, balance, wins}
    this.notice = "";
    this.waiting = true; // no hand has been seen at this table yet
    this.closed = false;
    this.frame = null; // a drawing asked for by messages, at the next animation frame
    this.drawOpts = {}; // what those messages asked of it (focus the prompt, the result)
    this.timers = { ...HOUSE_TIMERS }; // the table's, from GET /tables/{id}/players
    this.log = []; // the action log of the hand (tablelog.js entries)
    this.alert = null; // {text(), until}: an automatic play or a refusal, in the event strip
    this.logOpen = false; // the log drawer (narrow screens; wide ones always show it)
    this.selected = null; // {tile, index}: the tile a first tap picked
    this.restrictNote = ""; // why the tile just tapped may not be discarded
    this.confirming = null; // a tile whose discard costs a penalty, waiting for a yes
    this.confirmingClaim = null; // a 上海 dead-end claim waiting for a yes (claimwarn.js)
    this.turnClock = null; // {seat, deadline}: another seat's turn, counted down
    this.freshDiscard = null; // {seat, at}: the newest discard, animated into its river
    // when the next hand is dealt (ms): from hand_ended, then table_state's next_hand_ms (a
    // resume replays the hand's events after the table_state: hand_started keeps it)
    this.readyAt = null;
    this.readySent = false; // this page said 准备 since the last deal
    this.streak = null; // {dealer, k}: the dealer's deals in a row (温州's k), when known
    this.askedAutoplay = false;
    this.autoplayPlaying = "standard"; // the level the server plays this seat's 托管 at
    this.room = null; // a private room's table: the room (tableroom.js), else null
    this.event = null; // a tournament's table: the event as last told (tableevent.js), else null
    this.proof = new HandProof(); // the hand's events, checked against its seed at its end
    this.heartbeat = null; // {ping_ms, pong_timeout_ms}: the server's word, else the kit's own
    this.link = new TableLink(this); // the connection as the player sees it: banner, locks
    this.client = null; // the kit's connection, made once the page knows its heartbeat
    this.fx = new TableFx(); // callouts, sounds and their settings (callouts.js)
    this.onKey = (ev) => keydown(this, ev);
    this.ticker = null;
    this.guide = watch ? null : guideFor(tableId); // 新手教学: the practice table's bubbles (guide.js)
  }

  // the kit's connection, following (or watching) this table
  makeClient() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // each message of this table changes the controller, then the page is drawn again,
    // once a frame: a resume or bots playing at once bring dozens of messages together
    const then = (fn, opts = {}) => (m) => {
      if (m.table_id && m.table_id !== this.tableId) {
        if (m.type === "seated") onSeatedElsewhere(this, m); // a tournament's next table
        return;
      }
      fn(m);
      this.renderSoon(opts);
    };
    this.client = new ProtocolClient({
      // the socket names its table: a server of several processes serves it on the table's
      url: `${scheme}://${location.host}/ws/${encodeURIComponent(this.tableId)}`,
      token: () => session.access,
      refresh: refreshTokens,
      onSeated: then((m) => this.onSeated(m)),
      onTableState: then((m) => this.onTableState(m)),
      onEvent: then((m) => this.onEvent(m)),
      onPrompt: then((m) => this.onPrompt(m), { prompted: true }),
      onSnapshot: then((m) => this.onSnapshot(m)),
      onWatching: then((m) => this.onWatching(m)),
      onChat: then((m) => onChat(this, m)),
      onMuted: then((m) => { this.muted = new Set(m.seats); }),
      onRoom: then((m) => onRoomMessage(this, m)),
      onTournament: then((m) => onTournament(this, m)),
      onError: then((m) => this.onError(m)),
      onStatus: (status, detail) => this.onStatus(status, detail),
      ...(this.heartbeat ? { pingMs: this.heartbeat.ping_ms, pongTimeoutMs: this.heartbeat.pong_timeout_ms } : {}),
    });
    if (this.spectator) this.client.watch(this.tableId, this.watchCode); // a private room's, with its code
    else this.client.follow(this.tableId);
  }

  async start() {
    await this.loadPlayers();
    this.makeClient();
    document.addEventListener("keydown", this.onKey);
    this.link.listen(true);
    this.ticker = setInterval(() => this.tick(), 250);
    this.client.connect();
    this.render();
    findEvent(this).then(() => this.render());
  }

  stop() {
    this.closed = true;
    document.removeEventListener("keydown", this.onKey);
    this.link.listen(false);
    clearInterval(this.ticker);
    if (this.client) this.client.close();
    this.onBanner(null);
  }

  // --- the server's side -------------------------------------------------------------------

  async loadPlayers() {
    try {
      const data = await api("GET", `/tables/${this.tableId}/players`);
      this.variant = data.variant;
      this.stake = data.stake;
      if (data.timers) this.timers = { ...data.timers };
      if (data.heartbeat) this.heartbeat = data.heartbeat;
      this.botLevel = data.bot_level; // who plays its house bots (botlevel.js)
      if (data.room) loadRoom(this, data.room); // a private room (好友房): its code, rules, progress
      if (!this.tableState) {
        this.players = data.seats.map((s) => ({ ...s, connected: true, autoplay: s.bot }));
        this.players.forEach((p, seat) => { if (p.name) this.knownNames[seat] = p.name; });
      }
      const mine = this.spectator ? null : data.seats.find((s) => s.name === this.me.username);
      if (this.spectator) {
        this.notice = "";
      } else if (mine) {
        this.seat = mine.seat;
        this.notice = "";
      } else if (this.seat === null) {
        this.notice = t("not_seated");
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") {
        // a room's table closes when the session ends: its scoreboard stays (a tournament's
        // table: the standings, tableevent.js)
        if (this.room || this.event) return;
        location.hash = "#/lobby";
        return;
      }
      throw err;
    }
  }

  tick() {
    if (this.closed) return;
    this.link.tick();
    updateCountdown(this);
    updateRoomClock(this);
    if (this.fx.tick()) this.render();
    if (this.alert && Date.now() >= this.alert.until) {
      this.alert = null;
      this.render();
    }
    if (bubblesOver(this)) this.render();
    const now = Date.now();
    if (!this.tableState && (!this.hand || this.hand.ended) && now - (this.lastPoll || 0) > PLAYERS_POLL_MS) {
      this.lastPoll = now;
      this.loadPlayers().then(() => this.render(), () => {});
    }
  }

  // the connection's status: the banner says it, and the controls follow (tablelink.js)
  onStatus(status, detail) {
    if (status === "banned" || status === "unauthorized") {
      this.onBanner(null);
      session.clear(); // the session is over: back to the sign-in page
      return;
    }
    if (status === "replaced") {
      // the other tab plays: this one holds no prompt (taking the seat back resumes it)
      this.prompt = null;
      this.selected = null;
      this.confirming = this.confirmingClaim = null;
    }
    this.link.status(status, detail);
    this.render(); // the controls follow the banner at once
  }

  onSeated(m) {
    this.seat = m.seat;
    this.variant = m.variant;
    this.stake = m.stake;
  }

  onTableState(m) {
    const first = !this.tableState;
    this.tableState = m;
    this.spectators = m.spectators ?? 0;
    // between hands the server says when its ready timer deals (after a reload too)
    if (m.hand_id === null && !m.settling) {
      this.readyAt = m.next_hand_ms === null ? null : Date.now() + m.next_hand_ms;
    }
    this.variant = m.variant;
    this.players = m.seats.map((s) => ({ ...s, bot: Boolean(s.name && s.name.startsWith("bot-")) }));
    this.players.forEach((p, seat) => { if (p.name) this.knownNames[seat] = p.name; });
    if (this.seat !== null && m.seats[this.seat]) {
      const on = m.seats[this.seat].autoplay;
      // 托管 the player did not ask for: two timeouts in a row (not a page that opens on
      // a seat already on 托管, nor one back from a lost connection: the banner says it)
      if (on && !first && !this.autoplay && !this.askedAutoplay && !this.link.recovering) {
        this.warn(() => t("autoplay_now"));
      }
      this.autoplay = on;
      this.autoplayPlaying = m.seats[this.seat].autoplay_level || "standard";
    }
  }

  // watching: the table's variant and stake; its hand comes as a snapshot, if any
  onWatching(m) {
    this.variant = m.variant;
    this.stake = m.stake;
    this.spectators = m.spectators;
    this.seat = null;
    this.notice = "";
  }

  onPrompt(m) {
    const same = this.prompt && this.prompt.seq === m.seq;
    this.prompt = { legal: m.legal_actions, deadline: Date.now() + m.deadline_ms,
      timeout: m.timeout_action, seq: m.seq, ready: m.ready || [], deadEnds: m.dead_ends || [] };
    if (m.legal_actions.some((a) => a.type === "discard")) { // a turn: the hand changed
      this.readyHints = this.prompt.ready;
      this.waits = null;
    }
    this.fx.prompt(m, !same);
    if (!same) {
      this.selected = null;
      this.restrictNote = "";
    }
  }

  onSnapshot(m) {
    this.hand = fromSnapshot(m.view, m.hand_id);
    this.proof.snapshot(m.view);
    this.seat = m.view.seat ?? this.seat;
    this.prompt = null;
    this.selected = null;
    this.readyHints = [];
    this.waits = null;
    this.waiting = false;
    this.log = entriesOfSnapshot(m.view);
    if (this.spectator) this.log[0] = { kind: "watching" }; // not "back in the hand"
    this.turnClock = null;
    if (this.settlement && this.settlement.handId !== m.hand_id) this.settlement = null;
  }

  // an event in seq order (protocol.js drops duplicates and resumes over gaps)
  onEvent(m) {
    const e = m.event;
    this.proof.event(e);
    this.link.event(m);
    if (e.kind === "hand_started") {
      this.hand = emptyHand();
      this.settlement = null;
      this.waiting = false;
      this.log = [];
      this.readySent = false;
      this.streak = nextDealerStreak(this.streak, { handId: m.hand_id, dealer: e.dealer });
      this.loadPlayers().then(() => this.render(), () => {});
    }
    if (!this.hand) return; // followed from a seq this page never had: cannot happen here
    const auto = this.noteAutomatic(e);
    applyEvent(this.hand, e, m.hand_id);
    this.noteWaits(e);
    this.fx.event(e);
    push(this.log, entryOf(e, auto ? { auto } : {}));
    if (e.kind === "hand_started") seatingNotice(this, e); // 你是南家 · 庄家：…
    this.clock(e);
    const answered = e.kind === "decided" && e.seat === this.seat; // this seat's own decision
    if (this.prompt && (!KEEPS_PROMPT.has(e.kind) || answered)) {
      this.prompt = null;
      this.selected = null;
      this.restrictNote = "";
      this.confirming = this.confirmingClaim = null;
    }
    this.announceEvent(e);
    if (e.kind === "hand_ended") this.settle(m.hand_id, e);
  }

  // 听牌: this seat's discard (its own or the server's) keeps the waits it was marked with;
  // a meld of this seat or the hand's end changes the hand
  noteWaits(e) {
    if (e.kind === "hand_started" || e.kind === "hand_ended") {
      this.readyHints = [];
      this.waits = null;
    } else if (e.seat === this.seat && e.kind === "discarded") {
      const entry = this.readyHints.find((r) => r.discard === e.tile);
      this.waits = entry ? entry.waits : null;
      this.readyHints = [];
    } else if (e.seat === this.seat && e.kind === "melded") {
      this.waits = null;
    }
  }

  // the timers this page can count: another seat's turn (from its draw or its claim) and
  // the pause before the next hand (the server's ready timer starts with hand_ended)
  clock(e) {
    const now = Date.now();
    if (e.kind === "drew" || (e.kind === "melded" && ["chow", "pung"].includes(e.meld))) {
      this.turnClock = { seat: e.seat, deadline: now + this.timers.discard * 1000 };
    } else if (e.kind === "discarded" || e.kind === "hand_ended" || e.kind === "won") {
      this.turnClock = null;
    }
    if (e.kind === "discarded") this.freshDiscard = { seat: e.seat, at: now };
  }

  // The server played for this seat (its timer ran out, or 托管): say so, in the event
  // strip for a while and in the log. What it returns tags the event's own log line.
  noteAutomatic(e) {
    const p = this.prompt;
    const own = e.seat === this.seat;
    if (!p || (KEEPS_PROMPT.has(e.kind) && !(e.kind === "decided" && own))) return null;
    const by = this.autoplay ? "autoplay" : "timeout";
    let notice = null;
    if (e.kind === "discarded" && own) {
      notice = { kind: "auto", key: this.autoplay ? "autoplay_discard" : "auto_discard", tile: e.tile };
    } else if (e.kind === "decided" && own) {
      const choice = this.hand && this.hand.dealer !== this.seat ? "act_decline_counter" : "act_decline";
      notice = { kind: "auto", key: "auto_decline", choice };
    } else if (e.kind === "won" && own) {
      notice = { kind: "auto", key: this.autoplay ? "autoplay_hu" : "auto_hu" };
    } else if (own && e.kind === "melded") {
      notice = { kind: "auto", key: this.autoplay ? "autoplay_other" : "auto_other" };
    } else if (p.legal.some((a) => a.type === "pass") && Date.now() >= p.deadline - LATE_MS && !this.autoplay) {
      // a claim window closed on its timer: nothing of this seat's shows, so the log says it
      notice = { kind: "auto", key: "auto_pass", seat: this.seat };
      push(this.log, notice);
    }
    if (!notice) return null;
    const text = this.describe(notice);
    this.warn(() => this.describe(notice));
    announce(text);
    return notice.key === "auto_pass" ? null : by;
  }

  warn(text) {
    this.alert = { text, until: Date.now() + ALERT_MS };
  }

  describe(entry) {
    // a player gone since (away at the end, escaped) is still named in the log of its hand
    return describe(entry, { name: (seat) => this.knownNames[seat] || this.nameOf(seat), variant: this.variant,
      dealer: this.hand ? this.hand.dealer : null });
  }

  onError(m) {
    if (m.code === "no_hand") {
      this.waiting = !this.hand;
      return;
    }
    // a watch refused, or ended by the server (the table closed, spectators turned off)
    if (this.spectator && ["no_table", "spectators_full", "spectators_not_allowed",
      "wrong_room_code", "seated_here"].includes(m.code)) {
      this.notice = codeText(m.code);
      this.client.unwatch(this.tableId);
      return;
    }
    // stale: protocol.js resumes; rate_limited: it sends the dropped action again
    if (m.code === "stale" || m.code === "rate_limited") return;
    if (m.code === "hand_voided") {
      this.notice = t("outcome_voided");
      this.prompt = null;
      return;
    }
    const code = m.code;
    this.warn(() => codeText(code));
  }

  async settle(handId, ended) {
    this.prompt = null;
    if (this.spectator) { // the board shows the result; the dialog waits to be opened
      this.settlement = { handId, ended, wins: [...this.hand.wins], balance: null, closed: true,
        names: [...this.knownNames] };
      return;
    }
    // a reload between hands is sent the ended hand again: its settlement was seen already
    // (the countdown comes from table_state's next_hand_ms)
    const seen = sessionStorage.getItem(SEEN_KEY) === `${this.tableId}/${handId}`;
    sessionStorage.setItem(SEEN_KEY, `${this.tableId}/${handId}`);
    if (!seen) this.readyAt = Date.now() + this.timers.ready * 1000;
    this.settlement = { handId, ended, wins: [...this.hand.wins], balance: null, closed: seen,
      verdict: this.proof.verdict(ended), names: [...this.knownNames] }; // a player gone since: named
    this.render({ settled: !seen });
    // the hand ends before its silver moves: wait for this hand's ledger row, then read /me
    // (a practice table, stake 0, moves none and writes no row: /me at once)
    for (let i = 0; i < 40 && !this.closed; i++) {
      try {
        const page = this.stake === 0 ? null : await api("GET", "/me/ledger?limit=10");
        if (!page || page.entries.some((e) => e.hand_id === handId)) {
          const me = await api("GET", "/me");
          this.me = { ...this.me, ...me };
          window.dispatchEvent(new CustomEvent("me-changed", { detail: me }));
          if (this.settlement && this.settlement.handId === handId) {
            this.settlement.balance = me.balance;
            await this.loadPlayers();
            this.render();
          }
          return;
        }
      } catch {
        // try again
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  announceEvent(e) {
    const entry = entryOf(e);
    if (entry) announce(this.describe(entry));
  }

  // a seat's player; before the names are read, its wind (东家), never a seat number
  nameOf(seat) {
    const p = this.players[seat];
    return (p && p.name) || t("seat_wind", { wind: windOf(this, seat) });
  }

  windOf(seat) {
    return windOf(this, seat);
  }

  // --- the player's side -------------------------------------------------------------------

  act(action) {
    if (!this.prompt) return;
    if (!this.client.act(this.tableId, action)) return; // not connected: the prompt comes back
    this.link.acted();
    this.prompt = null;
    this.selected = null;
    this.restrictNote = "";
    this.confirming = this.confirmingClaim = null;
    this.autoplay = false; // any action of the player ends 托管 (server side too)
    this.askedAutoplay = false;
    this.render();
  }

  toggleLog(open = !this.logOpen) {
    this.logOpen = open;
    this.render();
    const target = this.main.querySelector(open ? "#log-close" : "#event-strip");
    if (target && confirmFirst()) target.focus({ preventScroll: true });
  }

  toggleAutoplay() {
    const on = !this.autoplay;
    const level = autoplayLevel(); // the player's choice (autolevel.js), with 托管 on only
    if (this.client.autoplay(this.tableId, on, on ? level : undefined)) {
      this.autoplay = on;
      this.askedAutoplay = on;
      if (on) this.autoplayPlaying = level;
      if (!on) this.link.acted(); // the player takes the seat back
      this.render();
    }
  }

  // the player chose another 托管 level while it is on: it plays at that level from now on
  setAutoplayLevel(level) {
    if (this.autoplay && this.client.autoplay(this.tableId, true, level)) this.autoplayPlaying = level;
  }

  async fillBots() {
    try {
      await api("POST", `/tables/${this.tableId}/fill-bots`);
      await this.loadPlayers();
    } catch (err) {
      this.notice = errorText(err);
    }
    this.render();
  }

  // --- watching -------------------------------------------------------------------------------

  stopWatching() {
    this.client.unwatch(this.tableId);
    location.hash = "#/lobby";
  }

  async leave() {
    if (this.spectator) {
      this.stopWatching();
      return;
    }
    const inHand = this.hand && !this.hand.ended && !this.waiting;
    const inEvent = this.event && this.event.status === "running"; // leaving forfeits the event
    if (inEvent && !window.confirm(t("ev_leave_confirm"))) return;
    if (!inEvent && inHand && !window.confirm(t("escape_confirm"))) return;
    try {
      await api("POST", `/tables/${this.tableId}/leave`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "wrong_table") {
        this.notice = errorText(err);
        this.render();
        return;
      }
    }
    location.hash = "#/lobby";
  }

  // closes the settlement to look at the board; the centre counts down to the deal at the
  // end of the server's ready timer, and 准备 stays offered under the hand
  closeSettlement() {
    if (this.settlement) this.settlement.closed = true;
    this.render();
    const first = this.main.querySelector("#ready-button") || this.main.querySelector("#autoplay");
    if (first) first.focus();
  }

  // 准备: closes the settlement and tells the server this seat is ready; once every seat is
  // (bots always are), the next hand is dealt at once rather than when the timer runs out
  sayReady() {
    if (this.settlement) this.settlement.closed = true;
    if (this.client.sayReady(this.tableId)) this.readySent = true;
    this.render();
  }

  // between hands: whether this seat said 准备 (the server's table_state, or this page
  // before the server answered)
  isReady() {
    const seat = this.seat !== null && this.tableState ? this.tableState.seats[this.seat] : null;
    return this.readySent || Boolean(seat && seat.ready);
  }

  reopenSettlement() {
    if (this.settlement) this.settlement.closed = false;
    this.render({ settled: true });
  }

  renderSoon(opts = {}) {
    this.drawOpts = mergeDraw(this.drawOpts, opts);
    if (this.frame === null) this.frame = requestAnimationFrame(() => this.render());
  }

  render(opts = {}) {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    opts = mergeDraw(this.drawOpts, opts);
    this.drawOpts = {};
    if (this.closed) return;
    const key = focusKey(this.main);
    renderTable(this.main, this);
    if (this.guide) this.guide.draw(this.main, this);
    this.link.lock(this.main);
    this.link.show(); // (in the language chosen now)
    restoreFocus(this.main, this, key, opts);
    roomFocus(this);
  }
}

// what several drawings asked for, in one: focus the prompt, show the result
function mergeDraw(a, b) {
  return { prompted: Boolean(a.prompted || b.prompted), settled: Boolean(a.settled || b.settled) };
}
