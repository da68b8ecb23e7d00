"""A test's client of the table WebSocket (protocol version 2): open `/ws`, then say hello
with the access token as the first message (the token never goes in the URL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from app.protocol import HelloMessage


def hello(token: str) -> str:
    """The first message of a socket, for `token`."""
    return HelloMessage(v=2, token=token).model_dump_json()


async def open_socket(address: str, token: str, **options: Any) -> ClientConnection:
    """A socket to `ws://address/ws` that has said hello (`options` go to `connect`)."""
    ws = await connect(f"ws://{address}/ws", **options)
    await ws.send(hello(token))
    return ws


@asynccontextmanager
async def table_socket(address: str, token: str, **options: Any) -> AsyncIterator[ClientConnection]:
    """`open_socket` for the block, closed after it."""
    ws = await open_socket(address, token, **options)
    try:
        yield ws
    finally:
        await ws.close()
