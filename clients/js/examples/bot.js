// A whole bot: node examples/bot.js http://127.0.0.1:8000 USERNAME PASSWORD (a registered account)
// It logs in, opens a 丽水 table, sits, lets the house's bots fill the other seats, plays one
// hand (discards the tile it drew, passes every claim), then checks the hand against its seed.
import { ProtocolClient, applyEvent, checkHand, emptyHand } from "@zjmahjong/client";
const WebSocket = globalThis.WebSocket ?? (await import("ws")).WebSocket; // Node 20: npm i ws
const [base, username, password] = process.argv.slice(2);
const post = async (path = "", body = {}, token = "") => {
  const r = await fetch(base + path, { method: "POST", body: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
  return r.ok ? r.json() : Promise.reject(new Error(`${path}: ${r.status} ${await r.text()}`)); };
const { access_token: token } = await post("/auth/login", { username, password });
const table = await post("/tables", { variant: "lishui", stake: 1 }, token);
await post(`/tables/${table.id}/sit`, { seat: 0 }, token);
const hand = emptyHand(), /** @type {any[]} */ events = [];
const client = new ProtocolClient({ url: `${base.replace(/^http/, "ws")}/ws`, token: () => token,
  WebSocket, onStatus: (status, detail) => console.log(status, detail ?? ""),
  onEvent: ({ event: e }) => { applyEvent(hand, e), events.push(e);
    if (e.kind === "hand_ended") console.log(e.outcome, checkHand(events)), client.close(); },
  onPrompt: ({ table_id, legal_actions: legal, timeout_action: fallback }) => client.act(table_id,
    legal.find((a) => a.type === "pass") ??
    legal.find((a) => a.type === "discard" && a.tile === hand.drawn) ?? fallback) });
client.follow(table.id), client.connect();
await post(`/tables/${table.id}/fill-bots`, {}, token);
