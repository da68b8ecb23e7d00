"""A bare WebSocket echo server (the websockets library, nothing else): the yardstick the load
test measures the game server against. `python -m app.loadtest.echo PORT` (loopback only).
The port is bound with SO_REUSEPORT, so that the load test can start as many echo processes
on it as the game server has (the kernel spreads the connections over them)."""

from __future__ import annotations

import asyncio
import sys

from websockets.asyncio.server import ServerConnection, serve


async def echo(ws: ServerConnection) -> None:
    async for message in ws:
        await ws.send(message)


async def main(port: int) -> None:
    async with serve(echo, "127.0.0.1", port, max_size=2**20, ping_interval=None, reuse_port=True):
        await asyncio.Future()  # until the process is stopped


def run(port: int) -> None:
    try:
        import uvloop  # the game server runs on uvloop too (uvicorn[standard])

        uvloop.run(main(port))
    except ImportError:
        asyncio.run(main(port))


if __name__ == "__main__":
    try:
        run(int(sys.argv[1]))
    except KeyboardInterrupt:
        pass
