// The table model (src/model.js): one reducer for live play and replays.

import type { EventPayload, HandEndedPayload, SeatState, SnapshotMessage, WildView, WonPayload } from "./protocol.js";

export type Tile = string;

export interface HandMeld {
  kind: "chow" | "pung" | "exposed_kong" | "concealed_kong" | "added_kong" | (string & {});
  /** null: another seat's 暗杠, face down */
  tiles: Tile[] | null;
  claimed: Tile | null;
  from_seat: number | null;
  /** 加杠: the tile added to the 碰 */
  added?: Tile | null;
}

export interface HandSeat {
  seat: number;
  /** the tiles in hand, or null while hidden (another seat's, until revealed) */
  hand: Tile[] | null;
  /** how many tiles the hand holds */
  count: number;
  melds: HandMeld[];
  discards: { tile: Tile; claimed: boolean }[];
  flowers: Tile[];
  decision: SeatState["decision"];
  escaped: boolean;
}

export interface HandState {
  handId: string | null;
  variant: string | null;
  dealer: number;
  dice: [number, number] | null;
  /** tiles left in the wall */
  wall: number;
  wild: WildView | null;
  seats: HandSeat[];
  /** the tile this seat just drew (null: none, or another seat's hidden draw) */
  drawn: Tile | null;
  /** the seat whose turn it is (null once the hand ended) */
  turn: number | null;
  /** every discard in order, with whether it was claimed */
  river: { seat: number; tile: Tile; claimed: boolean }[];
  penalties: { seat: number; reason: string; tile: Tile | null }[];
  wins: WonPayload[];
  /** 流局: the wall ran out */
  drawnHand: boolean;
  /** the hand_ended payload, once the hand is over */
  ended: HandEndedPayload | null;
  /** the newest discard not claimed, the one a claim would take */
  lastDiscard: { seat: number; tile: Tile } | null;
  pendingFlower: { seat: number; tile: Tile; removed: boolean } | null;
}

export declare function emptyHand(): HandState;
/** apply one event payload in place; an unknown kind changes nothing */
export declare function applyEvent(h: HandState, e: EventPayload | { kind: string }, handId?: string | null): HandState;
/** the state a snapshot's view shows */
export declare function fromSnapshot(view: SnapshotMessage["view"], handId?: string | null): HandState;
export declare function removeOne(tiles: Tile[], code: Tile): boolean;
/** what `seat`'s silver moved by in a finished hand */
export declare function silverMoved(ended: HandEndedPayload, seat: number, stake: number): number;
