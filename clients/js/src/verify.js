// Verifying a hand, with no dependency: the same check as `python -m app.rules.verify`
// (app/rules/verify.py; the procedure is docs/protocol.md, "Verifying a hand"), giving the
// same verdict and the same first mismatch. The seed the hand revealed (`hand_ended.seed`)
// must hash to the commitment published with `hand_started` (SHA-256, written out below:
// `crypto.subtle` is missing on a plain-http page that is not localhost, and is
// asynchronous); the wall and dice it makes (CPython's Mersenne Twister seeded with the seed
// as a big-endian integer, then `getrandbits` alone) must give the dice, and the whole hand
// replayed over that wall (verify_play.js over verify_tiles.js's count) must be the one the
// transcript records: every seat's deal and draws, each discard, claim, kong and win, and
// the hands `hand_ended` reveals. No DOM here: `HandProof` keeps a hand's events as the
// table page receives them.

import { HandReplay } from "./verify_play.js";
import {
  LAYOUTS, Mismatch, Unfollowable, pyEq, pyList, pyRepr, pyStr, sameList, whatOf,
} from "./verify_tiles.js";

export { FOLLOWED, HandReplay } from "./verify_play.js";
export { LAYOUTS, codeOf, dealtPositions, kindOf, wildOf } from "./verify_tiles.js";

// --- SHA-256 ---------------------------------------------------------------------------

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const ror = (x, n) => (x >>> n) | (x << (32 - n));

// The SHA-256 of `bytes` (a Uint8Array), as lowercase hex.
export function sha256Hex(bytes) {
  const length = bytes.length;
  const size = ((length + 9 + 63) >> 6) << 6; // the message, 0x80, its length in 8 bytes
  const m = new Uint8Array(size);
  m.set(bytes);
  m[length] = 0x80;
  const view = new DataView(m.buffer);
  view.setUint32(size - 8, Math.floor(length / 0x20000000));
  view.setUint32(size - 4, (length * 8) >>> 0);
  const hash = [...H0];
  const w = new Uint32Array(64);
  for (let offset = 0; offset < size; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, h].forEach((x, i) => { hash[i] = (hash[i] + x) >>> 0; });
  }
  return hash.map((x) => x.toString(16).padStart(8, "0")).join("");
}

// Hex to bytes as Python's `bytes.fromhex` reads it (either case; ASCII whitespace
// between bytes ignored); null when it is not whole bytes of hex.
export function fromHex(hex) {
  if (typeof hex !== "string") return null;
  const pairs = hex.match(/^[ \t\n\r\v\f]*((?:[0-9a-fA-F]{2}[ \t\n\r\v\f]*)*)$/);
  if (!pairs) return null;
  const digits = pairs[1].replace(/[ \t\n\r\v\f]/g, "");
  return Uint8Array.from(digits.match(/../g) ?? [], (x) => parseInt(x, 16));
}

// --- CPython's random.Random(int), getrandbits only ---------------------------------------

const N = 624;

// The key `random.Random(n)` hands to init_by_array: n's 32-bit words, least significant
// first, as many as n needs (at least one), where n is the seed's bytes read big-endian.
export function seedKey(bytes) {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  const key = [];
  for (let end = bytes.length; end > start; end -= 4) {
    let word = 0;
    for (let i = Math.max(start, end - 4); i < end; i++) word = word * 256 + bytes[i];
    key.push(word >>> 0);
  }
  return key.length ? key : [0];
}

// MT19937 as CPython seeds it (init_by_array) and draws from it (genrand_uint32).
export class Twister {
  constructor(key) {
    const mt = new Uint32Array(N);
    mt[0] = 19650218;
    for (let i = 1; i < N; i++) {
      const s = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, s) + i) >>> 0;
    }
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      const s = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (((mt[i] ^ Math.imul(s, 1664525)) >>> 0) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const s = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (((mt[i] ^ Math.imul(s, 1566083941)) >>> 0) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
    this.mt = mt;
    this.index = N;
  }

  next32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + 397) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  // getrandbits(k) for 1 <= k <= 32: the top k bits of one output
  getrandbits(k) {
    return this.next32() >>> (32 - k);
  }

  // a uniform int in [0, n): k = bit length of n bits, again while they make n or more
  below(n) {
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }
}

// --- from the seed to the wall ------------------------------------------------------------

// What a seed makes in `variant`: {dice, wall (kinds, index 0 drawn first; the last tile is
// the tail), wildDice}.
export function shuffleOf(seedBytes, variant) {
  const layout = LAYOUTS[variant];
  const rng = new Twister(seedKey(seedBytes));
  const dice = [1 + rng.below(6), 1 + rng.below(6)];
  const wall = [];
  for (let kind = 0; kind < 34; kind++) wall.push(kind, kind, kind, kind);
  if (layout.flowers) for (let kind = 34; kind < 42; kind++) wall.push(kind);
  for (let i = wall.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [wall[i], wall[j]] = [wall[j], wall[i]];
  }
  const wildDice = [1 + rng.below(6), 1 + rng.below(6)];
  return { dice, wall, wildDice };
}

// --- checking a hand ----------------------------------------------------------------------

// Check one hand from the event payloads a seat received, in order (`hand_started` first,
// `hand_ended` last): the seed against the commitment, the dice, then the whole hand
// replayed over the seed's wall (verify_play.js): every deal, draw, flower, wild, discard,
// claim, kong and win, and the hands `hand_ended` reveals. The verdict: {status: verified |
// failed | test_mode | incomplete, what (failed: the check, for a client's own sentence:
// commitment, seed, dice, wall, deal, draw, indicator, flowers, play, end), message (the
// Python verifier's sentence: where it failed and what the wall made instead), handId,
// dealt and draws (the tiles shown and compared), event (failed, or incomplete partway: the
// event's place in the hand, 1 = hand_started) and seq}. Options: `shuffle` replaces the
// seed's wall (a test's doctored wall; the commitment is still checked), and with it a hand
// that has not ended is checked as far as it goes; `seqs`, each event's seq; `handId`.
export function checkHand(events, { shuffle = null, handId = null, seqs = null } = {}) {
  const verdict = (status, message, more = {}) => ({
    status, what: null, message, handId, dealt: 0, draws: 0, event: null, seq: null, ...more,
  });
  if (!events || !events.length || events[0].kind !== "hand_started") {
    return verdict("incomplete", "the transcript does not start with the hand's hand_started "
      + "(resumed from a snapshot?): its deal cannot be checked");
  }
  const started = events[0];
  const promised = started.commitment ?? null;
  if (promised === null) {
    return verdict("test_mode", "dealt from a prepared wall (test mode): no seed made it, nothing to verify");
  }
  const found = events.findIndex((e) => e.kind === "hand_ended");
  const end = found < 0 ? null : found;
  if (end === null && shuffle === null) {
    return verdict("incomplete", "the hand has not ended: its seed is not revealed yet");
  }
  let at = end ?? 0;
  let replay = null;
  try {
    if (end !== null) {
      const seed = revealedSeed(events[end], promised);
      shuffle = shuffle || shuffleOf(seed, layoutName(started.variant));
    }
    at = 0;
    const layout = checkStart(started, shuffle);
    replay = new HandReplay(layout, shuffle.wall, shuffle.wildDice, Number(started.dealer),
      end === null ? null : events[end]);
    for (at = 1; at < events.length; at++) {
      if (end !== null && at > end) throw new Mismatch("an event after hand_ended", "end");
      replay.feed(events[at]);
    }
  } catch (err) {
    const seq = seqs && at < seqs.length ? seqs[at] : null;
    if (err instanceof Mismatch) {
      return verdict("failed", `${where(events, at, seqs)}: ${err.message}`, {
        what: err.what ?? whatOf(events[at].kind), event: at + 1, seq });
    }
    if (err instanceof Unfollowable) {
      return verdict("incomplete", `${err.message}: checked as far as ${where(events, at, seqs)}`,
        { dealt: replay.comparedDealt, draws: replay.comparedDraws, event: at + 1 });
    }
    throw err;
  }
  const counts = { dealt: replay.comparedDealt, draws: replay.comparedDraws };
  if (end === null) {
    return verdict("incomplete", `the hand has not ended: its ${events.length} events fit the `
      + "wall as far as they go", counts);
  }
  return verdict("verified", "the seed matches the commitment, and the whole hand follows from "
    + `its wall: the dice, the deal, ${events.length - 2} events and every revealed hand `
    + `(${counts.dealt} dealt tiles and ${counts.draws} draws shown here compared)`, counts);
}

function revealedSeed(ended, promised) {
  const seedHex = ended.seed;
  if (typeof seedHex !== "string") {
    throw new Mismatch("hand_ended reveals no seed, though hand_started committed to one", "seed");
  }
  const seed = fromHex(seedHex);
  if (!seed) throw new Mismatch(`the revealed seed is not hex: ${pyRepr(seedHex)}`, "seed");
  const hash = sha256Hex(seed);
  if (hash !== promised) {
    throw new Mismatch(`the seed does not match the commitment: sha256(seed) = ${hash}, `
      + `hand_started promised ${pyStr(promised)}`, "commitment");
  }
  return seed;
}

function layoutName(variant) {
  if (typeof variant !== "string" || !Object.hasOwn(LAYOUTS, variant)) {
    throw new Mismatch(`unknown variant ${pyRepr(variant)}`, "wall");
  }
  return variant;
}

// `hand_started` against the seed: the variant, the dice, the wall's size, a dealer
function checkStart(started, made) {
  const layout = LAYOUTS[layoutName(started.variant)];
  if (!sameList(pyList(started.dice), [...made.dice])) {
    throw new Mismatch(`the dice: the seed rolls ${pyRepr([...made.dice])}, hand_started shows `
      + `${pyStr(started.dice)}`, "dice");
  }
  if (!pyEq(started.wall_size, made.wall.length)) {
    throw new Mismatch(`the wall has ${made.wall.length} tiles, hand_started says `
      + `${pyStr(started.wall_size)}`, "wall");
  }
  if (![0, 1, 2, 3].some((seat) => pyEq(seat, started.dealer))) {
    throw new Mismatch(`hand_started names no dealer: ${pyRepr(started.dealer)}`, "wall");
  }
  return layout;
}

// event `at` named for a reader: its place in the hand (1 = hand_started), its seq when the
// transcript has one, and its kind
function where(events, at, seqs) {
  const seq = seqs && at < seqs.length ? seqs[at] : null;
  const kind = at < events.length ? events[at].kind : null;
  return `event ${at + 1}${seq === null || seq === undefined ? "" : ` (seq ${seq})`}, ${pyStr(kind)}`;
}

// --- reading transcripts ------------------------------------------------------------------

const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

// The events of each hand in `messages`, in order, by hand id: [{handId, events, seqs}].
// `messages` are server messages (`event` messages; others are skipped), bare event payloads
// (a replay's `events`), or a replay's answer (an object with `hand_id` and `events`). An
// event message whose seq is not above the last one of its hand is a copy resent after a
// reconnect and is dropped, as the connection drops it (docs/protocol.md, "resume").
export function readHands(messages) {
  const hands = [];
  const byId = new Map();
  for (const message of messages) {
    if (!isObject(message)) continue;
    if (Array.isArray(message.events)) { // GET /hands/{id}/replay
      hands.push(...readHands(message.events.map((event) =>
        ({ type: "event", hand_id: message.hand_id ?? null, event }))));
      continue;
    }
    let seq = null;
    let handId;
    let payload;
    if (message.type === "event" && isObject(message.event)) {
      handId = message.hand_id ?? null;
      payload = message.event;
      seq = Number.isInteger(message.seq) ? message.seq : null;
    } else if (message.type === "snapshot") {
      handId = message.hand_id ?? null; // a hand joined midway
      payload = null;
    } else if (Object.hasOwn(message, "kind")) {
      handId = null;
      payload = message;
    } else {
      continue;
    }
    if (payload !== null && payload.kind === "hand_started" && handId === null) {
      byId.delete(null); // bare payloads: each hand_started starts a hand
    }
    let hand = byId.get(handId);
    if (!hand) {
      hand = { handId, events: [], seqs: [] };
      byId.set(handId, hand);
      hands.push(hand);
    }
    if (payload === null) continue;
    const last = hand.seqs.findLast((s) => s !== null) ?? null;
    if (seq !== null && last !== null && seq <= last) continue; // a duplicate
    hand.events.push(payload);
    hand.seqs.push(seq);
  }
  return hands;
}

// `checkHand` for every hand of a transcript (what `python -m app.rules.verify` prints).
export function checkTranscript(messages) {
  return readHands(messages).map((hand) =>
    checkHand(hand.events, { handId: hand.handId, seqs: hand.seqs }));
}

// JSON lines, a JSON array of messages, or one JSON object (a replay's answer).
export function parseTranscript(text) {
  const stripped = text.trim();
  if (!stripped) return [];
  let whole;
  try {
    whole = JSON.parse(stripped);
  } catch {
    return stripped.split(/\r?\n/).filter((line) => line.trim()).map((line) => JSON.parse(line));
  }
  return Array.isArray(whole) ? whole : [whole];
}

// The events of the hand in play as the table page receives them, for the check at its
// end. A page that joined the hand from a snapshot has not seen the deal: it can still
// check the revealed seed against the snapshot's commitment (`partial`).
export class HandProof {
  constructor() {
    this.events = null;
    this.commitment = null;
  }

  event(e) {
    if (e.kind === "hand_started") {
      this.events = [e];
      this.commitment = e.commitment ?? null;
    } else if (this.events) {
      this.events.push(e);
    }
  }

  snapshot(view) {
    this.events = null;
    this.commitment = view.commitment ?? null;
  }

  // the verdict once `ended` (the hand_ended payload) has come
  verdict(ended) {
    if (this.events && this.events[0].kind === "hand_started") {
      const events = this.events[this.events.length - 1] === ended ? this.events : [...this.events, ended];
      return { ...checkHand(events), seed: ended.seed ?? null, commitment: this.commitment };
    }
    const base = { handId: null, dealt: 0, draws: 0, event: null, seq: null, seed: ended.seed ?? null,
      commitment: this.commitment };
    if (this.commitment === null) return { ...base, status: "test_mode", what: null, message: "test mode" };
    const seed = fromHex(ended.seed);
    if (!seed) return { ...base, status: "failed", what: "seed", message: "no seed revealed" };
    if (sha256Hex(seed) !== this.commitment) return { ...base, status: "failed", what: "commitment", message: "the seed does not match the commitment" };
    return { ...base, status: "partial", what: null, message: "the seed matches the commitment; the deal was not seen here" };
  }
}
