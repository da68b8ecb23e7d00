"""An account's table socket coming and going, as this node's tables see it: the seats it
holds get what they missed, its watches end with it, and the cluster learns where it is.

`Sockets` keeps which socket is the account's; `Seating` which seats the account holds here;
each table (`LiveTable`) what its seats are owed. This module only walks from one to the
others when a socket opens (`connect`, or `arrived` on another node) or closes
(`disconnect`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.tables.host import LiveTable
from app.tables.seating import Seating
from app.tables.sockets import Sink, Sockets


class Connections:
    def __init__(
        self,
        sockets: Sockets,
        seating: Seating,
        tables: Callable[[], Iterable[LiveTable]],
        find: Callable[[str], LiveTable | None],
    ) -> None:
        self._sockets = sockets
        self._seating = seating
        self._tables = tables
        self._find = find

    def connect(self, account_id: int, sink: Sink) -> Sink | None:
        """Route this account's seats to `sink`; the connection it replaces, if any."""
        old = self._sockets.put(account_id, sink)
        for live in self._tables():
            live.watchers.socket_opened(account_id)
        for table_id, seat in self._seating.tables_of(account_id):
            seated = self._find(table_id)
            if seated is not None:
                # what the table sent that reached no socket (it sat before this socket
                # was connected, or while it was away), cut now: nothing lost or repeated
                seated.greet(seat, seated.outbox.take_lost(seat))
        self._sockets.delivery.connected(account_id, sink)
        return old

    def arrived(self, table_id: str, account_id: int) -> None:
        """A socket of the account opened on another node of the cluster, and the account
        sits at this node's table `table_id`: the seat is connected, and the socket gets
        what `connect` gives a socket here, ``seated`` and ``table_state`` first, then a
        snapshot of the hand in play and the seat's prompt. Not the events it missed: this
        node cannot tell which of those reached that node before it knew of the socket,
        and that node drops them until ``seated`` comes (app/cluster/routing.py). Nothing
        when the account does not sit there, or its socket is on this node after all."""
        live = self._find(table_id)
        seat = live.seat_of(account_id) if live is not None else None
        if live is None or seat is None or account_id in self._sockets:
            return
        live.greet(seat, 0)  # seq 0 is before every hand: a snapshot

    def disconnect(self, account_id: int, sink: Sink) -> list[tuple[str, int]]:
        """Forget `sink` (unless a newer connection replaced it); the (table, seat) pairs
        the account holds, so that the caller can tell their actors."""
        for live in self._tables():  # its watches end with it
            live.watchers.socket_closed(account_id, sink)
        if self._sockets.drop(account_id, sink) is None:
            return []
        self._sockets.delivery.disconnected(account_id, sink)
        held = self._seating.tables_of(account_id)
        for table_id, _ in held:
            seated = self._find(table_id)
            if seated is not None:
                seated.announce()
        return held
