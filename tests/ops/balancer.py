"""The reverse proxy in front of the nodes, as far as a test's players can tell: a TCP
proxy on loopback that sends each new connection to the next node in its list (round
robin), and to the one after when a node refuses it (a proxy's `proxy_next_upstream
error`). A test takes nodes out and puts them in as a runbook step does with a real proxy;
a connection already open stays on its node until one side closes it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

CHUNK = 64 * 1024


class Balancer:
    def __init__(self) -> None:
        self.nodes: list[str] = []  # "host:port" of each node in service
        self.address = ""
        self._turn = 0
        self._pipes: set[asyncio.Task[None]] = set()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        for _ in range(len(self.nodes)):
            node = self.nodes[self._turn % len(self.nodes)]
            self._turn += 1
            host, port = node.rsplit(":", 1)
            with contextlib.suppress(OSError):
                return await asyncio.open_connection(host, int(port))
        return None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = await self._connect()
        if upstream is None:  # no node takes it: the client sees a refused connection
            writer.close()
            return
        up_reader, up_writer = upstream
        pipes = [asyncio.create_task(_pipe(reader, up_writer)),
                 asyncio.create_task(_pipe(up_reader, writer))]
        self._pipes.update(pipes)
        try:
            await asyncio.gather(*pipes, return_exceptions=True)
        finally:
            self._pipes.difference_update(pipes)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Balancer]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        host, port = server.sockets[0].getsockname()[:2]
        self.address = f"{host}:{port}"
        try:
            yield self
        finally:
            server.close()
            for pipe in list(self._pipes):
                pipe.cancel()
            await asyncio.gather(*self._pipes, return_exceptions=True)
            await server.wait_closed()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy `source` to `sink` until either side ends, then close `sink`."""
    try:
        while data := await source.read(CHUNK):
            sink.write(data)
            await sink.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        sink.close()
