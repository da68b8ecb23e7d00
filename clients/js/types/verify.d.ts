// Hand verification (src/verify.js): the revealed seed against the commitment, and the
// dice, the deal and the draws this seat saw against the wall the seed makes
// (docs/protocol.md, "Verifying a hand").

import type { EventPayload, HandEndedPayload, SnapshotMessage } from "./protocol.js";

export type VerdictStatus = "verified" | "failed" | "test_mode" | "incomplete" | "partial";

export interface Verdict {
  status: VerdictStatus;
  /** failed: which check (commitment, seed, dice, deal, draw, indicator, flowers, wall) */
  what: string | null;
  /** in English, for people and logs */
  message: string;
  /** how many dealt tiles and draws were compared */
  dealt: number;
  draws: number;
}

/** check a hand from the event payloads one seat received, hand_started first */
export declare function checkHand(
  events: EventPayload[],
  options?: { shuffle?: { dice: number[]; wall: number[]; wildDice: number[] } | null },
): Verdict;

/** a hand's events as a table page receives them, for the verdict at its end */
export declare class HandProof {
  event(e: EventPayload): void;
  snapshot(view: SnapshotMessage["view"]): void;
  verdict(ended: HandEndedPayload): Verdict & { seed: string | null; commitment: string | null };
}

export declare function sha256Hex(bytes: Uint8Array): string;
export declare function fromHex(hex: string): Uint8Array | null;
export declare function seedKey(bytes: Uint8Array): number[];
export declare function codeOf(kind: number): string;
export declare function kindOf(code: string): number | null;
export declare function shuffleOf(
  seedBytes: Uint8Array,
  variant: string,
): { dice: [number, number]; wall: number[]; wildDice: [number, number] };
export declare function dealtPositions(dealer: number, handSize: number): number[][];
export declare class Twister {
  constructor(key: number[]);
  next32(): number;
  getrandbits(k: number): number;
  below(n: number): number;
}
export declare const LAYOUTS: Record<string, { handSize: number; flowers: boolean; indicator: string; flowerKinds: Set<number> }>;
