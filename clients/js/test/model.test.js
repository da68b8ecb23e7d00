// The table model (src/model.js), the one reducer of live play and replays, and the replay's
// steps over it (src/replay.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { applyEvent, emptyHand, fromSnapshot, silverMoved } from "../src/model.js";
import { buildSteps } from "../src/replay.js";
import { transcriptEvents } from "./transcript.js";

const sorted = (tiles) => [...tiles].sort();

function handAfter(events) {
  const h = emptyHand();
  for (const e of events) applyEvent(h, e, "T1-1");
  return h;
}

test("the documented hand: the deal, a chow of a discard, a win, every hand revealed", () => {
  const events = transcriptEvents();
  const dealt = handAfter(events.slice(0, 6)); // hand_started .. wild_turned
  assert.equal(dealt.handId, "T1-1");
  assert.equal(dealt.wall, 136 - 14 - 3 * 13 - 1);
  assert.deepEqual(dealt.seats.map((s) => s.count), [14, 13, 13, 13]);
  assert.deepEqual(dealt.seats.slice(1).map((s) => s.hand), [null, null, null]);
  assert.equal(dealt.wild.wild, "8s");

  const chowed = handAfter(events.slice(0, 14)); // up to seat 0's chow of seat 3's 3m
  const me = chowed.seats[0];
  assert.deepEqual(me.melds, [{ kind: "chow", tiles: ["2m", "3m", "4m"], claimed: "3m", from_seat: 3 }]);
  assert.ok(!me.hand.includes("2m") && !me.hand.includes("4m"));
  assert.equal(me.count, 14 - 1 - 2);
  assert.deepEqual(chowed.seats[3].discards, [{ tile: "3m", claimed: true }]);
  assert.deepEqual(chowed.river.at(-1), { seat: 3, tile: "3m", claimed: true });
  assert.equal(chowed.lastDiscard, null);
  assert.equal(chowed.turn, 0);

  const ended = handAfter(events);
  const last = events.at(-1);
  assert.equal(ended.ended.outcome, "win");
  assert.equal(ended.wins[0].seat, 0);
  assert.equal(ended.turn, null);
  ended.seats.forEach((s, i) => {
    assert.deepEqual(sorted(s.hand), sorted(last.hands[i]));
    assert.equal(s.count, last.hands[i].length);
  });
  assert.equal(silverMoved(last, 0, 10), last.silver ? last.silver[0] : last.net[0] * 10 + last.house_silver[0]);
});

function started() {
  const h = emptyHand();
  applyEvent(h, { kind: "hand_started", variant: "fuzhou", dealer: 0, dice: [1, 1], wall_size: 144 });
  applyEvent(h, { kind: "dealt", seat: 0, count: 4, tiles: ["5m", "5m", "5m", "1f"] });
  applyEvent(h, { kind: "dealt", seat: 1, count: 4, tiles: null });
  return h;
}

test("another seat's concealed kong is four face-down tiles; an added kong turns the pung", () => {
  const h = started();
  applyEvent(h, { kind: "melded", seat: 1, meld: "concealed_kong", tiles: null, claimed: null, from_seat: null });
  assert.equal(h.seats[1].count, 0);
  assert.deepEqual(h.seats[1].melds[0].tiles, null);

  applyEvent(h, { kind: "discarded", seat: 1, tile: "5m", wild: false });
  applyEvent(h, { kind: "melded", seat: 0, meld: "pung", tiles: ["5m", "5m", "5m"], claimed: "5m", from_seat: 1 });
  assert.deepEqual(h.seats[0].hand, ["5m", "1f"]);
  applyEvent(h, { kind: "melded", seat: 0, meld: "added_kong", tiles: ["5m", "5m", "5m", "5m"], claimed: "5m", from_seat: null });
  assert.equal(h.seats[0].melds.length, 1);
  assert.equal(h.seats[0].melds[0].kind, "added_kong");
  assert.equal(h.seats[0].melds[0].added, "5m");
  assert.deepEqual(h.seats[0].hand, ["1f"]);
  assert.equal(h.seats[0].count, 1);
});

test("a flower from the hand is replaced from the tail; one turned up from the wall is not", () => {
  const h = started();
  const wall = h.wall;
  applyEvent(h, { kind: "flowered", seat: 0, tile: "1f" });
  applyEvent(h, { kind: "drew", seat: 0, from_tail: true, tile: "9p" });
  assert.deepEqual(sorted(h.seats[0].hand), ["5m", "5m", "5m", "9p"]);
  assert.deepEqual(h.seats[0].flowers, ["1f"]);
  assert.equal(h.wall, wall - 1);
  assert.equal(h.drawn, "9p");

  // 福州 开金: a flower turned up from the wall, announced before the wild; no replacement
  applyEvent(h, { kind: "flowered", seat: 0, tile: "2f" });
  applyEvent(h, { kind: "wild_turned", dice: null, indicator: "3s", wild: "3s", substitute: null });
  assert.equal(h.seats[0].count, 4);
  assert.deepEqual(h.seats[0].flowers, ["1f", "2f"]);
  assert.equal(h.wall, wall - 3); // the flower and the indicator came off the wall
});

test("an event kind this version does not know changes nothing", () => {
  const h = started();
  const before = structuredClone(h);
  applyEvent(h, { kind: "fireworks", seat: 2, colour: "red" });
  assert.deepEqual(h, before);
});

test("a snapshot replaces what was held", () => {
  const view = {
    variant: "lishui", seat: 0, dealer: 0, dice: [3, 4], wall_remaining: 82, wall_live: 82,
    wild: { indicator: "8s", wild: "8s", substitute: "5z" }, phase: "turn", turn: 0, drawn: null,
    seats: [
      { seat: 0, hand_count: 11, hand: ["6m", "8m", "1p", "2p", "5p", "6p", "7p", "9p", "8s", "8s", "6z"],
        melds: [{ kind: "chow", tiles: ["2m", "3m", "4m"], claimed: "3m", from_seat: 3 }],
        discards: ["1s"], flowers: [], decision: null },
      { seat: 1, hand_count: 13, hand: null, melds: [], discards: ["9m"], flowers: [], decision: null },
      { seat: 2, hand_count: 13, hand: null, melds: [], discards: ["5m"], flowers: [], decision: null },
      { seat: 3, hand_count: 13, hand: null, melds: [], discards: [], flowers: [], decision: null },
    ],
    river: [{ seat: 0, tile: "1s", claimed: false }, { seat: 1, tile: "9m", claimed: false },
      { seat: 2, tile: "5m", claimed: false }, { seat: 3, tile: "3m", claimed: true }],
    penalties: [], legal_actions: [], outcome: null, net: null, commitment: null, seed: null,
  };
  const h = fromSnapshot(view, "T1-1");
  assert.equal(h.wall, 82);
  assert.deepEqual(h.seats.map((s) => s.count), [11, 13, 13, 13]);
  assert.deepEqual(h.seats[3].discards, [{ tile: "3m", claimed: true }]);
  assert.equal(h.lastDiscard, null); // the newest discard was claimed
  assert.equal(h.seats[0].melds[0].claimed, "3m");
  view.seats[0].hand.push("9z"); // the state is a copy
  assert.equal(h.seats[0].hand.length, 11);
});

test("replay steps: the deal is one step, then one per event, each with its own state", () => {
  const events = transcriptEvents();
  const steps = buildSteps(events);
  assert.equal(steps.length, 1 + events.length - 5); // the deal (5 events), then one each
  assert.deepEqual(steps[0].events.map((e) => e.kind), ["hand_started", "dealt", "dealt", "dealt", "dealt"]);
  assert.equal(steps[0].actor, null);
  assert.equal(steps[0].state.wall, 136 - 53);
  const drew = steps.find((s) => s.events[0].kind === "drew");
  assert.equal(drew.drawn, "hidden"); // another seat's draw in seat 0's replay
  assert.equal(drew.actor, drew.events[0].seat);
  assert.equal(steps[1].drawn, null);
  const final = steps.at(-1).state;
  assert.ok(final.ended && final.seats.every((s) => s.hand !== null));
  assert.equal(steps[0].state.ended, null); // steps share nothing
  // the replay is the live reducer's state, step by step
  assert.deepEqual(final, { ...handAfter(events), handId: null });
});
