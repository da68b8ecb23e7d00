"""This node's table sockets, one per account (the newest), and the way to an account's
socket wherever it is: here, or on another node of the cluster (`Delivery`: this node alone,
`OneNode`; the cluster, app/cluster/routing.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from app.protocol import ClientMessage, ServerMessage
from app.protocol.encode import Encoded


class Sink(Protocol):
    """One client connection as the tables see it."""

    def deliver(self, message: ServerMessage) -> None:
        """Queue `message` for the client; never blocks the actor."""
        ...

    # A sink may also have `deliver_encoded(encoded: Encoded) -> None` (the socket's
    # `Connection` has): it is then given events and prompts as their JSON text; and
    # `deliver_watched(encoded: Encoded) -> None` for what a table it watches sends (held
    # to the spectators' bound), with `closing` true once it is closed.

    def close(self, code: int) -> None:
        """Close the connection with this WebSocket close code."""
        ...


class Delivery(Protocol):
    """The sockets of the other nodes, as this node reaches them."""

    remote: bool
    """True: other nodes exist (a socket or a table may be elsewhere)."""

    def connected(self, account_id: int, sink: Sink) -> None:
        """The account's socket is now `sink` on this node."""

    def disconnected(self, account_id: int, sink: Sink) -> None:
        """The account's socket `sink` closed (it was the current one)."""

    def forward(self, account_id: int, message: ClientMessage) -> bool:
        """Send a message for a table this node does not own to its owner; False: no
        other node could take it (the caller answers `wrong_table`)."""
        ...

    def deliver(self, account_id: int, message: ServerMessage) -> None:
        """A message for an account whose socket is not on this node."""

    def deliver_encoded(self, account_id: int, encoded: Encoded) -> None:
        """`deliver` for a message already written as its wire text (a table's event or
        prompt): the other node sends the text as it is."""

    def deliver_watched(self, node: str, accounts: list[int], encoded: Encoded) -> None:
        """A message of a watched table for spectators whose sockets `node` holds (one
        message per node, however many of its sockets watch): that node queues it for
        each as watched, under the spectators' bound."""


class OneNode:
    """`Delivery` of a node alone: every socket is here."""

    remote = False

    def connected(self, account_id: int, sink: Sink) -> None:
        return

    def disconnected(self, account_id: int, sink: Sink) -> None:
        return

    def forward(self, account_id: int, message: ClientMessage) -> bool:
        return False

    def deliver(self, account_id: int, message: ServerMessage) -> None:
        return

    def deliver_encoded(self, account_id: int, encoded: Encoded) -> None:
        return

    def deliver_watched(self, node: str, accounts: list[int], encoded: Encoded) -> None:
        return


class Sockets:
    """Account -> its one socket on this node; `delivery` reaches the others."""

    def __init__(self) -> None:
        self._sinks: dict[int, Sink] = {}
        self.delivery: Delivery = OneNode()

    def __contains__(self, account: int) -> bool:
        return account in self._sinks

    def get(self, account: int) -> Sink | None:
        return self._sinks.get(account)

    def put(self, account: int, sink: Sink) -> Sink | None:
        """`sink` is the account's socket from now on; the one it replaces, if any."""
        old = self._sinks.get(account)
        self._sinks[account] = sink
        return old

    def drop(self, account: int, sink: Sink | None = None) -> Sink | None:
        """Forget the account's socket (only `sink`, when given); the one forgotten."""
        current = self._sinks.get(account)
        if current is None or (sink is not None and current is not sink):
            return None
        del self._sinks[account]
        return current

    def present(self, account: int) -> bool:
        """The account may have a socket: here, or (a cluster) on another node."""
        return account in self._sinks or self.delivery.remote

    def send_message(self, account: int, message: ServerMessage) -> None:
        """Send the server's `message` (not a table's event or prompt: `send`) to the
        account's socket: here, or on another node of the cluster."""
        sink = self._sinks.get(account)
        if sink is not None:
            sink.deliver(message)
        elif self.delivery.remote:  # a socket on another node, if any
            self.delivery.deliver(account, message)

    def send(
        self, account: int, encoded: Callable[[], Encoded], model: Callable[[], ServerMessage]
    ) -> bool:
        """Send a table's message to the account's socket, here or on another node, as its
        text (`encoded`; `model` for a sink that takes no text, as tests' sinks); False: it
        has none anywhere."""
        sink = self._sinks.get(account)
        if sink is None:
            if self.delivery.remote:
                self.delivery.deliver_encoded(account, encoded())
                return True
            return False
        deliver_encoded = getattr(sink, "deliver_encoded", None)
        if deliver_encoded is None:
            sink.deliver(model())
        else:
            deliver_encoded(encoded())
        return True
