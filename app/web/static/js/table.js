// The table controller: one per open table page. It owns the protocol client
// (protocol.js: the socket, seq order, resume, resends, reconnects), keeps the hand model
// from the events and snapshots it passes on, holds the current prompt, sends the player's
// actions and asks the view to redraw. Rendering is in tableview.js.

import { api, ApiError, refreshTokens, session } from "./api.js";
import { announce } from "./dom.js";
import { t } from "./i18n.js";
import { applyEvent, emptyHand, fromSnapshot } from "./model.js";
import { ProtocolClient } from "./protocol.js";
import { tileName } from "./tiles.js";
import { renderTable, restoreFocus, focusKey, updateCountdown } from "./tableview.js";

const PLAYERS_POLL_MS = 3000; // seat plates over REST until the server sends table_state
// events that leave a pending decision open (another seat's answer in the same 买底 round,
// a penalty); any other event means the decision was taken or the window closed
const KEEPS_PROMPT = new Set(["decided", "penalized"]);

export class TableController {
  constructor(main, { tableId, me, onBanner }) {
    this.main = main;
    this.tableId = tableId;
    this.me = me;
    this.onBanner = onBanner;
    this.seat = null;
    this.variant = null;
    this.stake = 1;
    this.players = [0, 1, 2, 3].map((seat) => ({ seat, name: null }));
    this.tableState = null; // the latest table_state, once the server sends one
    this.hand = null; // the model of the hand in play (or the last one)
    this.prompt = null; // {legal, deadline (ms since epoch), timeout, seq}
    this.autoplay = false;
    this.settlement = null; // {ended, handId, balance, wins}
    this.notice = "";
    this.waiting = true; // no hand has been seen at this table yet
    this.closed = false;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // each message of this table changes the controller, then the page is drawn again
    const then = (fn, opts = {}) => (m) => {
      if (m.table_id && m.table_id !== this.tableId) return;
      fn(m);
      this.render(opts);
    };
    this.client = new ProtocolClient({
      url: `${scheme}://${location.host}/ws`,
      token: () => session.access,
      refresh: refreshTokens,
      onSeated: then((m) => this.onSeated(m)),
      onTableState: then((m) => this.onTableState(m)),
      onEvent: then((m) => this.onEvent(m)),
      onPrompt: then((m) => this.onPrompt(m), { prompted: true }),
      onSnapshot: then((m) => this.onSnapshot(m)),
      onError: then((m) => this.onError(m)),
      onStatus: (status) => this.onStatus(status),
    });
    this.client.follow(tableId);
    this.onKey = (ev) => this.keydown(ev);
    this.ticker = null;
  }

  async start() {
    await this.loadPlayers();
    document.addEventListener("keydown", this.onKey);
    this.ticker = setInterval(() => this.tick(), 250);
    this.client.connect();
    this.render();
  }

  stop() {
    this.closed = true;
    document.removeEventListener("keydown", this.onKey);
    clearInterval(this.ticker);
    this.client.close();
    this.onBanner(null);
  }

  // --- the server's side -------------------------------------------------------------------

  async loadPlayers() {
    try {
      const data = await api("GET", `/tables/${this.tableId}/players`);
      this.variant = data.variant;
      this.stake = data.stake;
      if (!this.tableState) {
        this.players = data.seats.map((s) => ({ ...s, connected: true, autoplay: s.bot }));
      }
      const mine = data.seats.find((s) => s.name === this.me.username);
      if (mine) {
        this.seat = mine.seat;
        this.notice = "";
      } else if (this.seat === null) {
        this.notice = t("not_seated");
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") {
        location.hash = "#/lobby";
        return;
      }
      throw err;
    }
  }

  tick() {
    if (this.closed) return;
    updateCountdown(this);
    const now = Date.now();
    if (!this.tableState && (!this.hand || this.hand.ended) && now - (this.lastPoll || 0) > PLAYERS_POLL_MS) {
      this.lastPoll = now;
      this.loadPlayers().then(() => this.render(), () => {});
    }
  }

  onStatus(status) {
    if (status === "open") this.onBanner(null);
    else if (status === "reconnecting") this.onBanner({ text: t("reconnecting") });
    else if (status === "replaced") {
      this.onBanner({ text: t("replaced"), action: t("reconnect"), onAction: () => this.client.connect() });
    } else if (status === "kicked") {
      this.onBanner({ text: t("kicked"), action: t("nav_lobby"), onAction: () => { location.hash = "#/lobby"; } });
    } else if (status === "banned" || status === "unauthorized") {
      this.onBanner(null);
      session.clear(); // the session is over: back to the sign-in page
    }
  }

  onSeated(m) {
    this.seat = m.seat;
    this.variant = m.variant;
    this.stake = m.stake;
  }

  onTableState(m) {
    this.tableState = m;
    this.variant = m.variant;
    this.players = m.seats.map((s) => ({ ...s, bot: Boolean(s.name && s.name.startsWith("bot-")) }));
    if (this.seat !== null && m.seats[this.seat]) this.autoplay = m.seats[this.seat].autoplay;
  }

  onPrompt(m) {
    this.prompt = { legal: m.legal_actions, deadline: Date.now() + m.deadline_ms,
      timeout: m.timeout_action, seq: m.seq };
  }

  onSnapshot(m) {
    this.hand = fromSnapshot(m.view, m.hand_id);
    this.seat = m.view.seat ?? this.seat;
    this.prompt = null;
    this.waiting = false;
    if (this.settlement && this.settlement.handId !== m.hand_id) this.settlement = null;
  }

  // an event in seq order (protocol.js drops duplicates and resumes over gaps)
  onEvent(m) {
    const e = m.event;
    if (e.kind === "hand_started") {
      this.hand = emptyHand();
      this.settlement = null;
      this.waiting = false;
      this.loadPlayers().then(() => this.render(), () => {});
    }
    if (!this.hand) return; // followed from a seq this page never had: cannot happen here
    applyEvent(this.hand, e, m.hand_id);
    if (this.prompt && !KEEPS_PROMPT.has(e.kind)) this.prompt = null;
    this.announceEvent(e);
    if (e.kind === "hand_ended") this.settle(m.hand_id, e);
  }

  onError(m) {
    if (m.code === "no_hand") {
      this.waiting = !this.hand;
      return;
    }
    // stale: protocol.js resumes; rate_limited: it sends the dropped action again
    if (m.code === "stale" || m.code === "rate_limited") return;
    if (m.code === "hand_voided") {
      this.notice = t("outcome_voided");
      this.prompt = null;
      return;
    }
    this.notice = `${t("error")}: ${m.code}`;
  }

  async settle(handId, ended) {
    this.prompt = null;
    this.settlement = { handId, ended, wins: [...this.hand.wins], balance: null };
    this.render({ settled: true });
    // the hand ends before its silver moves: wait for this hand's ledger row, then read /me
    for (let i = 0; i < 40 && !this.closed; i++) {
      try {
        const page = await api("GET", "/me/ledger?limit=10");
        if (page.entries.some((e) => e.hand_id === handId)) {
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
    const name = (seat) => this.nameOf(seat);
    let text = null;
    if (e.kind === "hand_started") text = t("ev_started");
    else if (e.kind === "discarded") text = t("ev_discarded", { name: name(e.seat), tile: tileName(e.tile) });
    else if (e.kind === "melded") text = t("ev_melded", { name: name(e.seat), meld: t(`meld_${e.meld}`) });
    else if (e.kind === "won") text = t("ev_won", { name: name(e.seat) });
    else if (e.kind === "exhaustive_draw") text = t("ev_draw");
    else if (e.kind === "escaped") text = t("ev_escaped", { name: name(e.seat) });
    else if (e.kind === "flowered") text = t("ev_flowered", { name: name(e.seat), tile: tileName(e.tile) });
    else if (e.kind === "decided") text = t("ev_decided", { name: name(e.seat), choice: t(`decision_${e.choice}`) });
    else if (e.kind === "gold_robbed") text = t("ev_gold_robbed", { name: name(e.seat), tile: tileName(e.tile) });
    else if (e.kind === "penalized") text = t("ev_penalized", { name: name(e.seat), reason: t(`reason_${e.reason}`) });
    if (text) {
      this.lastEvent = text;
      announce(text);
    }
  }

  nameOf(seat) {
    const p = this.players[seat];
    return (p && p.name) || `${t("seats")} ${seat + 1}`;
  }

  // --- the player's side -------------------------------------------------------------------

  act(action) {
    if (!this.prompt) return;
    if (!this.client.act(this.tableId, action)) return; // not connected: the prompt comes back
    this.prompt = null;
    this.autoplay = false; // any action of the player ends 托管 (server side too)
    this.render();
  }

  discard(tile) {
    if (this.prompt && this.prompt.legal.some((a) => a.type === "discard" && a.tile === tile)) {
      this.act({ type: "discard", tile });
    }
  }

  toggleAutoplay() {
    const on = !this.autoplay;
    if (this.client.autoplay(this.tableId, on)) {
      this.autoplay = on;
      this.render();
    }
  }

  async fillBots() {
    try {
      await api("POST", `/tables/${this.tableId}/fill-bots`);
      await this.loadPlayers();
    } catch (err) {
      this.notice = `${t("error")}: ${err.code || err}`;
    }
    this.render();
  }

  async leave() {
    const inHand = this.hand && !this.hand.ended && !this.waiting;
    if (inHand && !window.confirm(t("escape_confirm"))) return;
    try {
      await api("POST", `/tables/${this.tableId}/leave`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "wrong_table") {
        this.notice = `${t("error")}: ${err.code || err}`;
        this.render();
        return;
      }
    }
    location.hash = "#/lobby";
  }

  closeSettlement() {
    if (this.settlement) this.settlement.closed = true;
    this.render();
    const first = this.main.querySelector("#autoplay");
    if (first) first.focus();
  }

  keydown(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target;
    if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
    const key = ev.key.toLowerCase();
    const legal = this.prompt ? this.prompt.legal : [];
    const first = (type) => legal.find((a) => a.type === type);
    if (key === "arrowleft" || key === "arrowright") {
      const tiles = [...this.main.querySelectorAll("#my-hand button.tile")];
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
    else if (key === "d" && this.hand && this.hand.drawn) {
      action = legal.find((a) => a.type === "discard" && a.tile === this.hand.drawn);
    } else if (key === "c") {
      const chows = legal.filter((a) => a.type === "chow");
      if (chows.length === 1) action = chows[0];
      else if (chows.length > 1) {
        const button = this.main.querySelector('#actions button[data-action="chow"]');
        if (button) button.focus();
        ev.preventDefault();
        return;
      }
    } else if (key === "t") {
      this.toggleAutoplay();
      ev.preventDefault();
      return;
    }
    if (action) {
      ev.preventDefault();
      this.act(action);
    }
  }

  render(opts = {}) {
    if (this.closed) return;
    const key = focusKey(this.main);
    renderTable(this.main, this);
    restoreFocus(this.main, this, key, opts);
  }
}
