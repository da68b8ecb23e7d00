// The table page's link to the server, as the player sees it: never silently frozen.
//
// The kit's connection (protocol.js) notices a dead socket by itself: nothing heard within
// the heartbeat's timeout of a ping (one every `ping_ms`, and one right after each action;
// both from GET /tables/{id}/players), a socket that does not open. This page adds what
// only the browser knows: its `offline` event drops the socket at once, its `online` event
// and the tab coming back to the foreground try at once (an open socket is probed). The
// banner says at once what happened:
// - lost: "连接已断开，正在重新连接…" (offline: the network's own words) with a button to try
//   now, from the moment the socket is given up until the server answers a new one;
// - back: "已重新连接" for a few seconds; when the server played this seat meanwhile (its
//   timer ran out, or 托管), how many times, and while 托管 is still on, a button to stop it
//   (the table bar's 托管 toggle shows the server's word, table_state's);
// - replaced (the account opened the table in another tab or device): the tab can no
//   longer play; the banner says so with a button that takes the seat back here;
// - kicked: a way back to the lobby.
// While the link is down every control that plays the seat is disabled (a replaced tab's
// REST ones too: leaving from there would be an escape), so nothing looks live that cannot
// act; the keyboard's shortcuts are off as well.

import { t } from "./i18n.js";

const BACK_MS = 3000; // "Reconnected" shows this long
const BACK_PLAYED_MS = 8000; // ... and this long when the server played for the seat
// a seat's own plays, as events: what the server did for a player who was away
const OWN_PLAYS = new Set(["discarded", "melded", "won", "decided"]);
// controls that only show something: left alone while the link is down
const READING = ["#event-strip", "#log-close", "#reopen-settlement", "#settle-close", "#settle-replay",
  "#chat-open", "#chat-close", "#confirm-no", "#room-code-copy", "#room-rules-toggle",
  "#room-rules-close", "#room-board-open", "#room-board-close", "#room-board-lobby", "#room-lobby"];
// controls that work over REST, without the socket: kept while reconnecting, not in a
// replaced tab
const OVER_REST = ["#leave", "#settle-leave", "#fill-bots", "#room-dissolve", "#room-vote-yes",
  "#room-vote-no"];

export class TableLink {
  constructor(c) {
    this.c = c; // the table controller
    this.state = "connecting"; // connecting, open, lost, replaced, kicked
    this.reason = ""; // why the socket was given up (pong_timeout, offline, a close reason)
    this.away = null; // {seq, played}: the last seq before the drop, the seat's plays since
    this.backAt = 0; // when the server answered again (ms)
    this.backUntil = 0; // "Reconnected" shows until then (ms)
    this.shown = null; // what the banner shows now (to draw it only when it changes)
    this.onOffline = () => {
      if (!this.c.client.reconnect("offline")) this.show(); // already down: the words change
    };
    this.onOnline = () => { this.c.client.retry(); };
    // back in the foreground: a phone's socket may have died unnoticed in the background
    this.onVisible = () => { if (document.visibilityState === "visible") this.c.client.retry(); };
  }

  listen(on) {
    const how = on ? "addEventListener" : "removeEventListener";
    window[how]("offline", this.onOffline);
    window[how]("online", this.onOnline);
    document[how]("visibilitychange", this.onVisible);
  }

  // the controls that play the seat may act
  get live() {
    return this.state === "open";
  }

  // the kit's status
  status(status, detail) {
    const was = this.state;
    if (status === "open") {
      this.state = "open";
      this.backAt = Date.now();
      if (this.away) this.backUntil = this.backAt + BACK_MS;
    } else if (status === "reconnecting") {
      this.state = "lost";
      this.reason = (detail && detail.reason) || "";
      // counted from the last event the page had: what the server did after it, it did alone
      if (was === "open" || !this.away) this.away = { seq: this.c.client.lastSeq(this.c.tableId), played: 0 };
    } else if (status === "replaced" || status === "kicked") {
      this.state = status;
      this.away = null; // another tab played meanwhile, not the server
    } else if (status === "connecting") {
      this.state = "connecting";
    }
    this.show();
  }

  // an event in seq order: a play of this seat's after the drop, before the player acts
  // again, was the server's (the resume brings them at once, 托管 may go on for a while)
  event(m) {
    const e = m.event;
    if (!this.away || m.seq <= this.away.seq || e.seat !== this.c.seat || !OWN_PLAYS.has(e.kind)) return;
    this.away.played += 1;
    if (this.state === "open") this.backUntil = Math.max(this.backUntil, this.backAt + BACK_PLAYED_MS);
    this.show();
  }

  // the player acts again: what the server did meanwhile is told
  acted() {
    if (this.state !== "open" || !this.away) return;
    this.away = null;
    this.backUntil = 0;
    this.show();
  }

  // a reconnection whose news the banner is telling (the page need not say 托管 took again)
  get recovering() {
    return Boolean(this.away);
  }

  tick() {
    if (this.state === "open" && this.away && Date.now() >= this.backUntil) {
      this.away = null;
      this.show();
    }
  }

  // the banner's contents now: null for none
  banner() {
    const c = this.c;
    if (this.state === "lost") {
      const offline = this.reason === "offline" || navigator.onLine === false;
      return { kind: "lost", text: t(offline ? "link_offline" : "reconnecting"), action: t("reconnect_now"),
        onAction: () => c.client.retry() };
    }
    if (this.state === "replaced") {
      return { kind: "replaced", text: t("replaced"), action: t("link_play_here"), onAction: () => c.client.connect() };
    }
    if (this.state === "kicked") {
      return { kind: "kicked", text: t("kicked"), action: t("nav_lobby"), onAction: () => { location.hash = "#/lobby"; } };
    }
    if (this.state !== "open" || !this.away) return null;
    const n = this.away.played;
    const one = n === 1 ? "_one" : "";
    if (c.autoplay) {
      return { kind: "back", text: n ? t(`link_back_autoplay${one}`, { n }) : t("link_back_autoplay_only"),
        action: t("autoplay_off"), onAction: () => { if (c.autoplay) c.toggleAutoplay(); } };
    }
    return { kind: "back", text: n ? t(`link_back_played${one}`, { n }) : t("link_back") };
  }

  // draws the banner when what it says changed (a redraw keeps the focus on its button)
  show() {
    const state = this.banner();
    const key = state ? `${state.kind}|${state.text}|${state.action || ""}` : null;
    if (key === this.shown) return;
    this.shown = key;
    this.c.onBanner(state);
  }

  // after each drawing of the table: while the link is down, nothing that plays the seat
  // stays enabled
  lock(main) {
    const view = main.querySelector("#table-view");
    if (!view) return;
    view.dataset.link = this.state;
    if (this.live) return;
    const keep = this.state === "lost" || this.state === "connecting" ? [...READING, ...OVER_REST] : READING;
    for (const el of view.querySelectorAll("button")) {
      if (!keep.some((selector) => el.matches(selector))) el.disabled = true;
    }
  }
}
