// Test doubles for the connection: a clock whose timers run when a test says so, and a
// WebSocket the test plays the server of. No test here; a helper module.

export const flush = () => new Promise((resolve) => setImmediate(resolve));

export class Clock {
  constructor() {
    this.now = 0;
    this.timers = new Map();
    this.next = 1;
  }

  setTimeout = (fn, ms) => {
    const id = this.next++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  };

  clearTimeout = (id) => { this.timers.delete(id); };

  // run every timer due within `ms`, in order, letting promises settle after each
  async tick(ms) {
    const end = this.now + ms;
    for (;;) {
      let due = null;
      for (const [id, t] of this.timers) {
        if (t.at <= end && (due === null || t.at < due[1].at)) due = [id, t];
      }
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
      await flush();
    }
    this.now = end;
    await flush();
  }
}

// A socket whose server is the test: `accept()` opens it, `receive()` delivers a message,
// `serverClose()` closes it from the server's side. `close()` from the client records the
// call and, like a dead network, delivers no close event.
export class FakeSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closedWith = null;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
  }

  send(text) { this.sent.push(JSON.parse(text)); }

  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  async accept() {
    this.readyState = 1;
    this.onopen?.({});
    await flush();
  }

  receive(message) { this.onmessage?.({ data: JSON.stringify(message) }); }

  serverClose(code, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  types() { return this.sent.map((m) => m.type); }
}

// A socket class of its own for one test: `sockets` lists every socket the client opened.
export function sockets() {
  const all = [];
  class Socket extends FakeSocket {
    constructor(url) {
      super(url);
      all.push(this);
    }
  }
  return { Socket, all };
}

export const event = (tableId, seq, payload, handId = `${tableId}-1`) =>
  ({ v: 2, type: "event", table_id: tableId, hand_id: handId, seq, event: payload });
