"""What table tests hand the registry for a client connection, and timers long enough that no
seat times out during a test."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.protocol import ServerMessage

LONG = {"discard": 300, "claim": 300, "decide": 300, "ready": 300}  # no timeout in a test


@dataclass
class Sink:
    """A client connection that keeps what it is sent, and the code it was closed with."""

    messages: list[ServerMessage] = field(default_factory=list)
    closed: int | None = None

    def deliver(self, message: ServerMessage) -> None:
        self.messages.append(message)

    def close(self, code: int) -> None:
        self.closed = code
