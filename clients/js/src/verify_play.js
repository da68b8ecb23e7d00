// The whole hand replayed over its wall: the deal, every draw, the wild's indicator, then
// each recorded event in order, checked against who may move now and what the seats hold at
// that moment, down to what `hand_ended` reveals. The twin of app/rules/verify_play.py
// (docs/protocol.md, "Verifying a hand", steps 7 to 10), sentence for sentence.
//
// The replay knows every tile (the seed made the wall; verify_tiles.js keeps the count), so
// a seat's own transcript, where the other seats' deals and draws are null, is checked as
// fully as an administrator's: each hidden draw is the wall's next tile, and each discard,
// claim, kong and win must use tiles the rebuilt hand holds, in turn. What is checked is
// where the tiles go and who moves them, not the rules' judgement: not whether a hand that
// won is a winning hand, whether a seat chose a legal discard (温州's honours first), where
// a reserve at the tail makes the wall end, nor the scores.

import {
  Mismatch, RebuiltMeld, Tiles, Unfollowable, codeOf, codeOrNone, codeOrNull, pyList, pyRepr,
  pyEq, pyStr, sameList, seatOf, sortedCodes, tileOf, wildOf,
} from "./verify_tiles.js";

const CLAIMS = ["chow", "pung", "exposed_kong"];
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

// The hand as its events move the wall's tiles. `feed` takes the events after
// `hand_started`, in order, and throws a Mismatch at the first that does not fit.
//
// What it holds: the tiles (`tiles`: wall, hands, sets, flowers, river, wild), `toPlay`
// (the seat that holds a tile more and must act), `owed` (the seat owed a replacement from
// the tail after its kong or flower) and `discard` (the last discard, [seat, tile], while it
// may be claimed).
export class HandReplay {
  constructor(layout, wall, wildDice, dealer, ended = null) {
    this.layout = layout;
    this.tiles = new Tiles(wall);
    this.wildDice = wildDice;
    this.dealer = dealer;
    this.ended = ended; // the hand's end, when known: it shows other seats' 暗杠
    this.dealt = [false, false, false, false];
    this.toPlay = null;
    this.owed = null;
    this.discard = null;
    this.drewFront = false; // `toPlay` drew from the front and has done nothing since
    this.acted = false; // the first move after the deal was made
    this.lastDrawn = [null, null, null, null];
    this.indicator = null;
    this.gold = null; // the seat that took the turned 金 (福州 抢金)
    this.over = null; // win, draw, escape
    this.wins = [];
    this.winClaim = null; // [from seat, tile, robbed] of the first win
    this.concealedKongs = [0, 0, 0, 0];
    this.comparedDealt = 0;
    this.comparedDraws = 0;
    this.drawCount = [0, 0, 0, 0];
  }

  // --- following the events ----------------------------------------------------------

  feed(event) {
    const kind = event.kind;
    if (this.over !== null && kind !== "won" && kind !== "hand_ended") {
      throw new Mismatch(`a ${pyStr(kind)} event after the hand's end (${this.over})`);
    }
    if (kind === "hand_ended") {
      this.end(event);
      return;
    }
    const handler = HANDLERS.get(kind);
    if (handler) handler.call(this, event);
    // decided, penalized and kinds this procedure does not know move no tile
  }

  dealtEvent(event) {
    if (this.acted || this.indicator !== null) throw new Mismatch("a dealt event after the deal");
    if (!this.dealt.some(Boolean)) this.tiles.deal(this.dealer, this.layout.handSize);
    const seat = seatOf(event.seat, "a dealt event");
    if (this.dealt[seat]) throw new Mismatch(`seat ${seat} is dealt twice`);
    this.dealt[seat] = true;
    const want = [];
    this.tiles.hands[seat].forEach((n, t) => { for (let i = 0; i < n; i++) want.push(t); });
    if (!pyEq(event.count, want.length)) {
      throw new Mismatch(`seat ${seat} is dealt ${want.length} tiles, the transcript says `
        + `${pyStr(event.count)}`);
    }
    const tiles = event.tiles ?? null;
    if (tiles !== null) {
      if (!Array.isArray(tiles)) throw new Mismatch(`seat ${seat}'s dealt tiles are not a list: ${pyRepr(tiles)}`);
      const shown = tiles.map((c) => tileOf(c, `seat ${seat}'s dealt tile`));
      if (!sameList([...shown].sort((a, b) => a - b), want)) {
        throw new Mismatch(`seat ${seat}'s dealt tiles: the seed deals ${sortedCodes(want)}, `
          + `the transcript has ${sortedCodes(shown)}`);
      }
      this.comparedDealt += shown.length;
    }
    if (this.dealt.every(Boolean)) this.toPlay = this.dealer;
  }

  flowered(event) {
    const seat = seatOf(event.seat, "a flowered event");
    const tile = tileOf(event.tile, `seat ${seat}'s flower`);
    this.requireDealt();
    if (!this.layout.flowerKinds.has(tile)) {
      throw new Mismatch(`seat ${seat} lays out ${codeOf(tile)}, which is no flower here`);
    }
    if (this.owed !== null) throw new Mismatch(`seat ${seat} lays out ${codeOf(tile)} while ${this.waiting()}`);
    if (this.tiles.hands[seat][tile]) {
      this.tiles.hands[seat][tile] -= 1;
      this.owed = seat;
    } else if (this.layout.indicator === "tail_past_flowers" && this.indicator === null
      && seat === this.dealer) {
      // 开金: a flower turned at the tail goes to the dealer, and the next is turned
      const turned = this.tiles.tail(`the flower turned for the dealer, ${codeOf(tile)}`);
      if (turned !== tile) {
        throw new Mismatch(`the tile turned at the tail for the wild is ${codeOf(turned)}, `
          + `the transcript lays out ${codeOf(tile)} for the dealer`);
      }
    } else {
      throw new Mismatch(`seat ${seat} lays out ${codeOf(tile)}, which it does not hold `
        + `(it holds ${this.tiles.held(seat)})`);
    }
    this.tiles.flowers[seat].push(tile);
  }

  wildTurned(event) {
    this.requireDealt();
    if (this.acted || this.indicator !== null) {
      throw new Mismatch("the wild is turned after the hand's first move, or twice");
    }
    if (this.layout.indicator === "none") throw new Mismatch("this variant turns no wild");
    if (this.owed !== null) throw new Mismatch(`the wild is turned while ${this.waiting()}`);
    const indicator = this.turnIndicator(event);
    const shown = tileOf(event.indicator, "the wild's indicator");
    if (shown !== indicator) {
      throw new Mismatch(`the wild's indicator: the seed turns ${codeOf(indicator)}, the `
        + `transcript has ${codeOf(shown)}`);
    }
    this.indicator = indicator;
    const [wild, substitute] = wildOf(this.layout.wild, indicator);
    this.tiles.wild = wild;
    this.tiles.substitute = substitute;
    const said = [event.wild ?? null, event.substitute ?? null];
    if (said[0] !== codeOrNull(wild) || said[1] !== codeOrNull(substitute)) {
      throw new Mismatch(`the indicator ${codeOf(indicator)} makes ${codeOrNone(wild)} `
        + `wild and ${codeOrNone(substitute)} its substitute, the transcript says `
        + `${pyStr(said[0])} and ${pyStr(said[1])}`);
    }
  }

  turnIndicator(event) {
    const rule = this.layout.indicator;
    if (rule === "tail_dice_sum" || rule === "tail_low_die_x2") {
      if (!sameList(pyList(event.dice), this.wildDice)) {
        throw new Mismatch(`the wild's dice: the seed rolls ${pyRepr(this.wildDice)}, the `
          + `transcript shows ${pyStr(event.dice)}`, "dice");
      }
      const [a, b] = this.wildDice;
      const n = rule === "tail_dice_sum" ? a + b : 2 * Math.min(a, b);
      const index = this.tiles.wall.length - n;
      if (index < this.tiles.head) throw new Mismatch("the wild's indicator lies outside the wall");
      return this.tiles.wall.splice(index, 1)[0];
    }
    if (rule === "front") return this.tiles.front("the wild's indicator");
    const tile = this.tiles.tail("the wild's indicator");
    if (this.layout.flowerKinds.has(tile)) {
      throw new Mismatch(`the tile turned at the tail is ${codeOf(tile)}, a flower: it goes `
        + "to the dealer (a flowered event) and the next one is turned");
    }
    return tile;
  }

  drew(event) {
    const seat = seatOf(event.seat, "a drew event");
    this.requireDealt();
    const fromTail = event.from_tail;
    let tile;
    if (fromTail === true) {
      if (this.owed !== seat) {
        throw new Mismatch(`seat ${seat} draws from the tail, but no kong or flower of its `
          + `asks for a replacement (${this.waiting()})`);
      }
      this.owed = null;
      tile = this.tiles.tail(`seat ${seat}'s replacement`);
    } else if (fromTail === false) {
      this.requireMove(`seat ${seat} draws from the front`);
      const prev = (seat + 3) % 4;
      if (this.discard !== null && this.discard[0] === prev && this.owed === null) {
        this.discard = null;
      } else if (!(this.layout.finalRound && this.drewFront && this.toPlay === prev)) {
        throw new Mismatch(`seat ${seat} draws from the front out of turn, while ${this.waiting()}`);
      }
      this.owed = null; // 福州's final round: a flower drawn there is not replaced
      tile = this.tiles.front(`seat ${seat} draws from the front`);
      this.toPlay = seat;
      this.drewFront = true;
    } else {
      throw new Mismatch(`seat ${seat}'s draw says neither front nor tail: ${pyRepr(fromTail)}`);
    }
    this.drawCount[seat] += 1;
    const code = event.tile ?? null;
    if (code !== null) {
      if (tileOf(code, `seat ${seat}'s draw`) !== tile) {
        const where = fromTail ? "the tail" : "the front";
        throw new Mismatch(`seat ${seat}'s draw ${this.drawCount[seat]} from ${where}: the `
          + `seed gives ${codeOf(tile)}, the transcript has ${code}`);
      }
      this.comparedDraws += 1;
    }
    this.tiles.hands[seat][tile] += 1;
    this.lastDrawn[seat] = tile;
  }

  discarded(event) {
    const seat = seatOf(event.seat, "a discarded event");
    const tile = tileOf(event.tile, `seat ${seat}'s discard`);
    this.requireTurn(seat, `seat ${seat} discards ${codeOf(tile)}`);
    if (!this.tiles.hands[seat][tile]) {
      throw new Mismatch(`seat ${seat} discards ${codeOf(tile)}, which it does not hold `
        + `(it holds ${this.tiles.held(seat)})`);
    }
    if ((event.wild ?? null) !== (tile === this.tiles.wild)) {
      throw new Mismatch(`seat ${seat}'s discard ${codeOf(tile)} is marked wild: `
        + `${pyRepr(event.wild)}, the wild is ${codeOrNone(this.tiles.wild)}`);
    }
    this.tiles.hands[seat][tile] -= 1;
    this.tiles.river.push([seat, tile, false]);
    this.discard = [seat, tile];
    this.toPlay = null;
    this.drewFront = false;
  }

  melded(event) {
    const seat = seatOf(event.seat, "a melded event");
    const kind = event.meld;
    const tiles = event.tiles ?? null;
    if (tiles !== null && !Array.isArray(tiles)) {
      throw new Mismatch(`seat ${seat}'s set is not a list of tiles: ${pyRepr(tiles)}`);
    }
    const shown = tiles === null ? null : tiles.map((c) => tileOf(c, `seat ${seat}'s set`));
    if (CLAIMS.includes(kind)) this.claim(seat, kind, shown, event);
    else if (kind === "concealed_kong") this.concealedKong(seat, shown);
    else if (kind === "added_kong") this.addedKong(seat, shown, event);
    else throw new Mismatch(`seat ${seat} declares an unknown set: ${pyRepr(kind)}`);
    this.drewFront = false;
  }

  claim(seat, kind, tiles, event) {
    const what = `seat ${seat}'s ${kind}`;
    this.requireMove(what);
    if (this.discard === null || this.owed !== null) {
      throw new Mismatch(`${what} claims no discard: ${this.waiting()}`);
    }
    const [by, tile] = this.discard;
    const claimed = tileOf(event.claimed, `the tile of ${what}`);
    if (!pyEq(event.from_seat, by) || claimed !== tile) {
      throw new Mismatch(`${what} claims ${codeOf(claimed)} from seat ${pyStr(event.from_seat)}, `
        + `but the last discard is seat ${by}'s ${codeOf(tile)}`);
    }
    if (seat === by || (kind === "chow" && seat !== (by + 1) % 4)) {
      throw new Mismatch(`${what}: seat ${seat} may not claim seat ${by}'s discard that way`);
    }
    if (tile === this.tiles.wild) {
      throw new Mismatch(`${what} claims a discarded wild (${codeOf(tile)}), which is dead`);
    }
    if (tiles === null) throw new Mismatch(`${what} shows no tiles`);
    this.tiles.checkShape(kind, tiles, what);
    if (!tiles.includes(tile)) {
      throw new Mismatch(`${what} (${sortedCodes(tiles)}) does not hold the claimed ${codeOf(tile)}`);
    }
    const rest = [...tiles];
    rest.splice(rest.indexOf(tile), 1);
    this.tiles.take(seat, rest, what);
    this.tiles.river[this.tiles.river.length - 1][2] = true;
    this.discard = null;
    this.tiles.melds[seat].push(new RebuiltMeld(kind, [...tiles], tile, by));
    this.toPlay = seat;
    if (kind === "exposed_kong") this.owed = seat;
  }

  concealedKong(seat, shown) {
    const what = `seat ${seat}'s concealed kong`;
    this.requireTurn(seat, what);
    const tiles = shown ?? this.hiddenKong(seat);
    this.tiles.checkShape("concealed_kong", tiles, what);
    this.tiles.take(seat, tiles, what);
    this.concealedKongs[seat] += 1;
    this.tiles.melds[seat].push(new RebuiltMeld("concealed_kong", [...tiles]));
    this.owed = seat;
  }

  // Another seat's 暗杠, whose tiles this transcript shows only at the end: the seat's n-th
  // concealed kong in `hand_ended.melds` (or, without the end, the only four alike the seat
  // holds).
  hiddenKong(seat) {
    const n = this.concealedKongs[seat];
    if (this.ended !== null) {
      const melds = this.ended.melds;
      const mine = Array.isArray(melds) && melds.length === 4 ? melds[seat] : null;
      const kongs = pyList(mine).filter((m) => isObject(m) && m.meld === "concealed_kong");
      if (n >= kongs.length || !Array.isArray(kongs[n].tiles)) {
        throw new Mismatch(`seat ${seat}'s concealed kong ${n + 1} is not among the sets `
          + "hand_ended reveals");
      }
      return kongs[n].tiles.map((c) => tileOf(c, `seat ${seat}'s concealed kong`));
    }
    const hand = this.tiles.hands[seat];
    const fours = [];
    for (let t = 0; t < 34; t++) if (hand[t] === 4 && t !== this.tiles.wild) fours.push(t);
    if (fours.length !== 1) throw new Unfollowable(`seat ${seat}'s concealed kong is hidden until the hand's end`);
    return [fours[0], fours[0], fours[0], fours[0]];
  }

  addedKong(seat, tiles, event) {
    const what = `seat ${seat}'s added kong`;
    this.requireTurn(seat, what);
    const added = tileOf(event.claimed, `the tile of ${what}`);
    const pung = this.tiles.pungOf(seat, added, what);
    const made = [...pung.tiles, added].sort((a, b) => a - b);
    if (tiles === null || !sameList([...tiles].sort((a, b) => a - b), made)) {
      throw new Mismatch(`${what} shows ${sortedCodes(tiles ?? [])}, its 碰 and the added tile `
        + `make ${sortedCodes(made)}`);
    }
    this.tiles.take(seat, [added], what);
    const i = this.tiles.melds[seat].indexOf(pung);
    this.tiles.melds[seat][i] = new RebuiltMeld("added_kong", [...tiles], pung.claimed, pung.fromSeat);
    this.owed = seat;
  }

  goldRobbed(event) {
    const seat = seatOf(event.seat, "a gold_robbed event");
    const tile = tileOf(event.tile, "the robbed 金");
    if (this.layout.indicator !== "tail_past_flowers" || this.indicator === null) {
      throw new Mismatch("a 金 is robbed where none was turned");
    }
    if (this.discard === null || this.gold !== null) {
      throw new Mismatch(`seat ${seat} robs the 金 but no tile was put out for it just before`);
    }
    if (tile !== this.indicator) {
      throw new Mismatch(`seat ${seat} robs ${codeOf(tile)}, the turned 金 is ${codeOf(this.indicator)}`);
    }
    this.discard = null; // the tile put out is not claimed: the hand ends
    this.tiles.hands[seat][tile] += 1;
    this.gold = seat;
    this.toPlay = seat;
  }

  won(event) {
    const seat = seatOf(event.seat, "a won event");
    const fromSeat = event.from_seat ?? null;
    const code = event.tile ?? null;
    const tile = code === null ? null : tileOf(code, `seat ${seat}'s winning tile`);
    const robbed = event.robbed_kong === true;
    if ((event.self_draw ?? null) !== (fromSeat === null)) {
      throw new Mismatch(`seat ${seat}'s win says self_draw ${pyRepr(event.self_draw)} and `
        + `from_seat ${pyRepr(fromSeat)}`);
    }
    const what = `seat ${seat}'s win`;
    if (this.wins.includes(seat)) throw new Mismatch(`seat ${seat} wins twice`);
    if (this.over !== null) {
      const [claimFrom, claimTile, claimRobbed] = this.winClaim ?? [];
      if (this.over !== "win" || !pyEq(claimFrom, fromSeat) || claimTile !== tile
        || claimRobbed !== robbed || fromSeat === null) {
        throw new Mismatch(`${what} after the hand's end (${this.over}), on another tile`);
      }
      if (tile !== null) this.tiles.extra[seat].push(tile);
    } else if (fromSeat === null) {
      this.selfDrawn(seat, tile, what);
    } else {
      this.wonOn(seat, seatOf(fromSeat, what), tile, robbed, what);
    }
    this.over = "win";
    this.winClaim = [fromSeat, tile, robbed];
    this.wins.push(seat);
    this.tiles.checkRevealed(seat, event.hand ?? null, `${what}'s hand`);
  }

  selfDrawn(seat, tile, what) {
    if (this.gold !== null) {
      if (seat !== this.gold || tile !== this.indicator) {
        throw new Mismatch(`${what}: seat ${this.gold} robbed the 金 ${codeOf(this.indicator ?? 0)}`);
      }
      return;
    }
    const withTheDeal = !this.acted;
    this.requireMove(what);
    if (withTheDeal) { // an instant win with the dealt hands, any seat's
      if (tile !== null) throw new Mismatch(`${what} with the deal names a winning tile ${codeOf(tile)}`);
      return;
    }
    if (seat !== this.toPlay) throw new Mismatch(`${what} by self-draw while ${this.waiting()}`);
    if (tile !== null && tile !== this.lastDrawn[seat]) {
      throw new Mismatch(`${what}: its winning tile ${codeOf(tile)} is not its latest draw `
        + `(${codeOrNone(this.lastDrawn[seat])})`);
    }
  }

  wonOn(seat, by, tile, robbed, what) {
    if (tile === null || seat === by) throw new Mismatch(`${what} from seat ${by} names no tile, or its own`);
    if (robbed) { // 抢杠: the tile seat `by` added to its 碰, declared with no event
      this.requireTurn(by, `${what}, robbing seat ${by}'s added kong`);
      this.tiles.pungOf(by, tile, what);
      this.tiles.take(by, [tile], `seat ${by}'s added kong`);
    } else {
      this.requireMove(what);
      if (this.discard === null || this.discard[0] !== by || this.discard[1] !== tile
        || this.owed !== null) {
        throw new Mismatch(`${what} on seat ${by}'s ${codeOf(tile)}, while ${this.waiting()}`);
      }
      if (tile === this.tiles.wild) {
        throw new Mismatch(`${what} on a discarded wild (${codeOf(tile)}), which is dead`);
      }
      this.tiles.river[this.tiles.river.length - 1][2] = true;
      this.discard = null;
    }
    this.tiles.hands[seat][tile] += 1;
  }

  exhaustiveDraw() {
    this.requireDealt();
    if (!(this.discard !== null || this.owed !== null || (this.layout.finalRound && this.drewFront))) {
      throw new Mismatch(`the hand is drawn (流局) while ${this.waiting()}`);
    }
    this.discard = null;
    this.over = "draw";
  }

  escaped(event) {
    seatOf(event.seat, "an escaped event");
    this.discard = null;
    this.over = "escape";
  }

  // --- the end ---------------------------------------------------------------------------

  // `hand_ended` against the rebuilt hand: the outcome, the winners, and every seat's
  // revealed tiles, sets and flowers
  end(ended) {
    if (this.over === null) throw new Mismatch(`hand_ended comes while ${this.waiting()}`);
    if ((ended.outcome ?? null) !== this.over) {
      throw new Mismatch(`hand_ended says ${pyRepr(ended.outcome)}, the events end in `
        + `${pyRepr(this.over)}`);
    }
    if (!sameList(ended.winners, this.wins)) {
      throw new Mismatch(`hand_ended's winners are ${pyStr(ended.winners)}, the won events' `
        + `${pyRepr(this.wins)}`);
    }
    this.tiles.checkEnd(ended);
  }

  // --- the checks every move shares ------------------------------------------------------

  requireDealt() {
    const missing = [0, 1, 2, 3].filter((s) => !this.dealt[s]);
    if (missing.length) {
      throw new Mismatch(`the deal is not complete: no dealt event for seat ${missing.join(", ")}`);
    }
  }

  // A move of the play (not the deal's 补花): the deal is done, the wild turned, and no
  // seat keeps a flower.
  requireMove(what) {
    this.requireDealt();
    if (this.layout.indicator !== "none" && this.indicator === null) {
      throw new Mismatch(`${what} before the wild is turned`);
    }
    for (let seat = 0; seat < 4; seat++) {
      const held = [...this.layout.flowerKinds].filter((t) => this.tiles.hands[seat][t]);
      if (held.length) {
        throw new Mismatch(`${what} while seat ${seat} keeps the flower ${sortedCodes(held)} `
          + "(a flower is laid out at once)");
      }
    }
    this.acted = true;
  }

  requireTurn(seat, what) {
    this.requireMove(what);
    if (this.toPlay !== seat || this.owed !== null || this.discard !== null) {
      throw new Mismatch(`${what} out of turn, while ${this.waiting()}`);
    }
  }

  // what the hand waits for, for a mismatch's sentence
  waiting() {
    if (this.over !== null) return `the hand is over (${this.over})`;
    if (!this.dealt.every(Boolean)) return "the deal is not complete";
    if (this.owed !== null) return `seat ${this.owed} is owed a replacement from the tail`;
    if (this.discard !== null) {
      const [by, tile] = this.discard;
      return `seat ${by}'s discard ${codeOf(tile)} may be claimed, or seat ${(by + 1) % 4} draws`;
    }
    if (this.toPlay !== null) return `seat ${this.toPlay} is to play`;
    return "nobody is to play";
  }
}

const HANDLERS = new Map([
  ["dealt", HandReplay.prototype.dealtEvent],
  ["flowered", HandReplay.prototype.flowered],
  ["wild_turned", HandReplay.prototype.wildTurned],
  ["drew", HandReplay.prototype.drew],
  ["discarded", HandReplay.prototype.discarded],
  ["melded", HandReplay.prototype.melded],
  ["gold_robbed", HandReplay.prototype.goldRobbed],
  ["won", HandReplay.prototype.won],
  ["exhaustive_draw", HandReplay.prototype.exhaustiveDraw],
  ["escaped", HandReplay.prototype.escaped],
]);

// the event kinds the replay follows (docs/protocol.md, "Verifying a hand", step 8)
export const FOLLOWED = Object.freeze([...HANDLERS.keys()]);
