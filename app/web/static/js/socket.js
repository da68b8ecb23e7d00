// The one WebSocket of this client (protocol version 2, docs/protocol.md): opens /ws and
// says hello with the access token as its first message (never in the URL), reconnects
// with a growing pause after a drop (showing the banner meanwhile), and keeps a ping going.
// Messages go to the handler given to `open`; `send` drops nothing silently: while the
// socket is down an action is refused and the caller resumes after the reconnect.

import { refreshTokens, session } from "./api.js";

const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_REPLACED = 4000;
const CLOSE_BANNED = 4004; // the account was banned: no reconnecting, the session ends
const VERSION = 2;
const PING_MS = 20000;

export class TableSocket {
  constructor({ onMessage, onOpen, onStatus }) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus; // "open" | "reconnecting" | "replaced" | "closed"
    this.ws = null;
    this.retries = 0;
    this.stopped = false;
    this.timer = null;
    this.ping = null;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ v: VERSION, type: "hello", token: session.access || "" }));
      this.retries = 0;
      this.onStatus("open");
      this.onOpen();
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: "ping", nonce: String(Date.now()) }), PING_MS);
    };
    ws.onmessage = (msg) => {
      let data;
      try { data = JSON.parse(msg.data); } catch { return; }
      this.onMessage(data);
    };
    ws.onclose = (ev) => {
      clearInterval(this.ping);
      if (this.ws !== ws || this.stopped) return;
      if (ev.code === CLOSE_REPLACED) {
        this.onStatus("replaced");
        return;
      }
      if (ev.code === CLOSE_BANNED) {
        this.onStatus("closed");
        session.clear();
        return;
      }
      this.onStatus("reconnecting");
      const again = () => {
        const wait = Math.min(8000, 400 * 2 ** this.retries);
        this.retries += 1;
        this.timer = setTimeout(() => this.connect(), wait);
      };
      if (ev.code === CLOSE_UNAUTHORIZED) {
        refreshTokens().then(again, () => { this.onStatus("closed"); session.clear(); });
      } else {
        again();
      }
    };
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify({ v: VERSION, ...message }));
    return true;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}
