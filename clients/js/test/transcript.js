// The documented hand (docs/protocol.md, "A complete hand": seat 0's side of a whole 丽水
// hand, kept equal to the server's output by the server's tests), as the kit's tests read it.
// No test here; a helper module.

import { readFileSync } from "node:fs";

const DOC = new URL("../../../docs/protocol.md", import.meta.url);

export function transcript() {
  const text = readFileSync(DOC, "utf8");
  const start = text.indexOf("```jsonl\n", text.indexOf("## A complete hand"));
  const end = text.indexOf("```\n", start + 8);
  return text.slice(start + 9, end).trim().split("\n").map((line) => JSON.parse(line));
}

// the event payloads seat 0 received, in order
export const transcriptEvents = () =>
  transcript().filter((m) => m.type === "event").map((m) => m.event);

// Bots' hands of every variant, each as one seat received it (test/hands.jsonl, written by
// the server's `python -m tests.kit.test_kit_hands`, which holds them to the server):
// [{handId, variant, view, events, seqs}], together holding every event kind, set and
// ending the verifier follows.
export function kitHands() {
  const text = readFileSync(new URL("./hands.jsonl", import.meta.url), "utf8");
  const messages = text.trim().split("\n").map((line) => JSON.parse(line));
  const hands = new Map();
  for (const m of messages) {
    if (!hands.has(m.hand_id)) {
      const [variant, , seat] = m.hand_id.split("-");
      hands.set(m.hand_id, { handId: m.hand_id, variant, view: Number(seat.slice(4)), events: [], seqs: [], messages: [] });
    }
    const hand = hands.get(m.hand_id);
    hand.events.push(m.event);
    hand.seqs.push(m.seq);
    hand.messages.push(m);
  }
  return [...hands.values()];
}
