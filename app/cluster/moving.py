"""A client's message for a table that no node serves this moment, sent on once a node does.

A table moves when its owner stops (a rolling restart: SIGTERM stops its actors, then gives
its leases back) or dies (its lease expires); another node takes it over two
`WATCH_INTERVAL_MS` after the lease is gone (docs/cluster.md, "Leases and fencing"). A
message that arrived meanwhile, usually the `resume` of a player whose socket the stopping
node closed, was answered `internal` at once, which the browser shows as "the server
failed". Now it waits for the table's next owner, looked for every `RETRY_SECONDS`, for at
most `WAIT_SECONDS` (a takeover takes `LEASE_MS` plus two `WATCH_INTERVAL_MS` after a death:
4 s with the defaults); only then is it refused as before.

Who holds it: the node holding the player's socket, while no node holds the table's lease
(`forward`); the table's old owner, while it still holds the lease of a table it no longer
serves (stopping, or taking it over: `serve`), without publishing to itself. Order: messages
held together are sent again in the order they came (one pause each).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from app.cluster.writer import Done

RETRY_SECONDS = 0.1
WAIT_SECONDS = 10.0

Send = Callable[[str, str, Done], None]
"""Publish a payload to the holder of a table's lease (`Routing.to_table`)."""


def _always() -> bool:
    return True


@dataclass
class Pending:
    """One client message (`payload`, a `ToTable`'s JSON) on its way to `table_id`'s owner."""

    table_id: str
    payload: str
    send: Send
    mine: Callable[[str], bool]  # this node holds the table's lease
    here: Callable[[], bool]  # the table is served on this node now
    serve_here: Callable[[], None]
    give_up: Callable[[object], None]  # the last result: -1 no such table, else nobody took it
    alive: Callable[[], bool] = _always  # False: dropped (the socket closed meanwhile)
    deadline: float = field(default=0.0, init=False)

    def start(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
        self._attempt()

    def _attempt(self) -> None:
        if not self.alive():
            return
        if self.here():
            self.serve_here()
        elif self.mine(self.table_id):  # our lease, not (or no longer) our table: wait
            self._later(0)
        else:
            self.send(self.table_id, self.payload, self._routed)

    def _routed(self, result: object) -> None:
        if isinstance(result, int) and result > 0:
            return  # the owner has it and answers
        if result == -1:  # no such table (closed meanwhile)
            self.give_up(result)
            return
        self._later(result)  # -2: listed, nobody holds it; 0: its owner stopped listening

    def _later(self, result: object) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() + RETRY_SECONDS < self.deadline:
            loop.call_later(RETRY_SECONDS, self._attempt)
        else:
            self.give_up(result)
