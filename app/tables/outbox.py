"""A table's outbox (DESIGN.md, "A seat's outbox"): what the table sends each of its four
seats, and what each seat is owed.

- `seated` before anything else: while a seat's ``seated`` and ``table_state`` are owed
  (`hold`, a seat taken or a new socket of its player), what the table sends it waits
  behind them, in order, and goes once they are out (`release`);
- a seat whose player has no socket anywhere keeps the seq of the first event that reached
  none (`lost`): the player's next socket gets the hand from there (`take_lost`);
- each seat's current connection, from its last ``seated`` on: the first and last event
  seq it was sent (`sent`), so that a ``resume`` answers only what that connection has not
  been sent (docs/protocol.md, "Resuming": each missed event exactly once).
"""

from __future__ import annotations

import logging
from typing import Protocol

from app.tables.messages import EventOut, Outbound, SnapshotOut
from app.tables.sockets import Sockets
from app.tables.wire import WireTable, encoded_message, wire_message

log = logging.getLogger(__name__)


class OutboxTable(WireTable, Protocol):
    """What the outbox needs of its table besides the wire's: who sits where, and the
    seq of the last event sent."""

    def account_at(self, seat: int) -> int | None: ...

    @property
    def seq(self) -> int: ...


class Outbox:
    """The four seats' outbox of one table (the module's rules)."""

    def __init__(self, table: OutboxTable, sockets: Sockets) -> None:
        self._table = table
        self._sockets = sockets
        self._holding: set[int] = set()
        self._behind: dict[int, list[Outbound]] = {}
        self._lost: dict[int, int] = {}
        self._sent: dict[int, tuple[int, int]] = {}

    def send(self, seat: int, item: Outbound) -> None:
        """Send a table's item to a seat: after the seat's ``seated`` and ``table_state``
        when those are owed (a seat learns its seat before any event of a hand it is in)."""
        self._count(seat, item)
        if seat in self._holding:
            self._behind.setdefault(seat, []).append(item)
            return
        self._send_now(seat, item)

    def hold(self, seat: int, *, new_connection: bool = True) -> None:
        """The seat's ``seated`` and ``table_state`` are owed: what it is sent waits behind
        them. `new_connection`: they start what this connection of the seat is sent (a seat
        taken, a new socket), not a ``resume`` on the same one."""
        self._holding.add(seat)
        if new_connection:
            self._sent.pop(seat, None)

    def release(self, seat: int) -> None:
        """The seat's ``seated`` and ``table_state`` are out: send what waited behind them."""
        self._holding.discard(seat)
        for item in self._behind.pop(seat, []):
            self._send_now(seat, item)

    def holding(self, seat: int) -> bool:
        return seat in self._holding

    def take_lost(self, seat: int) -> int | None:
        """The first event seq the seat was sent that reached no socket, forgotten now."""
        return self._lost.pop(seat, None)

    def forget_lost(self, seat: int) -> None:
        self._lost.pop(seat, None)

    def sent(self, seat: int) -> tuple[int, int] | None:
        """The first and last event seq this connection of the seat was sent (or will be,
        in order: held ones count); after a snapshot, 0 and the last (the snapshot stands
        for every event up to its seq). None: nothing yet."""
        return self._sent.get(seat)

    def clear(self) -> None:
        self._holding.clear()
        self._behind.clear()
        self._lost.clear()
        self._sent.clear()

    def _count(self, seat: int, item: Outbound) -> None:
        if self._table.account_at(seat) is None:
            return
        if isinstance(item, EventOut):
            first, _ = self._sent.get(seat, (item.seq, item.seq))
            self._sent[seat] = (first, item.seq)
        elif isinstance(item, SnapshotOut):
            self._sent[seat] = (0, item.seq)

    def _send_now(self, seat: int, item: Outbound) -> None:
        table = self._table
        account = table.account_at(seat)
        if account is None:
            return
        try:
            reached = self._sockets.send(
                account,
                lambda: encoded_message(table, seat, item),
                lambda: wire_message(table, seat, item),
            )
        except Exception:  # a bad conversion must not reach the actor
            log.exception("table %s: cannot send %r to seat %d", table.table_id, item, seat)
            return
        if not reached:  # kept for the seat's next connection
            self._sent.pop(seat, None)
            lost = item.seq if isinstance(item, EventOut) else table.seq + 1
            self._lost.setdefault(seat, lost)
