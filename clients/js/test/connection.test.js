// The connection (src/protocol.js) against a fake socket and a fake clock: the hello and
// resume, the heartbeat's pong timeout, reconnecting with backoff and jitter, duplicates
// dropped by seq, gaps resumed, and what each close code does.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ProtocolClient } from "../src/protocol.js";
import { Clock, event, flush, sockets } from "./fakes.js";

const T = "T1";

function harness(options = {}) {
  const clock = new Clock();
  const { Socket, all } = sockets();
  const seen = { events: [], statuses: [], errors: [], prompts: [] };
  const client = new ProtocolClient({
    url: "ws://server/ws", token: () => "tok", WebSocket: Socket,
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout, now: () => clock.now,
    random: () => 0.5,
    onEvent: (m) => seen.events.push(m.seq),
    onPrompt: (m) => seen.prompts.push(m.seq),
    onError: (m, sent) => seen.errors.push({ code: m.code, sent }),
    onStatus: (status, detail) => seen.statuses.push(detail ? { status, ...detail } : { status }),
    ...options,
  });
  return { client, clock, all, seen, last: () => all[all.length - 1] };
}

async function connected(options) {
  const h = harness(options);
  h.client.follow(T);
  h.client.connect();
  await h.last().accept();
  return h;
}

test("the hello goes first, then a resume per followed table, then a ping", async () => {
  const { all, client } = await connected();
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping"]);
  assert.deepEqual(all[0].sent[0], { v: 2, type: "hello", token: "tok" });
  assert.deepEqual(all[0].sent[1], { v: 2, type: "resume", table_id: T, last_seq: 0 });
  // open once the server is heard, not when the socket opens
  assert.equal(client.status, "connecting");
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  assert.equal(client.status, "open");
});

test("a silent socket is dropped after the pong timeout and connected again", async () => {
  const { all, clock, seen, client } = await connected();
  await clock.tick(9_999);
  assert.equal(all.length, 1);
  assert.equal(all[0].closedWith, null);

  await clock.tick(1); // 10 s after the ping, nothing heard
  assert.deepEqual(all[0].closedWith, { code: 1000, reason: "pong_timeout" });
  const reconnecting = seen.statuses.at(-1);
  assert.equal(reconnecting.status, "reconnecting");
  assert.equal(reconnecting.code, 1006);
  assert.equal(reconnecting.reason, "pong_timeout");
  assert.equal(client.status, "reconnecting");
  assert.equal(client.isOpen, false);

  await clock.tick(reconnecting.wait);
  assert.equal(all.length, 2);
  await all[1].accept();
  assert.deepEqual(all[1].types(), ["hello", "resume", "ping"]);
  assert.equal(client.status, "reconnecting"); // until the server answers
  all[1].receive({ v: 2, type: "pong", nonce: "x" });
  assert.equal(client.status, "open");
  // a late close event of the dead socket changes nothing
  all[0].onclose?.({ code: 1006, reason: "" });
  assert.equal(client.status, "open");
});

test("a socket that opens but hears nothing never reports open, and is dropped", async () => {
  const { all, clock, seen } = await connected();
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  all[0].serverClose(1006);
  await clock.tick(seen.statuses.at(-1).wait);
  await all[1].accept(); // the network lets the socket open, then carries nothing
  await clock.tick(10_000);
  assert.equal(all[1].closedWith?.reason, "pong_timeout");
  assert.deepEqual(seen.statuses.map((s) => s.status),
    ["connecting", "open", "reconnecting", "reconnecting"]);
});

test("an action is followed by a ping: a dead link is noticed within the pong timeout", async () => {
  const { all, clock, client, seen } = await connected();
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  await clock.tick(15_000); // 5 s before the next heartbeat
  client.act(T, { type: "discard", tile: "5m" });
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping", "action", "ping"]);
  await clock.tick(9_999);
  assert.equal(all[0].closedWith, null);
  await clock.tick(1);
  assert.equal(all[0].closedWith?.reason, "pong_timeout");
  assert.equal(seen.statuses.at(-1).status, "reconnecting");
});

test("reconnect() drops the socket at once; retry() cuts the pause short or probes", async () => {
  const { all, clock, client, seen } = await connected();
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  assert.equal(client.retry(), true); // open: a probe
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping", "ping"]);
  all[0].receive({ v: 2, type: "pong", nonce: "y" });

  assert.equal(client.reconnect("offline"), true); // the browser went offline
  assert.deepEqual(all[0].closedWith, { code: 1000, reason: "offline" });
  const lost = seen.statuses.at(-1);
  assert.deepEqual([lost.status, lost.code, lost.reason], ["reconnecting", 1006, "offline"]);
  assert.equal(client.reconnect("offline"), false); // nothing left to drop
  await clock.tick(lost.wait - 1);
  assert.equal(all.length, 1);

  assert.equal(client.retry(), true); // online again: at once, not after the pause
  assert.equal(all.length, 2);
  assert.equal(client.retry(), true); // still opening: left to open
  assert.equal(all.length, 2);
  await all[1].accept();
  all[1].receive({ v: 2, type: "pong", nonce: "z" });
  assert.equal(client.status, "open");
  await clock.tick(lost.wait); // the pause's own timer was cancelled: no third socket
  assert.equal(all.length, 2);
  assert.equal(all[1].closedWith, null);

  client.close();
  assert.equal(client.retry(), false);
  assert.equal(client.reconnect(), false);
});

test("connect() while a socket is opening gives that one up: one socket at a time", async () => {
  const h = harness();
  h.client.connect();
  h.client.connect();
  assert.equal(h.all.length, 2);
  assert.equal(h.all[0].closedWith?.code, 1000);
  await h.all[1].accept();
  h.all[0].onclose?.({ code: 1006, reason: "" }); // the first one's late close is not heard
  h.all[1].receive({ v: 2, type: "pong", nonce: "x" });
  assert.equal(h.client.status, "open");
  assert.equal(h.all.length, 2);
});

test("a pong, or any frame, in time keeps the socket; pings go on every 20 s", async () => {
  const { all, clock } = await connected();
  await clock.tick(5_000);
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  await clock.tick(15_000); // the second ping, at 20 s
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping", "ping"]);
  await clock.tick(9_000);
  all[0].receive({ v: 2, type: "error", code: "no_hand", message: "", ref_seq: 0 });
  await clock.tick(10_000);
  assert.equal(all.length, 1);
  assert.equal(all[0].closedWith, null);
  await clock.tick(11_000); // the third ping at 40 s goes unanswered until 50 s
  assert.equal(all[0].closedWith?.reason, "pong_timeout");
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping", "ping", "ping"]);
});

test("probe() pings at once, and a socket that died in the background is noticed", async () => {
  const { all, clock, client } = await connected();
  all[0].receive({ v: 2, type: "pong", nonce: "x" });
  await clock.tick(12_000);
  assert.equal(client.probe(), true);
  assert.deepEqual(all[0].types(), ["hello", "resume", "ping", "ping"]);
  await clock.tick(10_000);
  assert.equal(all[0].closedWith?.reason, "pong_timeout");
  assert.equal(client.probe(), false); // nothing open to probe
});

test("a socket that never opens is given up after the open timeout", async () => {
  const h = harness();
  h.client.connect();
  await h.clock.tick(10_000);
  assert.equal(h.all[0].closedWith?.reason, "open_timeout");
  assert.equal(h.seen.statuses.at(-1).reason, "open_timeout");
  await h.clock.tick(h.seen.statuses.at(-1).wait);
  assert.equal(h.all.length, 2);
});

test("reconnects back off from 0.4 s doubling to 8 s, jittered, and reset once heard", async () => {
  const h = await connected({ random: () => 0.5 });
  const waits = [];
  for (let i = 0; i < 7; i++) {
    h.last().serverClose(1006);
    const { wait } = h.seen.statuses.at(-1);
    waits.push(wait);
    await h.clock.tick(wait);
    await h.last().accept();
  }
  // each pause drawn between half and all of 400, 800, ... 8000 (random 0.5: three quarters)
  assert.deepEqual(waits, [300, 600, 1200, 2400, 4800, 6000, 6000]);
  h.last().receive({ v: 2, type: "pong", nonce: "x" });
  h.last().serverClose(1011);
  assert.equal(h.seen.statuses.at(-1).wait, 300);

  const low = await connected({ random: () => 0 });
  low.last().serverClose(1006);
  assert.equal(low.seen.statuses.at(-1).wait, 200);
  const high = await connected({ random: () => 0.999 });
  high.last().serverClose(1006);
  assert.ok(high.seen.statuses.at(-1).wait > 399 && high.seen.statuses.at(-1).wait <= 400);
});

test("events pass in seq order, each once: duplicates are dropped by seq", async () => {
  const { all, seen } = await connected();
  const ws = all[0];
  ws.receive(event(T, 1, { kind: "hand_started", variant: "lishui", dealer: 0, dice: [1, 2], wall_size: 136 }));
  ws.receive(event(T, 2, { kind: "decided", seat: 0, choice: "buy" }));
  ws.receive(event(T, 2, { kind: "decided", seat: 0, choice: "buy" })); // a resume's duplicate
  ws.receive(event(T, 1, { kind: "hand_started", variant: "lishui", dealer: 0, dice: [1, 2], wall_size: 136 }));
  ws.receive(event(T, 3, { kind: "decided", seat: 1, choice: "buy" }));
  assert.deepEqual(seen.events, [1, 2, 3]);
});

test("room and tournament messages, which carry no seq, go to their callbacks", async () => {
  const rooms = [];
  const tournaments = [];
  const { all } = await connected({
    onRoom: (m) => rooms.push(m.room.code), onTournament: (m) => tournaments.push(m.tournament.round),
  });
  all[0].receive({ v: 2, type: "tournament", tournament: { id: 3, round: 2, table_id: T } });
  all[0].receive({ v: 2, type: "room", room: { code: "482913", table_id: T } });
  all[0].receive({ v: 2, type: "tournament", tournament: { id: 3, round: 3, table_id: null } });
  assert.deepEqual(tournaments, [2, 3]);
  assert.deepEqual(rooms, ["482913"]);
});

test("a gap resumes from the last seq, once per 3 s, and what the resume brings fills it", async () => {
  const { all, seen, clock, client } = await connected();
  const ws = all[0];
  ws.receive(event(T, 1, { kind: "decided", seat: 0, choice: "buy" }));
  ws.receive(event(T, 3, { kind: "decided", seat: 2, choice: "buy" })); // 2 was lost
  ws.receive(event(T, 4, { kind: "decided", seat: 3, choice: "buy" }));
  assert.deepEqual(seen.events, [1]);
  const resumes = () => ws.sent.filter((m) => m.type === "resume").map((m) => m.last_seq);
  assert.deepEqual(resumes(), [0, 1]);
  await clock.tick(3_000);
  ws.receive(event(T, 4, { kind: "decided", seat: 3, choice: "buy" }));
  assert.deepEqual(resumes(), [0, 1, 1]);
  for (const seq of [2, 3, 4]) ws.receive(event(T, seq, { kind: "decided", seat: 0, choice: "buy" }));
  assert.deepEqual(seen.events, [1, 2, 3, 4]);
  assert.equal(client.lastSeq(T), 4);
  // a prompt ahead of the last event waits for the resume; one at it is passed on
  ws.receive({ v: 2, type: "prompt", table_id: T, hand_id: "T1-1", seq: 6, legal_actions: [] });
  ws.receive({ v: 2, type: "prompt", table_id: T, hand_id: "T1-1", seq: 4, legal_actions: [] });
  assert.deepEqual(seen.prompts, [4]);
});

test("after a drop the client resumes each table from its last seq", async () => {
  const { all, clock, seen } = await connected();
  for (const seq of [1, 2, 3]) all[0].receive(event(T, seq, { kind: "decided", seat: 0, choice: "buy" }));
  all[0].serverClose(1012, "restart");
  await clock.tick(seen.statuses.at(-1).wait);
  await all[1].accept();
  assert.deepEqual(all[1].sent[1], { v: 2, type: "resume", table_id: T, last_seq: 3 });
  all[1].receive(event(T, 3, { kind: "decided", seat: 0, choice: "buy" })); // sent twice
  all[1].receive(event(T, 4, { kind: "decided", seat: 1, choice: "buy" }));
  assert.deepEqual(seen.events, [1, 2, 3, 4]);
});

test("an action carries the last seq, and its refusal comes back paired with it", async () => {
  const { all, seen, client } = await connected();
  all[0].receive(event(T, 1, { kind: "decided", seat: 0, choice: "buy" }));
  const sent = client.act(T, { type: "discard", tile: "5m" });
  assert.deepEqual(sent, { v: 2, type: "action", table_id: T, seq: 1, action: { type: "discard", tile: "5m" } });
  all[0].receive({ v: 2, type: "error", code: "tile_not_in_hand", message: "", ref_seq: 1 });
  assert.deepEqual(seen.errors.at(-1), { code: "tile_not_in_hand", sent });
});

test("autoplay sends its level only when one is chosen: left out, the server's standard", async () => {
  const { client } = await connected();
  assert.deepEqual(client.autoplay(T, true), { v: 2, type: "autoplay", table_id: T, on: true });
  assert.deepEqual(client.autoplay(T, true, "expert"),
    { v: 2, type: "autoplay", table_id: T, on: true, level: "expert" });
  assert.deepEqual(client.autoplay(T, false), { v: 2, type: "autoplay", table_id: T, on: false });
});

test("close codes: 4000 ends it, 4401 refreshes first, 4429 waits the seconds named", async () => {
  const replaced = await connected();
  replaced.last().serverClose(4000, "replaced");
  await replaced.clock.tick(60_000);
  assert.equal(replaced.all.length, 1);
  assert.equal(replaced.client.status, "replaced");

  let refreshed = 0;
  const expired = await connected({ refresh: async () => { refreshed += 1; } });
  expired.last().serverClose(4401);
  await flush();
  assert.equal(refreshed, 1);
  await expired.clock.tick(expired.seen.statuses.at(-1).wait);
  assert.equal(expired.all.length, 2);

  const signedOut = await connected({ refresh: () => Promise.reject(new Error("over")) });
  signedOut.last().serverClose(4401);
  await flush();
  assert.equal(signedOut.client.status, "unauthorized");
  await signedOut.clock.tick(60_000);
  assert.equal(signedOut.all.length, 1);

  const busy = await connected();
  busy.last().serverClose(4429, "too many connections: retry in 7 s");
  const { wait } = busy.seen.statuses.at(-1);
  assert.ok(wait >= 7_000 && wait < 8_000, String(wait));
});

test("close() ends it for good; connect() without a WebSocket class says what to pass", async () => {
  const { client, clock, all } = await connected();
  client.close();
  assert.equal(client.status, "closed");
  await clock.tick(60_000);
  assert.equal(all.length, 1);
  const bare = new ProtocolClient({ url: "ws://x/ws", token: () => "", WebSocket: null });
  assert.throws(() => bare.connect(), /pass options\.WebSocket/);
});
