// @zjmahjong/client: the kit's API and the protocol's messages.

export * from "./client.js";
export { emptyHand, applyEvent, fromSnapshot, removeOne, silverMoved } from "./model.js";
export type { HandState, HandSeat, HandMeld, Tile } from "./model.js";
export { buildSteps } from "./replay.js";
export type { ReplayStep } from "./replay.js";
export { checkHand, checkTranscript, HandProof, parseTranscript, readHands } from "./verify.js";
export type { HandEvents, Shuffle, Verdict, VerdictStatus, VerdictWhat } from "./verify.js";
export type * from "./protocol.js";
