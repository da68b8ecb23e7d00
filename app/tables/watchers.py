"""The small parts of watching a table (旁观) and of quick chat (快捷语) that the registry
uses (app/tables/registry.py holds the rules):

- `Spectator`: one account watching a table, through its socket on this node or through
  the node of the cluster that holds it;
- `watched_sender`: what a spectator is sent goes to its socket marked as watched, so that
  the socket can hold a spectator to its own, smaller, bound (app/api/ws.py: a spectator
  that does not read is dropped, never waited for);
- `ChatLimits`: each account's quick chat as a token bucket (a burst, then one more every
  few seconds), on the registry's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.protocol import SERVER_MESSAGE
from app.protocol.encode import Encoded

if TYPE_CHECKING:
    from app.tables.registry import Sink

CHAT_PRUNE_EVERY = 1000  # chats between two sweeps of the buckets that are full again


@dataclass(slots=True)
class Spectator:
    """One account watching a table: `sink` is its socket on this node; None when the
    socket is on another node of the cluster, `node` (which forwarded the watch). `send`
    queues a watched table's message for the socket here (`deliver_watched`, looked up
    once: it runs for every event and every spectator)."""

    account: int
    sink: Sink | None
    node: str | None = None
    send: Callable[[Encoded], None] | None = None

    def __post_init__(self) -> None:
        if self.sink is not None and self.send is None:
            self.send = watched_sender(self.sink)

    @property
    def gone(self) -> bool:
        """The socket here was closed (by its client, replaced, or dropped as too slow)."""
        return self.sink is not None and bool(getattr(self.sink, "closing", False))


def watched_sender(sink: Sink) -> Callable[[Encoded], None]:
    """How a watched table's message is queued for a spectator's socket: as watched text
    when the sink takes it (`Connection.deliver_watched`), else as its model (tests'
    sinks)."""
    watched: Callable[[Encoded], None] | None = getattr(sink, "deliver_watched", None)
    if watched is not None:
        return watched
    return lambda encoded: sink.deliver(SERVER_MESSAGE.validate_json(encoded.text))


class ChatLimits:
    """Quick chat per account: `burst` phrases at once, then one more every `refill`
    seconds (a token bucket). Buckets that are full again are forgotten now and then."""

    def __init__(self, burst: int, refill: float) -> None:
        self.burst = burst
        self.refill = refill
        self._buckets: dict[int, tuple[float, float]] = {}  # account -> (tokens, when)
        self._since_prune = 0

    def take(self, account: int, now: float) -> bool:
        """Spend one phrase of `account`'s at `now`; False (and nothing spent) when none is
        left."""
        tokens, when = self._buckets.get(account, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) / self.refill)
        if tokens < 1.0:
            self._buckets[account] = (tokens, now)
            return False
        self._buckets[account] = (tokens - 1.0, now)
        self._since_prune += 1
        if self._since_prune >= CHAT_PRUNE_EVERY:
            self._prune(now)
        return True

    def _prune(self, now: float) -> None:
        self._since_prune = 0
        full = self.burst * self.refill
        self._buckets = {a: b for a, b in self._buckets.items() if now - b[1] < full}
