// The table model: a hand as one seat (or a spectator, or an administrator's replay) sees it,
// rebuilt from the protocol's event payloads or a snapshot. ONE reducer, shared by live play
// (the browser's table page, a bot) and the replay viewer (replay.js: its steps are this
// reducer's state after each event). No DOM and no I/O: `applyEvent` and `fromSnapshot` only
// change plain objects, so a view can redraw from them and a test can compare them.
//
// What a seat may not see stays hidden: another seat's deal, draws and concealed kongs come
// with null tiles, so those seats hold a `count` of face-down tiles and `hand: null` until
// `won` (the winner's hand) or `hand_ended` (every hand) reveals them. Fed an administrator's
// replay (every tile), every seat's `hand` is known from the deal.
//
// An event kind this version does not know changes nothing (docs/protocol.md,
// "Compatibility": the server may add kinds within a version).

function emptySeat(seat) {
  return { seat, hand: null, count: 0, melds: [], discards: [], flowers: [], decision: null,
    escaped: false };
}

// The state before any event: `applyEvent` of `hand_started` resets it to this too.
export function emptyHand() {
  return {
    handId: null, variant: null, dealer: 0, dice: null, wall: 0, wild: null,
    seats: [0, 1, 2, 3].map(emptySeat), drawn: null, turn: null, river: [], penalties: [],
    wins: [], drawnHand: false, ended: null, lastDiscard: null, pendingFlower: null,
  };
}

// Remove one `code` from `tiles` (in place); whether there was one.
export function removeOne(tiles, code) {
  const i = tiles.indexOf(code);
  if (i >= 0) tiles.splice(i, 1);
  return i >= 0;
}

// The state a snapshot's `view` shows (a `snapshot` message's view and hand_id): it
// replaces whatever was held.
export function fromSnapshot(view, handId = null) {
  const h = emptyHand();
  h.handId = handId;
  h.variant = view.variant;
  h.dealer = view.dealer;
  h.dice = view.dice;
  h.wall = view.wall_remaining;
  h.wild = view.wild;
  h.turn = view.turn;
  h.drawn = view.drawn;
  h.penalties = [...view.penalties];
  h.seats = view.seats.map((s) => ({
    seat: s.seat, hand: s.hand ? [...s.hand] : null, count: s.hand_count,
    melds: s.melds.map((m) => ({ ...m, tiles: m.tiles ? [...m.tiles] : null })),
    discards: [], flowers: [...s.flowers], decision: s.decision, escaped: false,
  }));
  for (const r of view.river) {
    h.seats[r.seat].discards.push({ tile: r.tile, claimed: r.claimed });
    h.river.push({ ...r });
  }
  const last = view.river[view.river.length - 1];
  if (last && !last.claimed) h.lastDiscard = { seat: last.seat, tile: last.tile };
  return h;
}

function takeFromHand(seat, tiles) {
  if (seat.hand) for (const tile of tiles) removeOne(seat.hand, tile);
  seat.count = Math.max(0, seat.count - tiles.length);
}

// 加杠: the seat's 碰 of those tiles becomes the kong, and the added tile (`claimed`) leaves
// the hand
function addedKong(seat, e, tiles) {
  const pung = seat.melds.find((m) => m.kind === "pung" && tiles && m.tiles &&
    m.tiles.every((x) => tiles.includes(x)));
  if (pung) {
    pung.kind = "added_kong";
    pung.tiles = tiles;
    pung.added = e.claimed ?? null;
  } else {
    seat.melds.push({ kind: e.meld, tiles, claimed: e.claimed ?? null, from_seat: null });
  }
  // an older server named no added tile: whichever of the kong's tiles is still in the hand
  const added = e.claimed ?? (tiles && seat.hand ? tiles.find((x) => seat.hand.includes(x)) : null);
  if (added) takeFromHand(seat, [added]);
  else seat.count = Math.max(0, seat.count - 1);
}

function melded(h, e) {
  const seat = h.seats[e.seat];
  const tiles = e.tiles ? [...e.tiles] : null;
  if (e.meld === "added_kong") {
    addedKong(seat, e, tiles);
  } else {
    seat.melds.push({ kind: e.meld, tiles, claimed: e.claimed ?? null, from_seat: e.from_seat ?? null });
    if (tiles) {
      const fromHand = [...tiles];
      if (e.claimed) removeOne(fromHand, e.claimed);
      takeFromHand(seat, fromHand);
    } else {
      seat.count = Math.max(0, seat.count - 4); // another seat's 暗杠: four tiles face down
    }
  }
  if (e.from_seat !== null && e.from_seat !== undefined && e.claimed) {
    const pile = h.seats[e.from_seat].discards;
    for (let i = pile.length - 1; i >= 0; i--) {
      if (pile[i].tile === e.claimed && !pile[i].claimed) {
        pile[i].claimed = true;
        break;
      }
    }
    for (let i = h.river.length - 1; i >= 0; i--) {
      if (h.river[i].seat === e.from_seat && h.river[i].tile === e.claimed) {
        h.river[i].claimed = true;
        break;
      }
    }
    h.lastDiscard = null;
  }
  h.turn = e.seat;
  h.drawn = null;
}

// A flower is laid out, then its replacement drawn from the tail. When no replacement
// follows, the flower was turned up from the wall (福州 开金), not taken from the hand: undo.
function settleFlower(h, e) {
  const flower = h.pendingFlower;
  h.pendingFlower = null;
  if (!flower || (e.kind === "drew" && e.seat === flower.seat && e.from_tail)) return;
  const seat = h.seats[flower.seat];
  seat.count += 1;
  if (flower.removed && seat.hand) seat.hand.push(flower.tile);
  h.wall -= 1;
}

// The hands, melds and flowers `hand_ended` reveals replace what was held.
function revealed(h, e) {
  h.ended = { ...e };
  e.hands.forEach((tiles, s) => {
    h.seats[s].hand = [...tiles];
    h.seats[s].count = tiles.length;
  });
  (e.melds || []).forEach((melds, s) => {
    h.seats[s].melds = melds.map((m) => ({ kind: m.meld, tiles: [...m.tiles], claimed: m.claimed,
      from_seat: m.from_seat }));
  });
  (e.flowers || []).forEach((flowers, s) => { h.seats[s].flowers = [...flowers]; });
  h.turn = null;
}

// Apply one event payload (a message's `event`) to the hand `h`, in place, and return it.
// `handId` (the message's hand_id) is kept from `hand_started`.
export function applyEvent(h, e, handId = null) {
  settleFlower(h, e);
  switch (e.kind) {
    case "hand_started":
      Object.assign(h, emptyHand(), { handId, variant: e.variant, dealer: e.dealer, dice: e.dice,
        wall: e.wall_size });
      break;
    case "dealt": {
      const seat = h.seats[e.seat];
      seat.count = e.count;
      seat.hand = e.tiles ? [...e.tiles] : null;
      h.wall -= e.count;
      break;
    }
    case "wild_turned":
      h.wild = { indicator: e.indicator, wild: e.wild, substitute: e.substitute };
      if (e.indicator) h.wall -= 1;
      break;
    case "decided":
      h.seats[e.seat].decision = e.choice;
      break;
    case "flowered": {
      const seat = h.seats[e.seat];
      seat.flowers.push(e.tile);
      const removed = Boolean(seat.hand && seat.hand.includes(e.tile));
      takeFromHand(seat, [e.tile]);
      h.pendingFlower = { seat: e.seat, tile: e.tile, removed };
      if (h.drawn === e.tile) h.drawn = null;
      break;
    }
    case "drew": {
      const seat = h.seats[e.seat];
      seat.count += 1;
      if (seat.hand && e.tile) seat.hand.push(e.tile);
      h.drawn = e.tile ?? null;
      h.turn = e.seat;
      h.wall -= 1;
      h.lastDiscard = null;
      break;
    }
    case "discarded": {
      const seat = h.seats[e.seat];
      takeFromHand(seat, [e.tile]);
      seat.discards.push({ tile: e.tile, claimed: false });
      h.river.push({ seat: e.seat, tile: e.tile, claimed: false });
      h.lastDiscard = { seat: e.seat, tile: e.tile };
      h.drawn = null;
      h.turn = e.seat;
      break;
    }
    case "melded":
      melded(h, e);
      break;
    case "penalized":
      h.penalties.push({ seat: e.seat, reason: e.reason, tile: e.tile ?? null });
      break;
    case "gold_robbed": {
      const seat = h.seats[e.seat];
      if (seat.hand) seat.hand.push(e.tile);
      seat.count += 1;
      break;
    }
    case "won":
      h.wins.push({ ...e });
      if (Array.isArray(e.hand)) { // the winner shows the hand
        h.seats[e.seat].hand = [...e.hand];
        h.seats[e.seat].count = e.hand.length;
      }
      break;
    case "exhaustive_draw":
      h.drawnHand = true;
      break;
    case "escaped":
      h.seats[e.seat].escaped = true;
      break;
    case "hand_ended":
      revealed(h, e);
      break;
    default:
      break;
  }
  return h;
}

// What one seat's silver moved by in a finished hand: the ledger's amount the server sends
// (`silver`: the balance floor may have made it less), else points x stake plus the house
// reward (an older server).
export function silverMoved(ended, seat, stake) {
  if (Array.isArray(ended.silver)) return ended.silver[seat];
  return ended.net[seat] * stake + (ended.house_silver ? ended.house_silver[seat] : 0);
}
