// Type-checked by `npm test` (tsc, no emit), never run: the kit's declarations type a bot as
// an editor would, and each @ts-expect-error fails the check if the types grow too loose.

import {
  ProtocolClient, applyEvent, buildSteps, checkHand, checkTranscript, emptyHand,
  type Action, type EventOf, type EventPayload, type ServerMessage,
} from "@zjmahjong/client";

const hand = emptyHand();
const events: EventPayload[] = [];
const client = new ProtocolClient({
  url: "ws://127.0.0.1:8000/ws",
  token: async () => "access token",
  onEvent: (m) => {
    applyEvent(hand, m.event, m.hand_id);
    events.push(m.event);
    if (m.event.kind === "drew") {
      const tile: string | null = m.event.tile;
      // @ts-expect-error: a draw has no meld
      void m.event.meld;
      void tile;
    }
    if (m.event.kind === "hand_ended") {
      const verdict = checkHand(events);
      const status: "verified" | "failed" | "test_mode" | "incomplete" | "partial" = verdict.status;
      const where: number | null = verdict.event ?? verdict.seq;
      // @ts-expect-error: not a check the verifier names
      if (verdict.what === "score") void 0;
      void status, where;
    }
  },
  onPrompt: (m) => {
    const discard: Action | undefined = m.legal_actions.find((a) => a.type === "discard");
    client.act(m.table_id, discard ?? m.timeout_action);
  },
  onError: (error, sent) => {
    const code: string = error.code; // open: a code to come is still a string
    void code;
    void sent?.type;
  },
  onStatus: (status, detail) => {
    if (status === "reconnecting") void detail?.wait;
    // @ts-expect-error: not a status
    if (status === "asleep") void 0;
  },
});

// @ts-expect-error: a discard names its tile
client.act("T1", { type: "discard" });
client.act("T1", { type: "discard", tile: "5m" });
export const dropped: boolean = client.reconnect("offline") || client.reconnect();
export const retried: boolean = client.retry();
// @ts-expect-error: a reason is a string
client.reconnect(1006);

export function seqOf(m: ServerMessage): number | null {
  switch (m.type) {
    case "event":
      return m.seq;
    case "prompt":
      return m.seq;
    default:
      return null; // the server may add types within a version
  }
}

export const won: EventOf<"won"> | null = null;
export const failures = checkTranscript([]).filter((v) => v.status === "failed").map((v) => v.message);
export const steps = buildSteps(events).map((step) => step.state.wall);
