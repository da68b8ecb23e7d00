// The whole hand rebuilt from its seed (src/verify_play.js over src/verify_tiles.js, through
// checkHand): bots' hands of every variant verify from a seat's view, and a record with a
// changed discard, a changed own draw, another seat's changed revealed hand, a claim with
// tiles the claimer does not hold, a removed event or two discards swapped fails at the
// event that no longer fits, saying what the wall made instead. The same cases, and many
// more, are held equal to the Python verifier's verdicts by the server's
// tests/kit/test_verify_agrees.py.

import assert from "node:assert/strict";
import { test } from "node:test";

import { FOLLOWED, HandReplay, LAYOUTS, checkHand, codeOf, fromHex, kindOf, shuffleOf } from "../src/verify.js";
import { kitHands } from "./transcript.js";

const HANDS = kitHands();
const other = (code) => codeOf((kindOf(code) + 1) % 34);
const clone = (events) => structuredClone(events);

// the verdict of `events`, which must fail at event `index` (0-based): its message
function failedAt(hand, events, index) {
  const verdict = checkHand(events, { seqs: hand.seqs, handId: hand.handId });
  assert.equal(verdict.status, "failed", `${hand.handId}: ${verdict.message}`);
  assert.equal(verdict.event, index + 1, `${hand.handId}: ${verdict.message}`);
  assert.equal(verdict.seq, hand.seqs[index]);
  const where = `event ${index + 1} (seq ${hand.seqs[index]}), ${events[index].kind}: `;
  assert.ok(verdict.message.startsWith(where), verdict.message);
  return verdict.message.slice(where.length);
}

// each seat's concealed tiles (counts of kinds) just before event `index`, as the replay
// rebuilds them from the seed
function heldBefore(events, index) {
  const made = shuffleOf(fromHex(events.at(-1).seed), events[0].variant);
  const replay = new HandReplay(LAYOUTS[events[0].variant], made.wall, made.wildDice, events[0].dealer, events.at(-1));
  for (const e of events.slice(1, index)) replay.feed(e);
  return replay.tiles.hands;
}

test("bots' hands of every variant verify from a seat's view, every event followed", () => {
  for (const hand of HANDS) {
    const verdict = checkHand(hand.events, { seqs: hand.seqs, handId: hand.handId });
    assert.equal(verdict.status, "verified", `${hand.handId}: ${verdict.message}`);
    assert.equal(verdict.handId, hand.handId);
    assert.match(verdict.message, /^the seed matches the commitment, and the whole hand follows from its wall/);
    const shownDealt = hand.events.filter((e) => e.kind === "dealt" && e.tiles).reduce((n, e) => n + e.tiles.length, 0);
    assert.equal(verdict.dealt, shownDealt);
    assert.equal(verdict.draws, hand.events.filter((e) => e.kind === "drew" && e.tile).length);
  }
  assert.deepEqual(new Set(HANDS.map((h) => h.variant)), new Set(Object.keys(LAYOUTS)));
  const kinds = new Set(HANDS.flatMap((h) => h.events.flatMap((e) => [e.kind, e.meld, e.outcome])));
  for (const kind of [...FOLLOWED, "chow", "pung", "exposed_kong", "concealed_kong", "added_kong", "win", "draw", "escape"]) {
    assert.ok(kinds.has(kind), `no hand has ${kind}`);
  }
});

test("another seat's concealed kong is followed from the sets hand_ended shows", () => {
  const hand = HANDS.find((h) => h.events.some((e) => e.meld === "concealed_kong" && e.tiles === null));
  const at = hand.events.findIndex((e) => e.meld === "concealed_kong" && e.tiles === null);
  const seat = hand.events[at].seat;
  const events = clone(hand.events);
  const kong = events.at(-1).melds[seat].find((m) => m.meld === "concealed_kong");
  const was = kong.tiles[0];
  kong.tiles = kong.tiles.map(() => other(was));
  const message = failedAt(hand, events, at);
  assert.ok(message.startsWith(`seat ${seat}'s concealed kong `), message);
});

test("a changed discard fails at it: the seat does not hold that tile", () => {
  let changed = 0;
  for (const hand of HANDS) {
    const at = hand.events.map((e, i) => [e, i]).filter(([e]) => e.kind === "discarded" && e.seat !== hand.view).map(([, i]) => i);
    if (at.length < 3) continue;
    const index = at[2];
    const { seat } = hand.events[index];
    const held = heldBefore(hand.events, index)[seat];
    const instead = codeOf(held.findIndex((n, t) => t < 34 && n === 0));
    const events = clone(hand.events);
    events[index].tile = instead;
    const message = failedAt(hand, events, index);
    assert.ok(message.startsWith(`seat ${seat} discards ${instead}, which it does not hold (it holds `), message);
    changed += 1;
  }
  assert.ok(changed >= 5);
});

test("a changed own draw fails at it, naming the wall's tile", () => {
  for (const hand of HANDS) {
    const index = hand.events.findLastIndex((e) => e.kind === "drew" && e.tile);
    if (index < 0) continue;
    const was = hand.events[index].tile;
    const events = clone(hand.events);
    events[index].tile = other(was);
    const message = failedAt(hand, events, index);
    assert.ok(message.includes(`the seed gives ${was}, the transcript has ${other(was)}`), message);
    assert.ok(message.startsWith(`seat ${hand.view}'s draw `), message);
  }
});

test("another seat's changed revealed hand fails, though the view never saw it before the end", () => {
  for (const hand of HANDS) {
    const seat = (hand.view + 2) % 4;
    const events = clone(hand.events);
    const shown = events.at(-1).hands[seat];
    if (shown.length) shown[0] = other(shown[0]);
    else shown.push("1m");
    const message = failedAt(hand, events, events.length - 1);
    assert.ok(message.startsWith(`seat ${seat}'s revealed hand: the wall and the events leave it `), message);
  }
  // and a winner's hand as its won event shows it
  const hand = HANDS.find((h) => h.events.some((e) => e.kind === "won"));
  const index = hand.events.findIndex((e) => e.kind === "won");
  const events = clone(hand.events);
  events[index].hand = events[index].hand.slice(1);
  assert.match(failedAt(hand, events, index), /'s win's hand: the wall and the events leave it /);
});

test("a claim with tiles the claimer does not hold, or of a tile that is not the last discard, fails", () => {
  let pungs = 0;
  for (const hand of HANDS) {
    const index = hand.events.findIndex((e) => e.meld === "pung");
    if (index < 0) continue;
    const pung = hand.events[index];
    const held = heldBefore(hand.events, index);
    const tile = kindOf(pung.claimed);
    const seat = [0, 1, 2, 3].find((s) => s !== pung.seat && s !== pung.from_seat && held[s][tile] < 2);
    if (seat === undefined) continue;
    const moved = clone(hand.events);
    moved[index].seat = seat;
    const message = failedAt(hand, moved, index);
    assert.ok(message.startsWith(`seat ${seat}'s pung needs ${pung.claimed} ${pung.claimed} from the hand, but seat ${seat} holds `), message);

    const last = hand.events.slice(0, index).findLast((e) => e.kind === "discarded");
    const instead = codeOf((tile + 1) % 27);
    const wrong = clone(hand.events);
    Object.assign(wrong[index], { claimed: instead, tiles: [instead, instead, instead] });
    assert.ok(failedAt(hand, wrong, index).includes(
      `claims ${instead} from seat ${pung.from_seat}, but the last discard is seat ${last.seat}'s ${last.tile}`));
    pungs += 1;
  }
  assert.ok(pungs >= 3);

  // a chow of a run the claimer does not hold
  let chows = 0;
  for (const hand of HANDS) {
    for (const [index, chow] of hand.events.map((e, i) => [i, e]).filter(([, e]) => e.meld === "chow")) {
      const claimed = kindOf(chow.claimed);
      const wild = hand.events.find((e) => e.kind === "wild_turned");
      const plays = new Set(wild ? [kindOf(wild.indicator), kindOf(wild.wild), 31] : []);
      const held = heldBefore(hand.events, index)[chow.seat];
      const suit = Math.floor(claimed / 9) * 9;
      if (claimed >= 27 || plays.has(claimed)) continue;
      for (let low = Math.max(claimed - 2, suit); low <= Math.min(claimed, suit + 6); low++) {
        const run = [low, low + 1, low + 2].filter((t) => t !== claimed);
        if (run.length !== 2 || run.some((t) => plays.has(t)) || run.every((t) => held[t])) continue;
        const changed = clone(hand.events);
        changed[index].tiles = [...run, claimed].sort((a, b) => a - b).map(codeOf);
        const message = failedAt(hand, changed, index);
        assert.ok(message.startsWith(`seat ${chow.seat}'s chow needs `) && message.includes(`but seat ${chow.seat} holds `), message);
        chows += 1;
        break;
      }
    }
  }
  assert.ok(chows >= 3);
});

test("any removed event that moves a tile or the turn fails, there or later", () => {
  const removed = new Set();
  for (const hand of HANDS) {
    for (let index = 1; index < hand.events.length - 1; index++) {
      const { kind } = hand.events[index];
      if (kind === "decided" || kind === "penalized") continue; // the score's, not checked
      const events = hand.events.filter((_, i) => i !== index);
      const verdict = checkHand(events);
      assert.equal(verdict.status, "failed", `${hand.handId} without event ${index + 1} (${kind}): ${verdict.message}`);
      assert.ok(verdict.event >= index + 1, verdict.message);
      removed.add(kind);
    }
    assert.equal(checkHand(hand.events.slice(1)).status, "incomplete");
    assert.equal(checkHand(hand.events.slice(0, -1)).status, "incomplete");
  }
  for (const kind of FOLLOWED) assert.ok(removed.has(kind), `no ${kind} removed`);
});

test("two discards swapped fail: in place (out of turn), or their tiles", () => {
  let swapped = 0;
  for (const hand of HANDS) {
    const at = hand.events.map((e, i) => [e, i]).filter(([e]) => e.kind === "discarded").map(([, i]) => i);
    for (let k = 0; k + 1 < at.length && k < 8; k++) {
      const [a, b] = [at[k], at[k + 1]];
      const [ea, eb] = [hand.events[a], hand.events[b]];
      if (ea.seat === eb.seat || ea.tile === eb.tile) continue;
      const moved = clone(hand.events);
      [moved[a], moved[b]] = [moved[b], moved[a]];
      const message = failedAt(hand, moved, a);
      assert.ok(message.startsWith(`seat ${eb.seat} discards ${eb.tile} out of turn, while `), message);
      const tiles = clone(hand.events);
      [tiles[a].tile, tiles[b].tile] = [eb.tile, ea.tile];
      const verdict = checkHand(tiles);
      assert.equal(verdict.status, "failed", verdict.message);
      assert.ok(verdict.event >= a + 1);
      swapped += 1;
    }
  }
  assert.ok(swapped >= 10);
});

test("a hand cut short is checked as far as it goes over a known wall", () => {
  const hand = HANDS.find((h) => h.variant === "lishui");
  const made = shuffleOf(fromHex(hand.events.at(-1).seed), "lishui");
  const half = hand.events.slice(0, hand.events.length >> 1);
  const verdict = checkHand(half, { shuffle: made });
  assert.equal(verdict.status, "incomplete");
  assert.match(verdict.message, /fit the wall as far as they go$/);
  assert.equal(checkHand(half).status, "incomplete"); // no seed: nothing to follow
  const index = half.findLastIndex((e) => e.kind === "drew" && e.tile);
  half[index].tile = other(half[index].tile);
  const failed = checkHand(half, { shuffle: made });
  assert.deepEqual([failed.status, failed.event, failed.what], ["failed", index + 1, "draw"]);
});
