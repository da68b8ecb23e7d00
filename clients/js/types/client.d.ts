// The connection (src/protocol.js): hand-written declarations of the kit's own API; the
// messages it carries are the generated ./protocol.d.ts.

import type {
  Action,
  ChatSaidMessage,
  ErrorMessage,
  EventMessage,
  MutedMessage,
  PromptMessage,
  RoomMessage,
  SeatedMessage,
  SnapshotMessage,
  TableStateMessage,
  TournamentMessage,
  WatchingMessage,
} from "./protocol.js";

/** The protocol version this client speaks. */
export declare const VERSION: 2;

/** The close codes the client acts on (docs/protocol.md, "Close codes"). */
export declare const CLOSE: {
  readonly REPLACED: 4000;
  readonly KICKED: 4003;
  readonly BANNED: 4004;
  readonly TOO_SLOW: 4008;
  readonly WATCH_TOO_SLOW: 4009;
  readonly UNAUTHORIZED: 4401;
  readonly TOO_MANY: 4429;
};

/** Refusals of an action's resent copy that mean "the first copy was taken". */
export declare const HARMLESS: ReadonlySet<string>;

/**
 * Where the connection is. `open` comes with the server's first frame on a socket (the
 * hello was taken), not when the socket opens. `reconnecting` comes with the close code and
 * reason and the wait before the next attempt; a socket the client gave up itself (no pong,
 * never opened, `reconnect()`) is reported with code 1006 and reason `pong_timeout`,
 * `open_timeout` or the reason given to `reconnect()`. `replaced`,
 * `kicked`, `banned`, `unauthorized` and `closed` are ends: nothing reconnects after them.
 */
export type ConnectionStatus =
  | "connecting"
  | "open"
  | "reconnecting"
  | "replaced"
  | "kicked"
  | "banned"
  | "unauthorized"
  | "closed";

export interface StatusDetail {
  /** the socket's close code (1006: lost without a close frame, or given up by the client) */
  code: number;
  /** the close reason; `pong_timeout` or `open_timeout` when the client gave the socket up */
  reason: string;
  /** `reconnecting`: milliseconds until the next attempt */
  wait?: number;
}

/** What a client sends after its hello, as `send` takes it (the client adds `v`). */
export interface Outgoing {
  type: string;
  table_id?: string;
  [field: string]: unknown;
}

/** The minimal WebSocket the client needs: a browser's, Node 22's global or the ws package's. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: any) => unknown) | null;
  onmessage: ((ev: any) => unknown) | null;
  onclose: ((ev: any) => unknown) | null;
  onerror: ((ev: any) => unknown) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketClass = new (url: string) => WebSocketLike;

export interface ProtocolClientOptions {
  /** the socket's URL: `wss://host/ws` (or `/ws/<table id>`, routed to the table's node) */
  url: string;
  /** the access token for `hello` (a string or a promise of one), asked on every connection */
  token: () => string | null | undefined | Promise<string | null | undefined>;
  /** after a 4401 close: get a new access token; a rejected promise ends the client */
  refresh?: () => Promise<unknown>;
  onEvent?: (m: EventMessage) => void;
  onPrompt?: (m: PromptMessage) => void;
  onSnapshot?: (m: SnapshotMessage) => void;
  onSeated?: (m: SeatedMessage) => void;
  onTableState?: (m: TableStateMessage) => void;
  onWatching?: (m: WatchingMessage) => void;
  onChat?: (m: ChatSaidMessage) => void;
  onMuted?: (m: MutedMessage) => void;
  onRoom?: (m: RoomMessage) => void;
  onTournament?: (m: TournamentMessage) => void;
  /** a refusal, with the action or resume that carried its `ref_seq` when known */
  onError?: (error: ErrorMessage, sent: Outgoing | null) => void;
  onStatus?: (status: ConnectionStatus, detail?: StatusDetail) => void;
  /** the WebSocket class: default `globalThis.WebSocket` (Node 20 has none: pass ws's) */
  WebSocket?: WebSocketClass;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
  now?: () => number;
  random?: () => number;
  /** ms between pings (20000) */
  pingMs?: number;
  /** ms after a ping within which the server must be heard, else the socket is dropped (10000) */
  pongTimeoutMs?: number;
  /** ms a socket may take to open before it is dropped (10000) */
  openTimeoutMs?: number;
  /** ms between resumes over the same gap (3000) */
  resyncMs?: number;
  /** the first reconnect pause, doubling (400), and its ceiling (8000) */
  backoffMs?: number;
  backoffMaxMs?: number;
  /** after `rate_limited`: ms sending nothing (1100), and how far back actions are resent (2000) */
  pauseMs?: number;
  resendWindowMs?: number;
  /** how many sent actions and resumes are kept for pairing refusals (32) */
  kept?: number;
}

/**
 * One WebSocket to the server, for every table the account sits at or watches: hello,
 * heartbeat with a pong timeout, reconnect with backoff and jitter, resume from the last
 * seq, events passed on in seq order and each once (duplicates dropped by seq).
 */
export declare class ProtocolClient {
  constructor(options: ProtocolClientOptions);
  /** the last status given to `onStatus` */
  readonly status: ConnectionStatus;
  /** the socket is open and the hello sent */
  readonly isOpen: boolean;
  /** open the socket (and again after each drop, until `close()` or an end) */
  connect(): void;
  /** close for good */
  close(): void;
  /** ping now; the socket is dropped and reconnected when the server stays silent */
  probe(): boolean;
  /**
   * the network is gone (a browser's `offline` event): drop the socket now, reported as
   * `reconnecting` (1006, `reason`, default "offline"), and connect again after the pause;
   * false when there is no socket to drop
   */
  reconnect(reason?: string): boolean;
  /**
   * try now (the network is back, the app is in the foreground, the player asked): an open
   * socket is probed, a pause before the next attempt is cut short; false once ended
   */
  retry(): boolean;
  /** follow a table the account sits at: resumed from `lastSeq` on every connection */
  follow(tableId: string, lastSeq?: number): void;
  unfollow(tableId: string): void;
  /** watch a table as a spectator (a private room's `code`, if any) */
  watch(tableId: string, code?: string | null): void;
  unwatch(tableId: string): Outgoing | null;
  /** the last event seq passed on for the table (0: none) */
  lastSeq(tableId: string): number;
  /** send an action with the table's last seq, and a ping (an answer is due); null when the socket is not open */
  act(tableId: string, action: Action): Outgoing | null;
  /** 托管 on or off; `level` says who plays the seat while on (left out: standard) */
  autoplay(tableId: string, on: boolean, level?: "standard" | "expert"): Outgoing | null;
  leave(tableId: string): Outgoing | null;
  sayReady(tableId: string): Outgoing | null;
  chat(tableId: string, phrase: string): Outgoing | null;
  mute(tableId: string, seat: number, on?: boolean): Outgoing | null;
  /** send `resume` (or `watch` for a watched table) now */
  resume(tableId: string): Outgoing | null;
  /** send any client message (the client adds `v`); null when the socket is not open */
  send(message: Outgoing): Outgoing | null;
}
