"""uvicorn's websockets-sansio protocol with the two limits a peer that does not read needs
(app/ops/serve.py serves every WebSocket with it).

uvicorn 0.54's `send` waits while the transport's write buffer is over its high-water mark
(64 KiB), which bounds what the app writes; but the protocol answers every ping with a
pong written straight into that buffer, read or not: a client that sends pings and reads
nothing grew a node by 83 MB in 10 s. And once the app is done with a socket, uvicorn
closes the transport gracefully, which waits for the buffer to drain: a peer that never
reads kept the transport, its descriptor and its buffers for ever.

Rules:
- while the write buffer is over its high-water mark, a peer's pings are not answered
  (the peer is not reading them anyway);
- a transport still open `LINGER_SECONDS` after the app is done with it is reset (the
  closing handshake has `close_timeout`, 10 s, of that): aborted with SO_LINGER 0, so that
  the kernel sends RST and frees its buffers too instead of keeping an orphan that probes
  the peer's shut window.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from contextlib import suppress

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

LINGER_SECONDS = 30.0


class EdgeWebSocketProtocol(WebSocketsSansIOProtocol):
    def handle_ping(self) -> None:
        if self.writable.is_set():
            super().handle_ping()
        else:
            self.conn.data_to_send()  # the pong is dropped

    def on_task_complete(self, task: asyncio.Task[None]) -> None:
        super().on_task_complete(task)
        self.loop.call_later(LINGER_SECONDS, self._abort_if_open)

    def _abort_if_open(self) -> None:
        if self.disconnected:
            return
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()
