// The client kit's verifier on the cases tests/kit/test_verify_agrees.py sends on standard
// input (a JSON array): {events, shuffle?} is checked with checkHand, {messages} with
// checkTranscript. Writes the verdicts, one per case (a list for a transcript), as JSON.

import { readFileSync } from "node:fs";

import { checkHand, checkTranscript } from "../../clients/js/src/verify.js";

const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map((c) => (c.messages
  ? checkTranscript(c.messages)
  : checkHand(c.events, { shuffle: c.shuffle ?? null })));
process.stdout.write(JSON.stringify(out));
