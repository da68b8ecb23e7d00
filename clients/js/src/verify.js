// Verifying a hand in the browser, with no dependency: the same check as
// `python -m app.rules.verify` (app/rules/verify.py; the procedure is in docs/protocol.md,
// "Verifying a hand"). The seed the hand revealed (`hand_ended.seed`) must hash to the
// commitment published with `hand_started` (SHA-256, written out below: `crypto.subtle`
// is missing on a plain-http page that is not localhost, and is asynchronous), and the wall
// and dice it makes (CPython's Mersenne Twister seeded with the seed as a big-endian
// integer, then `getrandbits` alone) must give this seat's dealt tiles and every draw it saw.
// No DOM here: `HandProof` keeps a hand's events as the table page receives them.

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

// Lowercase hex to bytes; null when it is not whole bytes of hex.
export function fromHex(hex) {
  if (typeof hex !== "string" || !/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g), (x) => parseInt(x, 16));
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

const HONOURS_AND_FLOWERS = new Set(Array.from({ length: 15 }, (_, i) => 27 + i));
// each variant: tiles dealt per seat (the dealer one more), 144 tiles (with the 8 flowers),
// where the wild's indicator is turned, and the kinds 开金 skips (福州)
export const LAYOUTS = {
  lishui: { handSize: 13, flowers: false, indicator: "tail_dice_sum", flowerKinds: new Set() },
  wenzhou: { handSize: 16, flowers: false, indicator: "tail_low_die_x2", flowerKinds: new Set() },
  huzhou: { handSize: 13, flowers: false, indicator: "front", flowerKinds: new Set() },
  fuzhou: { handSize: 16, flowers: true, indicator: "tail_past_flowers", flowerKinds: HONOURS_AND_FLOWERS },
  shanghai: { handSize: 13, flowers: true, indicator: "none",
    flowerKinds: new Set(Array.from({ length: 8 }, (_, i) => 34 + i)) },
};

// A tile kind (0-41) as its code: 0 -> "1m", 27 -> "1z", 34 -> "1f".
export function codeOf(kind) {
  if (kind < 27) return `${(kind % 9) + 1}${"mps"[Math.floor(kind / 9)]}`;
  if (kind < 34) return `${kind - 26}z`;
  return `${kind - 33}f`;
}

export function kindOf(code) {
  const m = typeof code === "string" ? /^([1-9])([mpszf])$/.exec(code) : null;
  if (!m) return null;
  const rank = Number(m[1]);
  const suit = m[2];
  if (suit === "z") return rank <= 7 ? 26 + rank : null;
  if (suit === "f") return rank <= 8 ? 33 + rank : null;
  return "mps".indexOf(suit) * 9 + rank - 1;
}

// What a seed makes in `variant`: {dice, wall (kinds, index 0 drawn first), wildDice}.
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

// Per seat, the wall indexes it is dealt: rounds of 4 from the dealer while 4 more fit, then
// rounds of 1, then one more for the dealer.
export function dealtPositions(dealer, handSize) {
  const hands = [[], [], [], []];
  let pos = 0;
  let held = 0;
  while (held < handSize) {
    const take = handSize - held >= 4 ? 4 : 1;
    for (let i = 0; i < 4; i++) {
      const seat = (dealer + i) % 4;
      for (let n = 0; n < take; n++) hands[seat].push(pos++);
    }
    held += take;
  }
  hands[dealer].push(pos);
  return hands;
}

// --- checking a hand ----------------------------------------------------------------------

class Mismatch extends Error {
  constructor(what, detail) {
    super(`${what}: ${detail}`);
    this.what = what;
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sortedCodes = (kinds) => [...kinds].sort((a, b) => a - b).map(codeOf).join(" ");

// Check one hand from the event payloads this seat received, in order (`hand_started`
// first, `hand_ended` last). The verdict: {status: verified | failed | test_mode |
// incomplete, what (failed: commitment, seed, dice, deal, draw, indicator, flowers, wall),
// message (English, for people and tests), dealt and draws (tiles compared)}. `shuffle`
// replaces the seed's wall (a test's doctored wall).
export function checkHand(events, { shuffle = null } = {}) {
  if (!events || !events.length || events[0].kind !== "hand_started") {
    return { status: "incomplete", what: "start", message: "the transcript does not start with hand_started", dealt: 0, draws: 0 };
  }
  const started = events[0];
  if (started.commitment === null || started.commitment === undefined) {
    return { status: "test_mode", what: null, message: "dealt from a prepared wall (test mode)", dealt: 0, draws: 0 };
  }
  const ended = events.find((e) => e.kind === "hand_ended");
  if (!ended) return { status: "incomplete", what: "end", message: "the hand has not ended", dealt: 0, draws: 0 };
  try {
    const seed = fromHex(ended.seed);
    if (!seed) throw new Mismatch("seed", `hand_ended reveals no seed (${ended.seed})`);
    const hash = sha256Hex(seed);
    if (hash !== started.commitment) {
      throw new Mismatch("commitment", `sha256(seed) = ${hash}, hand_started promised ${started.commitment}`);
    }
    const { dealt, draws } = replayHand(events, seed, shuffle);
    return { status: "verified", what: null, dealt, draws,
      message: `the seed matches the commitment; the dice, ${dealt} dealt tiles and ${draws} draws are the seed's` };
  } catch (err) {
    if (!(err instanceof Mismatch)) throw err;
    return { status: "failed", what: err.what, message: err.message, dealt: 0, draws: 0 };
  }
}

function tileOf(code, what) {
  const kind = kindOf(code);
  if (kind === null) throw new Mismatch("wall", `${what} is not a tile: ${code}`);
  return kind;
}

function replayHand(events, seed, shuffle) {
  const started = events[0];
  const layout = LAYOUTS[started.variant];
  if (!layout) throw new Mismatch("wall", `unknown variant ${started.variant}`);
  const made = shuffle || shuffleOf(seed, started.variant);
  if (!same(started.dice, made.dice)) throw new Mismatch("dice", `the seed rolls ${made.dice}, hand_started shows ${started.dice}`);
  if (started.wall_size !== made.wall.length) throw new Mismatch("wall", `${made.wall.length} tiles, hand_started says ${started.wall_size}`);
  const wall = [...made.wall]; // what is left: wall[head..]; the tail is its end
  let head = 0;
  const dealer = started.dealer;
  let hands = null;
  const unreplaced = []; // [seat, flower] laid out, not replaced yet
  let dealt = 0;
  let draws = 0;
  for (const e of events.slice(1)) {
    if (e.kind === "dealt") {
      if (!hands) {
        hands = dealtPositions(dealer, layout.handSize).map((where) => where.map((i) => wall[i]));
        head = 4 * layout.handSize + 1;
      }
      const want = hands[e.seat];
      if (!want || e.count !== want.length) throw new Mismatch("deal", `seat ${e.seat} is dealt ${want ? want.length : "?"} tiles, not ${e.count}`);
      if (e.tiles) {
        const got = e.tiles.map((c) => tileOf(c, "a dealt tile"));
        if (sortedCodes(got) !== sortedCodes(want)) {
          throw new Mismatch("deal", `seat ${e.seat}: the seed deals ${sortedCodes(want)}, the transcript has ${sortedCodes(got)}`);
        }
        dealt += got.length;
      }
    } else if (e.kind === "drew") {
      if (!hands) throw new Mismatch("draw", "a draw before the deal");
      if (head >= wall.length) throw new Mismatch("draw", "a draw from an empty wall");
      let tile;
      if (e.from_tail) {
        tile = wall.pop();
        if (unreplaced.length && unreplaced[unreplaced.length - 1][0] === e.seat) unreplaced.pop();
      } else {
        tile = wall[head++];
      }
      if (e.tile !== null && e.tile !== undefined) {
        if (tileOf(e.tile, "a draw") !== tile) {
          throw new Mismatch("draw", `seat ${e.seat} from the ${e.from_tail ? "tail" : "front"}: the seed gives ${codeOf(tile)}, the transcript has ${e.tile}`);
        }
        draws += 1;
      }
    } else if (e.kind === "flowered") {
      unreplaced.push([e.seat, tileOf(e.tile, "a flower")]);
    } else if (e.kind === "wild_turned") {
      if (!hands) throw new Mismatch("indicator", "the wild is turned before the deal");
      let indicator;
      if (layout.indicator === "tail_dice_sum" || layout.indicator === "tail_low_die_x2") {
        if (!same(e.dice, made.wildDice)) throw new Mismatch("dice", `the wild's dice: the seed rolls ${made.wildDice}, the transcript shows ${e.dice}`);
        const n = layout.indicator === "tail_dice_sum" ? made.wildDice[0] + made.wildDice[1] : 2 * Math.min(...made.wildDice);
        const index = wall.length - n;
        if (index < head) throw new Mismatch("indicator", "outside the wall");
        [indicator] = wall.splice(index, 1);
      } else if (layout.indicator === "front") {
        indicator = wall[head++];
      } else if (layout.indicator === "tail_past_flowers") {
        const turned = [];
        while (wall.length > head) {
          const tile = wall.pop();
          if (!layout.flowerKinds.has(tile)) { indicator = tile; break; }
          turned.push(tile);
        }
        const shown = unreplaced.map(([, f]) => f);
        if (!same(shown, turned) || unreplaced.some(([s]) => s !== dealer)) {
          throw new Mismatch("flowers", `the seed turns ${turned.map(codeOf).join(" ") || "none"}, the transcript shows ${shown.map(codeOf).join(" ") || "none"}`);
        }
        unreplaced.length = 0;
      } else {
        throw new Mismatch("indicator", "this variant turns no wild");
      }
      if (indicator === undefined || tileOf(e.indicator, "the indicator") !== indicator) {
        throw new Mismatch("indicator", `the seed turns ${indicator === undefined ? "nothing" : codeOf(indicator)}, the transcript has ${e.indicator}`);
      }
    }
  }
  return { dealt, draws };
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
    const base = { dealt: 0, draws: 0, seed: ended.seed ?? null, commitment: this.commitment };
    if (this.commitment === null) return { ...base, status: "test_mode", what: null, message: "test mode" };
    const seed = fromHex(ended.seed);
    if (!seed) return { ...base, status: "failed", what: "seed", message: "no seed revealed" };
    if (sha256Hex(seed) !== this.commitment) return { ...base, status: "failed", what: "commitment", message: "the seed does not match the commitment" };
    return { ...base, status: "partial", what: null, message: "the seed matches the commitment; the deal was not seen here" };
  }
}
