// A recorded hand as a list of steps for the replay viewer: the state of the table after each
// step, rebuilt from the replay's event payloads (GET /hands/{id}/replay). No DOM here.
//
// What a seat may not see stays hidden: a player's replay has null tiles for the other seats'
// deals, draws and concealed kongs (the server blanks them), so those seats show counts of
// face-down tiles until the end of the hand reveals them. An administrator's replay has every
// tile. The deal (hand_started and the dealt events) is one step; every later event is one.

function removeOne(tiles, code) {
  const i = tiles.indexOf(code);
  if (i >= 0) tiles.splice(i, 1);
  return i >= 0;
}

function emptySeat(seat) {
  return { seat, hand: null, count: 0, melds: [], discards: [], flowers: [], decision: null,
    escaped: false, drawn: null };
}

export function emptyState() {
  return { variant: null, dealer: 0, dice: null, wall: 0, wild: null, turn: null,
    seats: [0, 1, 2, 3].map(emptySeat), lastDiscard: null, penalties: [], wins: [],
    ended: null, pendingFlower: null, actor: null };
}

function take(seat, tiles) {
  if (seat.hand) for (const tile of tiles) removeOne(seat.hand, tile);
  seat.count = Math.max(0, seat.count - tiles.length);
}

function melded(s, e) {
  const seat = s.seats[e.seat];
  const tiles = e.tiles ? [...e.tiles] : null;
  if (e.meld === "added_kong") {
    const pung = seat.melds.find((m) => m.kind === "pung" && tiles && m.tiles &&
      m.tiles.every((x) => tiles.includes(x)));
    if (pung) {
      pung.kind = "added_kong";
      pung.tiles = tiles;
      pung.added = e.claimed;
    } else {
      seat.melds.push({ kind: e.meld, tiles, claimed: e.claimed, from_seat: e.from_seat });
    }
    const added = e.claimed ?? (tiles ? tiles[tiles.length - 1] : null);
    if (added) take(seat, [added]);
    else seat.count = Math.max(0, seat.count - 1);
  } else {
    seat.melds.push({ kind: e.meld, tiles, claimed: e.claimed, from_seat: e.from_seat });
    if (tiles) {
      const fromHand = [...tiles];
      if (e.claimed) removeOne(fromHand, e.claimed);
      take(seat, fromHand);
    } else {
      seat.count = Math.max(0, seat.count - 4); // another seat's 暗杠: four tiles face down
    }
  }
  if (e.from_seat !== null && e.from_seat !== undefined && e.claimed) {
    const pile = s.seats[e.from_seat].discards;
    for (let i = pile.length - 1; i >= 0; i--) {
      if (pile[i].tile === e.claimed && !pile[i].claimed) {
        pile[i].claimed = true;
        break;
      }
    }
    s.lastDiscard = null;
  }
  s.turn = e.seat;
}

// Apply one event payload to `s` in place.
export function apply(s, e) {
  const flower = s.pendingFlower;
  s.pendingFlower = null;
  if (flower && !(e.kind === "drew" && e.seat === flower.seat && e.from_tail)) {
    // no replacement followed: the flower was turned up from the wall (福州 开金), not
    // taken from the hand
    const seat = s.seats[flower.seat];
    seat.count += 1;
    if (flower.removed && seat.hand) seat.hand.push(flower.tile);
    s.wall -= 1;
  }
  s.actor = "seat" in e ? e.seat : null;
  for (const seat of s.seats) seat.drawn = null;
  switch (e.kind) {
    case "hand_started":
      Object.assign(s, emptyState(), { variant: e.variant, dealer: e.dealer, dice: e.dice,
        wall: e.wall_size, actor: null });
      break;
    case "dealt": {
      const seat = s.seats[e.seat];
      seat.count = e.count;
      seat.hand = e.tiles ? [...e.tiles] : null;
      s.wall -= e.count;
      break;
    }
    case "wild_turned":
      s.wild = { indicator: e.indicator, wild: e.wild, substitute: e.substitute };
      if (e.indicator) s.wall -= 1;
      break;
    case "decided":
      s.seats[e.seat].decision = e.choice;
      break;
    case "flowered": {
      const seat = s.seats[e.seat];
      seat.flowers.push(e.tile);
      const removed = Boolean(seat.hand && seat.hand.includes(e.tile));
      take(seat, [e.tile]);
      s.pendingFlower = { seat: e.seat, tile: e.tile, removed };
      break;
    }
    case "drew": {
      const seat = s.seats[e.seat];
      seat.count += 1;
      if (seat.hand && e.tile) seat.hand.push(e.tile);
      seat.drawn = e.tile ?? "hidden";
      s.turn = e.seat;
      s.wall -= 1;
      s.lastDiscard = null;
      break;
    }
    case "discarded": {
      const seat = s.seats[e.seat];
      take(seat, [e.tile]);
      seat.discards.push({ tile: e.tile, claimed: false });
      s.lastDiscard = { seat: e.seat, tile: e.tile };
      s.turn = e.seat;
      break;
    }
    case "melded":
      melded(s, e);
      break;
    case "penalized":
      s.penalties.push({ seat: e.seat, reason: e.reason, tile: e.tile });
      break;
    case "gold_robbed": {
      const seat = s.seats[e.seat];
      if (seat.hand) seat.hand.push(e.tile);
      seat.count += 1;
      break;
    }
    case "won":
      s.wins.push({ ...e });
      s.seats[e.seat].hand = [...e.hand];
      s.seats[e.seat].count = e.hand.length;
      break;
    case "escaped":
      s.seats[e.seat].escaped = true;
      break;
    case "hand_ended":
      s.ended = { ...e };
      e.hands.forEach((tiles, i) => {
        s.seats[i].hand = [...tiles];
        s.seats[i].count = tiles.length;
      });
      e.melds.forEach((melds, i) => {
        s.seats[i].melds = melds.map((m) => ({ kind: m.meld, tiles: [...m.tiles], claimed: m.claimed,
          from_seat: m.from_seat }));
      });
      e.flowers.forEach((flowers, i) => { s.seats[i].flowers = [...flowers]; });
      s.turn = null;
      break;
    default:
      break;
  }
  return s;
}

// The steps of a replay: [{events: [...], state}] where `state` is the table after them.
export function buildSteps(events) {
  const steps = [];
  const state = emptyState();
  let i = 0;
  // the deal is one step: hand_started and every dealt event after it
  const opening = [];
  while (i < events.length && (events[i].kind === "hand_started" || events[i].kind === "dealt")) {
    apply(state, events[i]);
    opening.push(events[i]);
    i += 1;
  }
  if (opening.length) steps.push({ events: opening, state: structuredClone(state) });
  for (; i < events.length; i++) {
    apply(state, events[i]);
    steps.push({ events: [events[i]], state: structuredClone(state) });
  }
  return steps;
}
