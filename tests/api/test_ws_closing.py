"""A socket the server is closing (banned, replaced by a newer login) has its frames read
to the end, but none of them reaches a table any more."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.api.ws import Connection, _read
from app.store.db import Database
from app.tables.bans import CLOSE_BANNED
from app.tables.registry import TableRegistry
from tests.tables.settlement.test_penalties import _accounts

QUEUE_BYTES = 1 << 20
SEND_TIMEOUT = 10.0


class FrameSocket:
    """The receiving side of a WebSocket: the frames given, then a disconnect."""

    def __init__(self, *texts: str) -> None:
        self._frames: list[dict[str, Any]] = [
            {"type": "websocket.receive", "text": t} for t in texts
        ] + [{"type": "websocket.disconnect"}]

    async def receive(self) -> dict[str, Any]:
        return self._frames.pop(0)


async def test_frames_after_the_close_reach_no_table(db: Database) -> None:
    (account,) = await _accounts(db, 1)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1)
    try:
        leave = json.dumps({"type": "leave", "table_id": live.table_id})
        socket = FrameSocket(leave)
        connection = Connection(socket, QUEUE_BYTES, SEND_TIMEOUT)  # type: ignore[arg-type]
        registry.connections.connect(account, connection)
        await registry.sit(live.table_id, account, 0)
        connection.close(CLOSE_BANNED)  # queued: the frame already sent comes in after
        await asyncio.wait_for(_read(socket, connection, registry, account), 5)  # type: ignore[arg-type]
        assert live.accounts()[0] == account  # the leave was not applied

        open_socket = FrameSocket(leave)
        fresh = Connection(open_socket, QUEUE_BYTES, SEND_TIMEOUT)  # type: ignore[arg-type]
        await asyncio.wait_for(_read(open_socket, fresh, registry, account), 5)  # type: ignore[arg-type]
        assert live.accounts()[0] is None  # the same frame on an open socket is
    finally:
        await registry.stop()
