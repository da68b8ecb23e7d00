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
