// Hand verification (src/verify.js) on docs/protocol.md's test vector and documented hand:
// the seed against its commitment, CPython's generator, the wall, and a changed transcript
// caught.

import assert from "node:assert/strict";
import { test } from "node:test";

import { HandProof, Twister, checkHand, codeOf, fromHex, seedKey, sha256Hex, shuffleOf } from "../src/verify.js";
import { transcriptEvents } from "./transcript.js";

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

test("the documented hand verifies: the seed, the dice, the deal and the indicator", () => {
  const verdict = checkHand(transcriptEvents());
  assert.equal(verdict.status, "verified", verdict.message);
  assert.equal(verdict.dealt, 14);
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

  const testMode = structuredClone(events);
  testMode[0].commitment = null;
  assert.equal(checkHand(testMode).status, "test_mode");
  assert.equal(checkHand(events.slice(0, -1)).status, "incomplete");
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
