"""What waits in a socket's queue goes out in one write over our uvicorn protocol
(`SEND_MANY`), in order and whole; elsewhere one frame per send, as before."""

from __future__ import annotations

import asyncio
from typing import Any

from app.api.ws import SEND_MANY_BYTES, Connection
from app.ops.transport import SEND_MANY
from app.protocol.encode import Encoded


class RecordingSocket:
    """A WebSocket that records what each send carried."""

    def __init__(self, many: bool) -> None:
        writable = asyncio.Event()
        writable.set()
        self.scope: dict[str, Any] = {
            "extensions": {SEND_MANY: {"writable": writable}} if many else {}
        }
        self.sends: list[list[str]] = []

    async def send_text(self, text: str) -> None:
        self.sends.append([text])

    async def send(self, message: dict[str, Any]) -> None:
        assert message["type"] == "websocket.send"
        self.sends.append(list(message["texts"]))

    async def close(self, code: int) -> None:
        self.sends.append([f"close {code}"])


async def _written(many: bool, texts: list[str]) -> tuple[list[list[str]], Connection]:
    socket = RecordingSocket(many)
    connection = Connection(socket, max_bytes=1 << 20, send_timeout=5)  # type: ignore[arg-type]
    for text in texts:  # queued before the pump runs, as a table's step queues them
        connection.deliver_encoded(Encoded("event", text))
    connection.close(1000)
    await asyncio.wait_for(connection.pump(), 5)
    return socket.sends, connection


async def test_the_waiting_messages_are_one_write_in_order() -> None:
    texts = [f'{{"n":{n}}}' for n in range(5)]
    sends, connection = await _written(True, texts)
    assert sends == [texts, ["close 1000"]]
    assert connection.queued_bytes == 0


async def test_a_write_stops_at_its_size_and_the_rest_follows() -> None:
    big = "x" * (SEND_MANY_BYTES // 3 + 1)
    texts = [big + str(n) for n in range(7)]
    sends, connection = await _written(True, texts)
    assert [len(s) for s in sends[:-1]] == [3, 3, 1]  # the third passes the size: then a write
    assert [t for s in sends[:-1] for t in s] == texts
    assert connection.queued_bytes == 0


async def test_without_the_extension_each_message_is_a_send() -> None:
    texts = ["a", "b", "c"]
    sends, _ = await _written(False, texts)
    assert sends == [["a"], ["b"], ["c"], ["close 1000"]]
