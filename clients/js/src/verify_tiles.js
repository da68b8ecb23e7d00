// Where every tile of a hand being verified is: what the procedure knows of each variant
// (LAYOUTS), the deal, and the rebuilt wall, hands, sets, flowers and river with the moves
// that take tiles from them (`Tiles`), down to the comparison with what `hand_ended`
// reveals. The twin of app/rules/verify_tiles.py (docs/protocol.md, "Verifying a hand"):
// verify_play.js decides who may move which tile when; this module only keeps the count.
//
// Its sentences are the Python verifier's, word for word, down to how a value of the
// transcript is written (`pyRepr`: Python's repr), so that the two verifiers give the same
// verdict and the same first mismatch, and a test can hold them to it.

// --- tiles and their codes ------------------------------------------------------------

// A tile kind (0-41) as its code: 0 -> "1m", 27 -> "1z", 34 -> "1f".
export function codeOf(kind) {
  if (kind < 27) return `${(kind % 9) + 1}${"mps"[Math.floor(kind / 9)]}`;
  if (kind < 34) return `${kind - 26}z`;
  return `${kind - 33}f`;
}

// A tile code as its kind (0-41); null when it is none.
export function kindOf(code) {
  const m = typeof code === "string" ? /^([1-9])([mpszf])$/.exec(code) : null;
  if (!m) return null;
  const rank = Number(m[1]);
  const suit = m[2];
  if (suit === "z") return rank <= 7 ? 26 + rank : null;
  if (suit === "f") return rank <= 8 ? 33 + rank : null;
  return "mps".indexOf(suit) * 9 + rank - 1;
}

export const WHITE = 31; // 5z 白板
const HONOURS_AND_FLOWERS = new Set(Array.from({ length: 15 }, (_, i) => 27 + i));
const FLOWERS = new Set(Array.from({ length: 8 }, (_, i) => 34 + i));

// What the procedure knows of each variant (the variants' defaults): tiles dealt per seat
// (the dealer one more), 144 tiles (with the 8 flowers), where the wild's indicator is
// turned, the kinds laid out as flowers (补花; 福州's 开金 skips them too), which kind the
// indicator makes wild (`wildOf`), and whether the last tiles are drawn with no discard
// (福州's final round).
export const LAYOUTS = {
  lishui: { handSize: 13, flowers: false, indicator: "tail_dice_sum", flowerKinds: new Set(),
    wild: "itself_white_plays_face", finalRound: false },
  wenzhou: { handSize: 16, flowers: false, indicator: "tail_low_die_x2", flowerKinds: new Set(),
    wild: "itself_white_plays_face", finalRound: false },
  huzhou: { handSize: 13, flowers: false, indicator: "front", flowerKinds: new Set(),
    wild: "next", finalRound: false },
  fuzhou: { handSize: 16, flowers: true, indicator: "tail_past_flowers",
    flowerKinds: HONOURS_AND_FLOWERS, wild: "itself", finalRound: true },
  shanghai: { handSize: 13, flowers: true, indicator: "none", flowerKinds: FLOWERS,
    wild: "none", finalRound: false },
};

// The first thing the transcript shows that the rebuilt hand does not. `what` names the
// check for a client's own sentence (commitment, seed, dice, wall, deal, draw, indicator,
// flowers, play, end); left null, the failing event's kind says it (`whatOf`).
export class Mismatch extends Error {
  constructor(message, what = null) {
    super(message);
    this.what = what;
  }
}

// The transcript cannot be followed further without its end (another seat's 暗杠 is shown
// only by `hand_ended`).
export class Unfollowable extends Error {}

const WHAT_OF_KIND = new Map([
  ["hand_started", "wall"], ["dealt", "deal"], ["drew", "draw"], ["flowered", "flowers"],
  ["wild_turned", "indicator"], ["hand_ended", "end"],
]);

// The check a mismatch at an event of `kind` failed, when the mismatch does not say it.
export const whatOf = (kind) => WHAT_OF_KIND.get(kind) ?? "play";

// Per seat, the wall indexes it is dealt from the front: rounds of four tiles to each seat
// from the dealer in turn order while four more fit in `handSize`, then rounds of one, then
// one more tile to the dealer.
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

// The wild kind and its substitute (the tile that plays as the wild's face) an indicator
// makes: 丽水 温州 the indicator's kind, 白板 playing as its face (none when the indicator is
// 白板); 福州 the indicator's kind; 湖州 the next kind: same rank in the next suit
// (m -> p -> s -> m), the next wind (东 南 西 北 东), the next dragon (中 发 白 中).
export function wildOf(rule, indicator) {
  if (rule === "none") return [null, null];
  if (rule === "next") {
    if (indicator < 27) return [(indicator + 9) % 27, null];
    if (indicator <= 30) return [27 + ((indicator - 26) % 4), null];
    return [{ 33: 32, 32: 31, 31: 33 }[indicator], null];
  }
  const substitute = rule === "itself_white_plays_face" && indicator !== WHITE ? WHITE : null;
  return [indicator, substitute];
}

// --- a transcript's values in a sentence, as Python writes them ----------------------------

const PY_ESCAPES = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

// Python's repr of a JSON value: None, True, 'text', [1, 2], {'k': 'v'}.
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of value) {
      const code = ch.codePointAt(0);
      if (ch === quote) out += `\\${ch}`;
      else if (PY_ESCAPES[ch]) out += PY_ESCAPES[ch];
      else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else out += ch;
    }
    return quote + out + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
  return String(value);
}

// Python's str of a JSON value: a string as it is, anything else as its repr.
export const pyStr = (value) => (typeof value === "string" ? value : pyRepr(value));

// Python's list(value or ()) of a JSON value, for comparing dice.
export function pyList(value) {
  if (!value) return [];
  if (typeof value === "string") return [...value];
  if (Array.isArray(value)) return value;
  if (typeof value === "object") return Object.keys(value);
  return [value];
}

// Python's == of two JSON scalars, where true and false are 1 and 0: a transcript that
// writes a seat as true is read as the Python verifier reads it, and gets its verdict.
export const pyEq = (a, b) => a === b || (typeof a === "boolean" ? Number(a) === b
  : typeof b === "boolean" && a === Number(b));

// Python's == of two lists of JSON scalars.
export const sameList = (a, b) =>
  Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]));

// --- reading a transcript's tiles and seats ------------------------------------------------

// A tile code of the transcript as a kind (0-41), or a Mismatch naming `what` (spaces
// ignored, as the server's notation reads it).
export function tileOf(code, what) {
  const kind = typeof code === "string" ? kindOf(code.replaceAll(" ", "")) : null;
  if (kind === null) throw new Mismatch(`${what} is not a tile: ${pyRepr(code)}`);
  return kind;
}

export function seatOf(value, what) {
  if (!Number.isInteger(value) || value < 0 || value >= 4) {
    throw new Mismatch(`${what} names no seat: ${pyRepr(value)}`);
  }
  return value;
}

const byKind = (a, b) => a - b;
export const sortedCodes = (tiles) => [...tiles].sort(byKind).map(codeOf).join(" ") || "nothing";
export const codeOrNull = (tile) => (tile === null ? null : codeOf(tile));
export const codeOrNone = (tile) => (tile === null ? "none" : codeOf(tile));

// The tiles a count of kinds holds, in kind order.
function tilesOf(counts) {
  const out = [];
  counts.forEach((n, t) => { for (let i = 0; i < n; i++) out.push(t); });
  return out;
}

// --- the count ------------------------------------------------------------------------

// A declared set as the replay made it (the fields of `hand_ended.melds`).
export class RebuiltMeld {
  constructor(kind, tiles, claimed = null, fromSeat = null) {
    this.kind = kind;
    this.tiles = tiles;
    this.claimed = claimed;
    this.fromSeat = fromSeat;
  }

  key() {
    return [this.kind, [...this.tiles].sort(byKind), this.claimed, this.fromSeat];
  }
}

// Every tile of the hand: the wall still to draw (`wall[head..]`; index 0 the front, the
// last the tail), per seat its concealed tiles (`hands`: counts of kinds 0-41), its sets
// (`melds`) and flowers (`flowers`), and the river (`river`: [seat, tile, claimed] per
// discard). `wild` and `substitute` are the kinds the turned indicator made wild and
// playing as the wild's face (null before, or in a variant without a wild).
export class Tiles {
  constructor(wall) {
    this.wall = [...wall];
    this.head = 0;
    this.hands = Array.from({ length: 4 }, () => new Array(42).fill(0));
    this.melds = [[], [], [], []];
    this.flowers = [[], [], [], []];
    this.river = [];
    this.extra = [[], [], [], []]; // 一炮多响: the tile other winners show
    this.wild = null;
    this.substitute = null;
  }

  deal(dealer, handSize) {
    dealtPositions(dealer, handSize).forEach((where, seat) => {
      for (const i of where) this.hands[seat][this.wall[i]] += 1;
    });
    this.head = 4 * handSize + 1;
  }

  // the next tile at the front, taken
  front(what) {
    if (this.head >= this.wall.length) throw new Mismatch(`${what}: the wall is empty`);
    this.head += 1;
    return this.wall[this.head - 1];
  }

  // the tile at the tail, taken
  tail(what) {
    if (this.wall.length <= this.head) throw new Mismatch(`no tile left in the wall for ${what}`);
    return this.wall.pop();
  }

  // `tiles` out of the seat's hand, which must hold them all
  take(seat, tiles, what) {
    const hand = this.hands[seat];
    if (tiles.some((t) => hand[t] < tiles.filter((x) => x === t).length)) {
      throw new Mismatch(`${what} needs ${sortedCodes(tiles)} from the hand, but seat ${seat} `
        + `holds ${this.held(seat)}`);
    }
    for (const t of tiles) hand[t] -= 1;
  }

  held(seat) {
    return sortedCodes(tilesOf(this.hands[seat]));
  }

  // the seat's 碰 of `tile`, which a 加杠 adds to (and a 抢杠 robs)
  pungOf(seat, tile, what) {
    const pung = this.melds[seat].find((m) => m.kind === "pung" && m.tiles.every((t) => t === tile));
    if (!pung) throw new Mismatch(`${what}: seat ${seat} has no 碰 of ${codeOf(tile)} to add to`);
    return pung;
  }

  // A 碰 is three alike, a 杠 four alike, a 吃 three in a row of one suit (白板 playing as
  // the wild's face); no set holds the wild.
  checkShape(kind, tiles, what) {
    if (this.wild !== null && tiles.includes(this.wild)) {
      throw new Mismatch(`${what} (${sortedCodes(tiles)}) uses the wild`);
    }
    const size = kind === "chow" || kind === "pung" ? 3 : 4;
    if (tiles.length !== size) throw new Mismatch(`${what} has ${tiles.length} tiles: ${sortedCodes(tiles)}`);
    let ok;
    if (kind === "chow") {
      const plays = tiles.map((t) => (t === this.substitute && this.wild !== null ? this.wild : t)).sort(byKind);
      const low = plays[0];
      ok = plays[2] < 27 && Math.floor(low / 9) === Math.floor(plays[2] / 9)
        && plays[1] === low + 1 && plays[2] === low + 2;
    } else {
      ok = tiles.every((t) => t === tiles[0]);
    }
    if (!ok) throw new Mismatch(`${what} is not a ${kind}: ${sortedCodes(tiles)}`);
  }

  // --- the end ---------------------------------------------------------------------------

  // the seat's concealed tiles as the end shows them (一炮多响: every winner's with the
  // winning tile)
  revealed(seat) {
    return [...tilesOf(this.hands[seat]), ...this.extra[seat]].sort(byKind);
  }

  // a hand the transcript shows (a won event's, hand_ended's) against `revealed`
  checkRevealed(seat, codes, what) {
    if (!Array.isArray(codes)) {
      throw new Mismatch(`seat ${seat}'s ${what} is not a list of tiles: ${pyRepr(codes)}`);
    }
    const shown = codes.map((c) => tileOf(c, `a tile of seat ${seat}'s ${what}`)).sort(byKind);
    if (!sameList(shown, this.revealed(seat))) {
      throw new Mismatch(`seat ${seat}'s ${what}: the wall and the events leave it `
        + `${sortedCodes(this.revealed(seat))}, the transcript shows ${sortedCodes(shown)}`);
    }
  }

  // `hand_ended`'s hands, sets and flowers against the rebuilt ones, seat by seat (each
  // compared as a multiset: their order is the server's)
  checkEnd(ended) {
    const { hands, melds, flowers } = ended;
    for (const [name, value] of [["hands", hands], ["melds", melds], ["flowers", flowers]]) {
      if (!Array.isArray(value) || value.length !== 4) {
        throw new Mismatch(`hand_ended's ${name} are not four lists`);
      }
    }
    for (let seat = 0; seat < 4; seat++) {
      this.checkRevealed(seat, hands[seat], "revealed hand");
      const shown = pyList(melds[seat]).map((m) => meldKey(m, seat));
      const rebuilt = this.melds[seat].map((m) => m.key());
      if (!sameMultiset(shown, rebuilt)) {
        throw new Mismatch(`seat ${seat}'s revealed sets: the events made ${setsText(rebuilt)}, `
          + `hand_ended shows ${setsText(shown)}`);
      }
      const laid = pyList(flowers[seat]).map((c) => tileOf(c, `seat ${seat}'s flower`));
      if (!sameList([...laid].sort(byKind), [...this.flowers[seat]].sort(byKind))) {
        throw new Mismatch(`seat ${seat}'s flowers: the events laid out `
          + `${sortedCodes(this.flowers[seat])}, hand_ended shows ${sortedCodes(laid)}`);
      }
    }
  }
}

function meldKey(meld, seat) {
  if (meld === null || typeof meld !== "object" || Array.isArray(meld) || !Array.isArray(meld.tiles)) {
    throw new Mismatch(`seat ${seat}'s revealed set is not a set: ${pyRepr(meld)}`);
  }
  const tiles = meld.tiles.map((c) => tileOf(c, `seat ${seat}'s set`)).sort(byKind);
  const claimed = meld.claimed ?? null;
  return [pyStr(meld.meld), tiles,
    claimed === null ? null : tileOf(claimed, `seat ${seat}'s claimed tile`), asNumber(meld.from_seat ?? null)];
}

const asNumber = (x) => (typeof x === "boolean" ? Number(x) : x); // as pyEq compares

function sameMultiset(a, b) {
  const text = (keys) => keys.map((k) => JSON.stringify(k)).sort();
  return sameList(text(a), text(b));
}

const setsText = (keys) => keys.map(([kind, tiles]) => `${kind} ${sortedCodes(tiles)}`).join("; ") || "none";
