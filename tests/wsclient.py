"""A test's client of the table WebSocket (protocol version 2): open `/ws`, then say hello
with the access token as the first message (the token never goes in the URL)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from app.protocol import HelloMessage

SEND_BUDGET = 16  # client-side pacing: at most this many frames in any second (server: 20)
HANDSHAKE_SECONDS = 30.0  # websockets waits 10 s by default


class Pacer:
    """At most `limit` sends in any one-second window, so the server's 20 msgs/s rate
    limit never drops a message the test counts on."""

    def __init__(self, limit: int = SEND_BUDGET) -> None:
        self._limit = limit
        self._times: deque[float] = deque()

    async def wait(self) -> None:
        while True:
            now = time.monotonic()
            while self._times and now - self._times[0] >= 1.0:
                self._times.popleft()
            if len(self._times) < self._limit:
                self._times.append(now)
                return
            await asyncio.sleep(1.0 - (now - self._times[0]) + 0.01)


def hello(token: str) -> str:
    """The first message of a socket, for `token`."""
    return HelloMessage(v=2, token=token).model_dump_json()


async def open_socket(
    address: str, token: str, path: str = "/ws", **options: Any
) -> ClientConnection:
    """A socket to `ws://address/ws` (or `path`: ``/ws/<table_id>``) that has said hello
    (`options` go to `connect`). The handshake may take up to `HANDSHAKE_SECONDS`: a test
    server playing many tables of bots at full speed answers late on a loaded machine, and
    the test's own deadline bounds it."""
    options = {"open_timeout": HANDSHAKE_SECONDS} | options
    ws = await connect(f"ws://{address}{path}", **options)
    await ws.send(hello(token))
    return ws


@asynccontextmanager
async def table_socket(
    address: str, token: str, path: str = "/ws", **options: Any
) -> AsyncIterator[ClientConnection]:
    """`open_socket` for the block, closed after it."""
    ws = await open_socket(address, token, path, **options)
    try:
        yield ws
    finally:
        await ws.close()
