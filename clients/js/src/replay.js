// A recorded hand as a list of steps for a replay viewer (GET /hands/{id}/replay): the table
// after each step, rebuilt by the same reducer as live play (model.js). No DOM here.
//
// The deal (hand_started and the dealt events after it) is one step; every later event one
// more. Each step is {events, state, actor, drawn}: `state` is the reducer's state after the
// step's events (a copy of its own: steps share nothing), `actor` the seat the step's event
// names (null for the deal and events of no seat), `drawn` the tile that seat drew in this
// step ("hidden" for another seat's draw in a player's replay; null when the step drew none),
// so a viewer can show the draw beside the hand for that step only.

import { applyEvent, emptyHand } from "./model.js";

export function buildSteps(events) {
  const steps = [];
  const state = emptyHand();
  let i = 0;
  const opening = [];
  while (i < events.length && (events[i].kind === "hand_started" || events[i].kind === "dealt")) {
    applyEvent(state, events[i]);
    opening.push(events[i]);
    i += 1;
  }
  if (opening.length) steps.push({ events: opening, state: structuredClone(state), actor: null, drawn: null });
  for (; i < events.length; i++) {
    const e = events[i];
    applyEvent(state, e);
    steps.push({
      events: [e], state: structuredClone(state), actor: "seat" in e ? e.seat : null,
      drawn: e.kind === "drew" ? (e.tile ?? "hidden") : null,
    });
  }
  return steps;
}
