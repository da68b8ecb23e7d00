"""The table WebSocket: `/ws?token=<access token>`.

Rules:
- the token is checked like a bearer token (`account_for_token`); a bad, expired or banned
  one closes the socket with code 4401;
- one connection per account: a second one closes the older with code 4000;
- a ban closes the account's socket at once with code 4004 (`CLOSE_BANNED`), on whichever
  node holds it; its seat escapes (during a hand) or is freed;
- once the server has decided to close a socket (4000, 4003, 4004) nothing more it sends
  is routed: frames still in flight are read and dropped until the close goes out;
- on connecting (and on ``resume``) a seated account gets ``seated`` and ``table_state``
  for each table it sits at; an account kicked by an administrator gets an ``error``
  (``kicked``) and, sitting at no other table, the socket closes with code 4003;
- each text frame is one client message (`parse_client`); a refused message answers an
  ``error`` with its code and the connection stays open (only `wrong_table` names a table
  the account does not sit at);
- `action`, `resume`, `autoplay` and `leave` go to the inbox of the table's actor for the
  seat this account holds there; `ping` is answered with ``pong`` (`app.tables.routing`);
- at most `RATE_LIMIT` messages per second per connection (``rate_limited`` beyond);
- closing the socket tells every table the account sits at that the seat is disconnected
  (not an escape: 托管 plays its timeouts, RULES.md 1).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from fastapi import APIRouter, WebSocket

from app.api.errors import ApiError
from app.api.security import account_for_token
from app.ops import logging as ops_logging
from app.ops import metrics
from app.protocol import ErrorMessage, ServerMessage, parse_client
from app.protocol.encode import Encoded
from app.tables.messages import Disconnected
from app.tables.registry import TableRegistry
from app.tables.routing import route

log = logging.getLogger(__name__)

router = APIRouter()

CLOSE_UNAUTHORIZED = 4401
CLOSE_REPLACED = 4000
RATE_LIMIT = 20  # messages per second per connection
RATE_WINDOW = 1.0


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
    """One socket: outgoing messages are queued (the actor never waits on a client) and
    written by `pump`; `close` queues a close frame after what is already queued. Messages
    may come as models (`deliver`) or already as their text (`deliver_encoded`: the
    registry writes events and prompts once and shares an event's text between seats)."""

    def __init__(self, websocket: WebSocket) -> None:
        self._websocket = websocket
        self._out: asyncio.Queue[ServerMessage | Encoded | int] = asyncio.Queue()
        self.closing = False  # a close was queued: what the client sends is dropped

    def deliver(self, message: ServerMessage) -> None:
        self._out.put_nowait(message)

    def deliver_encoded(self, encoded: Encoded) -> None:
        self._out.put_nowait(encoded)

    def close(self, code: int) -> None:
        self.closing = True
        self._out.put_nowait(code)

    async def pump(self) -> None:
        while True:
            item = await self._out.get()
            if isinstance(item, int):
                await self._websocket.close(code=item)
                return
            metrics.message_out(item)
            text = item.text if isinstance(item, Encoded) else item.model_dump_json()
            await self._websocket.send_text(text)


@router.websocket("/ws")
async def table_socket(websocket: WebSocket, token: str = "") -> None:
    await websocket.accept()
    app = websocket.app
    try:
        async with app.state.db.sessions() as session:
            account = await account_for_token(session, token, app.state.settings)
    except ApiError:  # unauthorized (a bad or expired token, a deleted account) or banned
        await websocket.close(code=CLOSE_UNAUTHORIZED)
        return
    ops_logging.bind_account(account.id)
    registry: TableRegistry = app.state.tables
    connection = Connection(websocket)
    old = registry.connect(account.id, connection)
    if old is not None:
        old.close(CLOSE_REPLACED)
    metrics.connection_opened()
    writer = asyncio.create_task(connection.pump())
    reader = asyncio.create_task(_read(websocket, connection, registry, account.id))
    try:
        await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        metrics.connection_closed()
        for task in (writer, reader):
            task.cancel()
        await asyncio.gather(writer, reader, return_exceptions=True)
        for table_id, seat in registry.disconnect(account.id, connection):
            registry.submit(table_id, Disconnected(seat))


async def _read(
    websocket: WebSocket, connection: Connection, registry: TableRegistry, account_id: int
) -> None:
    limit = RateLimit()
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return
        if connection.closing:
            continue  # replaced, kicked or banned: nothing more of it reaches a table
        raw = frame.get("text")
        if raw is None:
            raw = frame.get("bytes") or b""
        if not limit.allow(time.monotonic()):
            connection.deliver(_error("rate_limited", f"at most {RATE_LIMIT} messages a second"))
            continue
        parsed = parse_client(raw)
        metrics.message_in(parsed)
        if isinstance(parsed, ErrorMessage):
            connection.deliver(parsed)
            continue
        answer = route(parsed, registry, account_id)
        if answer is not None:
            connection.deliver(answer)

