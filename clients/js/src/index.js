// @zjmahjong/client: a client kit for the zjmahjong table protocol, version 2
// (docs/protocol.md). Plain ES modules with no dependency and no DOM: the same files run in
// Node, a browser (the server's own client imports them from /static/kit/), React Native or
// a mini-program. Typed by types/*.d.ts.

export { ProtocolClient, VERSION, CLOSE, HARMLESS } from "./protocol.js";
export { emptyHand, applyEvent, fromSnapshot, removeOne, silverMoved } from "./model.js";
export { buildSteps } from "./replay.js";
export { checkHand, checkTranscript, HandProof, parseTranscript, readHands } from "./verify.js";
