// Hand verification (src/verify.js, over src/verify_play.js and src/verify_tiles.js): the
// revealed seed against the commitment, the dice, and the whole hand rebuilt from the wall
// the seed makes: every seat's deal and draws, each discard, claim, kong and win, and the
// hands hand_ended reveals (docs/protocol.md, "Verifying a hand"). The verdict is the Python
// verifier's (`python -m app.rules.verify`), sentence for sentence.

import type { EventPayload, HandEndedPayload, ServerMessage, SnapshotMessage } from "./protocol.js";

export type VerdictStatus = "verified" | "failed" | "test_mode" | "incomplete" | "partial";

/** the check that failed, for a client's own sentence */
export type VerdictWhat =
  | "commitment" | "seed" | "dice" | "wall" | "deal" | "draw" | "indicator" | "flowers" | "play" | "end";

export interface Verdict {
  /** partial: HandProof only (joined midway: the seed against the commitment alone) */
  status: VerdictStatus;
  /** failed: which check; null otherwise */
  what: VerdictWhat | null;
  /** in English, for people and logs: where it failed (event place, seq, kind), the seat,
   * and what the wall made instead; the Python verifier's sentence */
  message: string;
  /** the hand's id, when the transcript's messages named it */
  handId: string | null;
  /** how many dealt tiles and draws the transcript shows and were compared */
  dealt: number;
  draws: number;
  /** failed (or incomplete partway): the event's place in the hand, 1 = hand_started */
  event: number | null;
  /** and its seq, when the transcript has one */
  seq: number | null;
}

/** what a seed makes: the dice, the wall (tile kinds 0-41, index 0 drawn first, the last the
 * tail) and the wild's dice */
export interface Shuffle {
  dice: number[];
  wall: number[];
  wildDice: number[];
}

/** check a hand from the event payloads one seat received, hand_started first */
export declare function checkHand(
  events: EventPayload[],
  options?: { shuffle?: Shuffle | null; handId?: string | null; seqs?: (number | null)[] | null },
): Verdict;

/** one hand's events read from a transcript, with each one's seq (null: a bare payload) */
export interface HandEvents {
  handId: string | null;
  events: EventPayload[];
  seqs: (number | null)[];
}

/** a transcript's messages, bare payloads or replay answer: each hand's events in order,
 * resent copies (a seq already seen) dropped */
export declare function readHands(messages: Iterable<ServerMessage | EventPayload | object>): HandEvents[];
/** checkHand for every hand of a transcript */
export declare function checkTranscript(messages: Iterable<ServerMessage | EventPayload | object>): Verdict[];
/** JSON lines, a JSON array of messages, or one JSON object (a replay's answer) */
export declare function parseTranscript(text: string): unknown[];

/** a hand's events as a table page receives them, for the verdict at its end */
export declare class HandProof {
  event(e: EventPayload): void;
  snapshot(view: SnapshotMessage["view"]): void;
  verdict(ended: HandEndedPayload): Verdict & { seed: string | null; commitment: string | null };
}

/** what the procedure knows of a variant */
export interface Layout {
  handSize: number;
  flowers: boolean;
  indicator: "none" | "tail_dice_sum" | "tail_low_die_x2" | "front" | "tail_past_flowers";
  flowerKinds: Set<number>;
  wild: "none" | "itself" | "itself_white_plays_face" | "next";
  finalRound: boolean;
}

/** the hand replayed over its wall: feed() the events after hand_started; the first that
 * does not fit throws */
export declare class HandReplay {
  constructor(layout: Layout, wall: number[], wildDice: number[], dealer: number, ended?: HandEndedPayload | null);
  feed(event: EventPayload): void;
  /** each seat's concealed tiles (counts of kinds 0-41), sets, flowers, the river and the
   * wall still to draw (wall[head..]) */
  tiles: {
    wall: number[];
    head: number;
    hands: number[][];
    melds: { kind: string; tiles: number[]; claimed: number | null; fromSeat: number | null }[][];
    flowers: number[][];
    river: [number, number, boolean][];
    wild: number | null;
    substitute: number | null;
  };
  toPlay: number | null;
  owed: number | null;
  discard: [number, number] | null;
  comparedDealt: number;
  comparedDraws: number;
}

/** the event kinds the replay follows */
export declare const FOLLOWED: readonly string[];

export declare function sha256Hex(bytes: Uint8Array): string;
/** hex to bytes as Python's bytes.fromhex reads it; null when it is not */
export declare function fromHex(hex: string): Uint8Array | null;
export declare function seedKey(bytes: Uint8Array): number[];
export declare function codeOf(kind: number): string;
export declare function kindOf(code: string): number | null;
export declare function shuffleOf(
  seedBytes: Uint8Array,
  variant: string,
): { dice: [number, number]; wall: number[]; wildDice: [number, number] };
export declare function dealtPositions(dealer: number, handSize: number): number[][];
/** the wild kind and its substitute an indicator makes under a variant's rule */
export declare function wildOf(rule: Layout["wild"], indicator: number): [number | null, number | null];
export declare class Twister {
  constructor(key: number[]);
  next32(): number;
  getrandbits(k: number): number;
  below(n: number): number;
}
export declare const LAYOUTS: Record<string, Layout>;
