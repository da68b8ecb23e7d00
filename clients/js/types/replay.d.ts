// A recorded hand as steps for a replay viewer (src/replay.js), over the table model.

import type { EventPayload } from "./protocol.js";
import type { HandState, Tile } from "./model.js";

export interface ReplayStep {
  /** the step's events: the deal (hand_started and the dealt events), else one event */
  events: EventPayload[];
  /** the table after them (a copy of its own) */
  state: HandState;
  /** the seat the step's event names, null for the deal and seatless events */
  actor: number | null;
  /** the tile drawn in this step; "hidden" for another seat's draw; null when none */
  drawn: Tile | "hidden" | null;
}

export declare function buildSteps(events: EventPayload[]): ReplayStep[];
