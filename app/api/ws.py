"""The table WebSocket `/ws` (protocol version 2, docs/protocol.md).

Rules:
- ``/ws/<table_id>`` is the same socket: the id only asks, with several processes on one
  machine, for the connection to be served by the process that owns that table
  (app/ops/handoff.py), so that the table's messages need not cross between processes;
- before the handshake is accepted (app/api/ws_edge.py): a foreign `Origin` is refused with
  403 (`forbidden`), and a client address with `ws_connections_per_address` sockets open
  on this node with 429 (`rate_limited`); the query string is taken out of the request
  before anything logs it;
- a handshake with any query string is accepted and closed at once with 4401: the token
  never travels in the URL;
- the first message is ``hello`` with the access token, within `ws_hello_seconds`;
  anything else, nothing in time, or a bad, expired or banned account's token closes the
  socket with 4401; the token is checked like a bearer token (`account_for_token`); when
  the database cannot be asked (an outage), the socket closes with 1013 ("try again
  later", reason `busy`) rather than failing inside the server;
- an account that opened `ws_connects_per_account` sockets within the window (app/api/
  throttle.py) has the new one closed after its hello with 4429 (`CLOSE_TOO_MANY`, the
  reason saying when to retry);
- one connection per account: a second one closes the older with code 4000;
- a ban closes the account's socket at once with code 4004 (`CLOSE_BANNED`), on whichever
  node holds it; its seat escapes (during a hand) or is freed;
- once the server has decided to close a socket (4000, 4003, 4004, 4008) nothing more it
  sends is routed: frames still in flight are read and dropped until the close goes out;
- on connecting (and on ``resume``) a seated account gets ``seated`` and ``table_state``
  for each table it sits at; an account kicked by an administrator gets an ``error``
  (``kicked``) and, sitting at no other table, the socket closes with code 4003;
- each text frame is one client message (`parse_client`); a refused message answers an
  ``error`` with its code and the connection stays open (only `wrong_table` names a table
  the account does not sit at);
- `action`, `resume`, `autoplay` and `leave` go to the inbox of the table's actor for the
  seat this account holds there; `ping` is answered with ``pong`` (`app.tables.routing`);
- at most `RATE_LIMIT` messages per second per connection; the frames beyond are dropped,
  answered by at most one ``rate_limited`` error a second;
- what the server sends waits in the connection's queue (the table never waits on a
  client); a client that does not read it is closed with 4008 (`CLOSE_TOO_SLOW`) as soon
  as more than `ws_send_queue_bytes` wait for it (they are dropped at once), or when one
  message has waited `ws_send_timeout` seconds for the connection to take it (uvicorn's
  `send` waits while its write buffer is over its high-water mark, 64 KiB: the peer's
  TCP window is shut); the close frame itself goes out only if the connection takes it;
- what a watched table sends (旁观: `watch`) is queued as watched: more than
  `ws_watch_queue_bytes` of it waiting closes the socket with 4009 (`CLOSE_WATCH_TOO_SLOW`,
  the queue dropped at once): a spectator that does not read is dropped, and no table
  waits for it. A socket watches one table at a time: a `watch` of another table ends the
  one before, and so does the socket's closing or its replacement by a newer one;
- closing the socket tells every table the account sits at that the seat is disconnected
  (not an escape: 托管 plays its timeouts, RULES.md 1).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from fastapi import APIRouter, WebSocket
from sqlalchemy.exc import SQLAlchemyError

from app.api.errors import ApiError, error_response
from app.api.security import account_for_token
from app.api.throttle import Bars
from app.api.ws_edge import AddressSlots, client_address, origin_allowed, take_query
from app.ops import logging as ops_logging
from app.ops import metrics
from app.ops.transport import SEND_MANY
from app.protocol import (
    ErrorMessage,
    ServerMessage,
    UnwatchMessage,
    WatchMessage,
    hello_version,
    parse_client,
    parse_hello,
)
from app.protocol.encode import Encoded
from app.settings import Settings
from app.store.models import Account
from app.tables.messages import Disconnected
from app.tables.registry import TableRegistry
from app.tables.routing import route

__all__ = ["AddressSlots", "Connection", "router"]

log = logging.getLogger(__name__)

router = APIRouter()

CLOSE_UNAUTHORIZED = 4401
CLOSE_VERSION = 4426  # a hello naming a protocol version this server does not speak
CLOSE_REPLACED = 4000
CLOSE_TOO_SLOW = 4008
CLOSE_WATCH_TOO_SLOW = 4009  # a spectator let more than ws_watch_queue_bytes wait
CLOSE_TOO_MANY = 4429  # the account opened ws_connects_per_account sockets in the window
CLOSE_TRY_LATER = 1013  # the database could not be asked who the token is (RFC 6455: try again later)
RATE_LIMIT = 20  # messages per second per connection
RATE_WINDOW = 1.0
RATE_NOTICE_SECONDS = 1.0  # at most one rate_limited error in this time
SEND_MANY_BYTES = 16 * 1024  # written to a socket at once, at most (a message may pass it)


def _error(code: str, message: str) -> ErrorMessage:
    return ErrorMessage(code=code, message=message)  # type: ignore[arg-type]


class RateLimit:
    """At most `limit` messages in any `window` seconds (a sliding window)."""

    def __init__(self, limit: int = RATE_LIMIT, window: float = RATE_WINDOW) -> None:
        self._limit = limit
        self._window = window
        self._times: deque[float] = deque()

    def allow(self, now: float) -> bool:
        while self._times and now - self._times[0] >= self._window:
            self._times.popleft()
        if len(self._times) >= self._limit:
            return False
        self._times.append(now)
        return True


class Connection:
    """One socket: outgoing messages wait in a queue of at most `max_bytes` of text (the
    actor never waits on a client) and are written by `pump`, each within `send_timeout`
    seconds. `close` sends a close frame after what is already queued; an overflowing
    queue is dropped and closed with `CLOSE_TOO_SLOW`. Messages may come as models
    (`deliver`) or already as their text (`deliver_encoded`: the registry writes events and
    prompts once and shares an event's text between seats). What a watched table sends
    comes by `deliver_watched` and is held to `watch_max_bytes` of its own in the queue
    (`CLOSE_WATCH_TOO_SLOW` past it). `watching`: the table this socket watches, if any."""

    def __init__(
        self,
        websocket: WebSocket,
        max_bytes: int,
        send_timeout: float,
        watch_max_bytes: int | None = None,
    ) -> None:
        self._websocket = websocket
        self._max_bytes = max_bytes
        self._watch_max_bytes = watch_max_bytes if watch_max_bytes is not None else max_bytes
        self._send_timeout = send_timeout
        self._out: deque[tuple[Encoded, bool]] = deque()  # (message, watched)
        self._wake = asyncio.Event()
        self._close_code: int | None = None
        self._writing = 0  # the size of the text being written
        self._writing_watched = 0  # the same, when it is a watched table's
        self.queued_bytes = 0  # the text waiting for the client, and the one being written
        self.watched_bytes = 0  # the part of it that watched tables sent
        self.closing = False  # a close was asked for: nothing more is queued or routed
        self.watching: str | None = None

    def deliver(self, message: ServerMessage) -> None:
        if not self.closing:
            self.deliver_encoded(Encoded(message.type, message.model_dump_json()))

    def deliver_watched(self, encoded: Encoded) -> None:
        self.deliver_encoded(encoded, watched=True)

    def deliver_encoded(self, encoded: Encoded, *, watched: bool = False) -> None:
        if self.closing:
            return
        size = len(encoded.text)
        self.queued_bytes += size
        if watched:
            self.watched_bytes += size
        if self.queued_bytes > self._max_bytes or self.watched_bytes > self._watch_max_bytes:
            code = CLOSE_TOO_SLOW if self.queued_bytes > self._max_bytes else CLOSE_WATCH_TOO_SLOW
            self._out.clear()
            self.queued_bytes = self._writing
            self.watched_bytes = self._writing_watched
            log.warning("more than %d bytes wait for a client: its socket is closed (%d)",
                        self._max_bytes if code == CLOSE_TOO_SLOW else self._watch_max_bytes,
                        code)
            self.close(code)
            return
        self._out.append((encoded, watched))
        self._wake.set()

    def close(self, code: int) -> None:
        if not self.closing:
            self.closing = True
            self._close_code = code
            self._wake.set()

    async def pump(self) -> None:
        """Write the queue in order, then the close frame; returns once the close is sent,
        or when the client has not taken a message for `send_timeout` seconds. Over our
        uvicorn protocol (`SEND_MANY`) what waits is written at once, up to `SEND_MANY_BYTES`
        (several frames, one write to the socket), and a write the transport takes at once
        arms no timer."""
        extension = self._websocket.scope.get("extensions", {}).get(SEND_MANY)
        writable: asyncio.Event | None = None if extension is None else extension["writable"]
        try:
            while True:
                if self._out:
                    texts = self._take(writable is not None)
                    if writable is not None and writable.is_set():
                        await self._write(texts)  # returns without waiting
                    else:
                        async with asyncio.timeout(self._send_timeout):
                            await self._write(texts)
                    self.queued_bytes -= self._writing
                    self.watched_bytes -= self._writing_watched
                    self._writing = self._writing_watched = 0
                elif self._close_code is not None:
                    metrics.message_out(self._close_code)
                    async with asyncio.timeout(self._send_timeout):
                        await self._websocket.close(code=self._close_code)
                    return
                else:
                    self._wake.clear()
                    await self._wake.wait()
        except TimeoutError:
            self.closing = True
            log.warning("a client took no message for %g s: its socket is dropped (%d)",
                        self._send_timeout, CLOSE_TOO_SLOW)

    async def _write(self, texts: list[str]) -> None:
        if len(texts) == 1:
            await self._websocket.send_text(texts[0])
        else:
            await self._websocket.send({"type": "websocket.send", "texts": texts})

    def _take(self, many: bool) -> list[str]:
        """The next message, or (`many`) the messages waiting, up to `SEND_MANY_BYTES`:
        their texts, counted as being written."""
        texts: list[str] = []
        while self._out and (not texts or (many and self._writing < SEND_MANY_BYTES)):
            item, watched = self._out.popleft()
            size = len(item.text)
            self._writing += size
            if watched:
                self._writing_watched += size
            metrics.message_out(item)
            texts.append(item.text)
        return texts


@router.websocket("/ws/{table_id}")
async def table_socket_for(websocket: WebSocket, table_id: str) -> None:
    """`/ws` opened by a client that names the table it plays at: with several processes
    the connection is served by the table's own (app/ops/handoff.py). The id is a hint for
    that and nothing else: the socket is the same as `/ws`'s, for every table the account
    sits at, whatever it names."""
    await table_socket(websocket)


@router.websocket("/ws")
async def table_socket(websocket: WebSocket) -> None:
    app = websocket.app
    settings: Settings = app.state.settings
    query = take_query(websocket)
    if not origin_allowed(websocket.headers, settings.ws_allowed_origins):
        await websocket.send_denial_response(
            error_response("forbidden", "this page's origin may not open the table socket")
        )
        return
    slots: AddressSlots = app.state.ws_slots
    address = client_address(websocket)
    if not slots.take(address):
        await websocket.send_denial_response(
            error_response("rate_limited", "too many table sockets open from this address")
        )
        return
    try:
        await websocket.accept()
        if query:
            await websocket.close(
                CLOSE_UNAUTHORIZED, "no query string: the token goes in the hello message"
            )
            return
        account = await _hello(websocket, settings)
        if account is None:
            return
        bars: Bars = app.state.request_bars
        retry_after = await bars.retry_after("websocket", None, account.id)
        if retry_after is not None:
            await websocket.close(
                CLOSE_TOO_MANY, f"too many connections; try again in {retry_after} s"
            )
            return
        await _serve(websocket, account.id, settings)
    finally:
        slots.give_back(address)


async def _hello(websocket: WebSocket, settings: Settings) -> Account | None:
    """The account of the socket's ``hello``; None once the socket is closed (4401)."""
    try:
        async with asyncio.timeout(settings.ws_hello_seconds):
            frame = await websocket.receive()
    except TimeoutError:
        await websocket.close(CLOSE_UNAUTHORIZED, "no hello in time")
        return None
    if frame["type"] == "websocket.disconnect":
        return None
    raw = frame.get("text") or frame.get("bytes") or b""
    hello = parse_hello(raw)
    if hello is None and (other := hello_version(raw)) is not None:
        await websocket.close(  # a client of another version: say which this server speaks
            CLOSE_VERSION, f"protocol version {other!r} is not served here; versions: 2"
        )
        return None
    if hello is None:
        await websocket.close(
            CLOSE_UNAUTHORIZED, 'the first message is {"v": 2, "type": "hello", "token": ...}'
        )
        return None
    try:
        async with websocket.app.state.db.sessions() as session:
            return await account_for_token(session, hello.token, settings)
    except ApiError as refused:  # a bad or expired token, a deleted or banned account
        await websocket.close(CLOSE_UNAUTHORIZED, refused.code)
        return None
    except (SQLAlchemyError, OSError):  # the database is away: the client retries later
        log.warning("a socket's hello could not be checked: the database did not answer",
                    exc_info=True)
        await websocket.close(CLOSE_TRY_LATER, "busy")
        return None


async def _serve(websocket: WebSocket, account_id: int, settings: Settings) -> None:
    ops_logging.bind_account(account_id)
    registry: TableRegistry = websocket.app.state.tables
    connection = Connection(
        websocket, settings.ws_send_queue_bytes, settings.ws_send_timeout,
        settings.ws_watch_queue_bytes,
    )
    old = registry.connections.connect(account_id, connection)
    if old is not None:
        old.close(CLOSE_REPLACED)
        watched = getattr(old, "watching", None)
        if watched is not None:  # its watch ends with it (on another node, by a message)
            route(UnwatchMessage(table_id=watched), registry, account_id)
    metrics.connection_opened()
    writer = asyncio.create_task(connection.pump())
    reader = asyncio.create_task(_read(websocket, connection, registry, account_id))
    try:
        await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        metrics.connection_closed()
        for task in (writer, reader):
            task.cancel()
        await asyncio.gather(writer, reader, return_exceptions=True)
        for table_id, seat in registry.connections.disconnect(account_id, connection):
            registry.require(table_id).table.submit(Disconnected(seat))


async def _read(
    websocket: WebSocket, connection: Connection, registry: TableRegistry, account_id: int
) -> None:
    limit = RateLimit()
    noticed = -RATE_NOTICE_SECONDS  # when the last rate_limited error was sent
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return
        if connection.closing:
            continue  # replaced, kicked, banned or too slow: nothing more reaches a table
        now = time.monotonic()
        if not limit.allow(now):
            if now - noticed >= RATE_NOTICE_SECONDS:
                noticed = now
                connection.deliver(
                    _error("rate_limited", f"at most {RATE_LIMIT} messages a second")
                )
            continue
        raw = frame.get("text")
        if raw is None:
            raw = frame.get("bytes") or b""
        parsed = parse_client(raw)
        metrics.message_in(parsed)
        if isinstance(parsed, ErrorMessage):
            connection.deliver(parsed)
            continue
        if isinstance(parsed, WatchMessage | UnwatchMessage):
            _watching(parsed, connection, registry, account_id)
        answer = route(parsed, registry, account_id)
        if answer is not None:
            connection.deliver(answer)


def _watching(
    message: WatchMessage | UnwatchMessage,
    connection: Connection,
    registry: TableRegistry,
    account_id: int,
) -> None:
    """A socket watches one table at a time: a watch of another table ends the one before."""
    before = connection.watching
    if isinstance(message, WatchMessage):
        if before is not None and before != message.table_id:
            route(UnwatchMessage(table_id=before), registry, account_id)
        connection.watching = message.table_id
    elif before == message.table_id:
        connection.watching = None
