// Hand verification (src/verify.js) on docs/protocol.md's test vector and documented hand:
// the seed against its commitment, CPython's generator, the wall, a changed transcript
// caught and named, transcripts of messages read as the Python command reads them, and the
// table page's proof. The whole hand's replay: verify_hand.test.js.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  HandProof, Twister, checkHand, checkTranscript, codeOf, fromHex, parseTranscript, readHands, seedKey,
  sha256Hex, shuffleOf,
} from "../src/verify.js";
import { transcript, transcriptEvents } from "./transcript.js";

const SEED = "ef3dcd317125c7f28e3bc964aa6472ded4c13d34deca9adbafbd5074878a6b04";

test("the documented test vector: commitment, key, generator, dice and wall", () => {
  const seed = fromHex(SEED);
  assert.equal(sha256Hex(seed), "e293ffd2c9766f9eb4088d14709fe6b1c1f950c3c9ae26237d645b1a82a449f3");
  assert.deepEqual(seedKey(seed), [0x878a6b04, 0xafbd5074, 0xdeca9adb, 0xd4c13d34, 0xaa6472de,
    0x8e3bc964, 0x7125c7f2, 0xef3dcd31]);
  const rng = new Twister(seedKey(seed));
  assert.deepEqual([rng.next32(), rng.next32(), rng.next32()], [1120011265, 2239051330, 2425857495]);
  const lishui = shuffleOf(seed, "lishui");
  assert.deepEqual(lishui.dice, [3, 5]);
  assert.equal(lishui.wall.slice(0, 16).map(codeOf).join(" "), "7s 7z 2z 3s 6z 5z 1z 9m 5m 3z 2s 8m 1p 4p 4z 1p");
  assert.equal(lishui.wall.slice(-4).map(codeOf).join(" "), "3s 6m 5z 3p");
  assert.deepEqual(lishui.wildDice, [3, 5]);
  const fuzhou = shuffleOf(seed, "fuzhou");
  assert.equal(fuzhou.wall.length, 144);
  assert.equal(fuzhou.wall.slice(0, 16).map(codeOf).join(" "), "4p 4z 8p 4m 5s 8p 8s 8p 9m 3z 1p 6z 9m 6m 5f 3p");
  assert.deepEqual(fuzhou.wildDice, [2, 6]);
});

test("the documented hand verifies: the seed, the dice, and the whole hand on its wall", () => {
  const events = transcriptEvents();
  const verdict = checkHand(events);
  assert.equal(verdict.status, "verified", verdict.message);
  assert.equal(verdict.dealt, 14);
  assert.equal(verdict.draws, events.filter((e) => e.kind === "drew" && e.tile).length);
  assert.equal(verdict.message, "the seed matches the commitment, and the whole hand follows from its wall: "
    + `the dice, the deal, ${events.length - 2} events and every revealed hand (14 dealt tiles and `
    + `${verdict.draws} draws shown here compared)`);
  assert.deepEqual([verdict.what, verdict.event, verdict.seq], [null, null, null]);
});

test("Python's hex: either case and whitespace between bytes, nothing else", () => {
  assert.deepEqual([...fromHex("ab CD\n01")], [0xab, 0xcd, 0x01]);
  assert.deepEqual([...fromHex("")], []);
  for (const bad of ["a b", "abc", "xy", null, 12]) assert.equal(fromHex(bad), null);
});

test("a changed deal, seed or commitment fails, naming what did not fit", () => {
  const events = transcriptEvents();
  const dealt = structuredClone(events);
  dealt[1].tiles[0] = dealt[1].tiles[0] === "2m" ? "3m" : "2m";
  assert.equal(checkHand(dealt).status, "failed");
  assert.equal(checkHand(dealt).what, "deal");

  const seed = structuredClone(events);
  seed.at(-1).seed = SEED;
  assert.equal(checkHand(seed).what, "commitment");

  const indicator = structuredClone(events);
  indicator[5].indicator = "9s";
  assert.equal(checkHand(indicator).what, "indicator");

  const seat = structuredClone(events);
  const at = seat.findIndex((e) => e.kind === "discarded" && e.seat === 2);
  seat[at].seat = 1;
  const moved = checkHand(seat);
  assert.deepEqual([moved.status, moved.what, moved.event], ["failed", "play", at + 1]);
  assert.match(moved.message, new RegExp(`^event ${at + 1}, discarded: seat 1 discards ${seat[at].tile} out of turn, while `));

  const revealed = structuredClone(events);
  revealed.at(-1).hands[3].pop();
  const end = checkHand(revealed);
  assert.deepEqual([end.what, end.event], ["end", events.length]);
  assert.match(end.message, /: seat 3's revealed hand: the wall and the events leave it /);

  const after = checkHand([...events, events.at(-2)]);
  assert.deepEqual([after.what, after.event], ["end", events.length + 1]);

  const testMode = structuredClone(events);
  testMode[0].commitment = null;
  assert.equal(checkHand(testMode).status, "test_mode");
  assert.equal(checkHand(events.slice(0, -1)).status, "incomplete");
});

test("transcripts of messages: hands by id, resent copies dropped, the seq in the mismatch", () => {
  const messages = transcript();
  const events = messages.filter((m) => m.type === "event");
  const resent = [...messages.slice(0, 20), ...events.slice(3, 8), ...messages.slice(20)];
  const [hand] = readHands(resent);
  assert.equal(hand.events.length, events.length);
  assert.deepEqual(hand.seqs, events.map((m) => m.seq));
  assert.equal(checkTranscript(resent)[0].status, "verified");

  const bad = structuredClone(resent);
  const at = bad.findIndex((m) => m.type === "event" && m.event.kind === "discarded");
  bad[at].event.tile = bad[at].event.tile === "1m" ? "2m" : "1m";
  const [verdict] = checkTranscript(bad);
  const place = events.findIndex((m) => m.seq === bad[at].seq) + 1;
  assert.deepEqual([verdict.status, verdict.event, verdict.seq, verdict.handId],
    ["failed", place, bad[at].seq, bad[at].hand_id]);
  assert.ok(verdict.message.startsWith(`event ${place} (seq ${bad[at].seq}), discarded: `), verdict.message);

  // a hand joined midway, a replay's answer, bare payloads, and lines of text
  const joined = checkTranscript([{ type: "snapshot", hand_id: "J" }, { type: "event", hand_id: "J", seq: 9, event: events[9].event }]);
  assert.deepEqual(joined.map((v) => [v.status, v.handId]), [["incomplete", "J"]]);
  const replay = checkTranscript([{ hand_id: "R", events: events.map((m) => m.event) }]);
  assert.deepEqual(replay.map((v) => [v.status, v.handId]), [["verified", "R"]]);
  const bare = checkTranscript([...transcriptEvents(), ...transcriptEvents()]);
  assert.deepEqual(bare.map((v) => v.status), ["verified", "verified"]);
  const text = resent.map((m) => JSON.stringify(m)).join("\n");
  assert.deepEqual(parseTranscript(text), resent);
  assert.deepEqual(parseTranscript(JSON.stringify(resent)), resent);
  assert.deepEqual(parseTranscript("  "), []);
});

test("HandProof: the whole hand seen verifies; joined midway, only the seed is checked", () => {
  const events = transcriptEvents();
  const proof = new HandProof();
  for (const e of events) proof.event(e);
  assert.equal(proof.verdict(events.at(-1)).status, "verified");

  const late = new HandProof();
  late.snapshot({ commitment: events[0].commitment });
  for (const e of events.slice(10)) late.event(e);
  assert.equal(late.verdict(events.at(-1)).status, "partial");
  assert.equal(late.verdict({ ...events.at(-1), seed: SEED }).status, "failed");
});
