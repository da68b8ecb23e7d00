"""A table's watchers: its spectators (旁观) and its quick chat (快捷语), with the mutes.

- spectators: anyone not seated at the table may watch it, at most `limit`; a private room
  (`room`) asks its code, and its owner may allow none (`allowed`). A spectator gets
  ``watching``, a snapshot of the observer's view and then every event as an observer
  sees it (`Event.for_seat(None)`: no concealed tile, no prompt, no claim offer), and
  ``table_state`` (with the number of spectators) whenever it changes; at a private room's
  table also its ``room`` messages (app/rooms/service.py). What it is sent is
  queued as watched (`watched_sender`): the table never waits, and a socket that does not
  read is dropped by its own bound (app/api/ws.py). A spectator's socket on another node is
  sent one message per node (`Delivery.deliver_watched`). Sitting down at the table,
  unwatching, or the socket closing ends a watch; a table that closes tells its
  spectators (``no_table``);
- quick chat: a seated player's phrase of the fixed list goes to every seated player (bots
  excepted) and every spectator, the sender included, except those who muted the sender
  (`mute`: by account, held while the muter sits at or watches the table); each account
  may send `chat_burst` at once, then one more every `chat_refill_seconds` (`ChatLimits`,
  the node's, on its clock: `chat_limited`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from app.protocol import (
    SERVER_MESSAGE,
    ChatSaidMessage,
    ErrorMessage,
    MutedMessage,
    SnapshotMessage,
    WatchingMessage,
    view_model,
)
from app.protocol.encode import Encoded, event_text, message_text
from app.protocol.vocabulary import as_variant
from app.tables.clock import Clock
from app.tables.errors import TableError
from app.tables.messages import EventOut, SnapshotOut
from app.tables.sockets import Sink, Sockets

log = logging.getLogger(__name__)

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


class WatchedTable(Protocol):
    """What the watchers need of their table."""

    table_id: str
    variant: str
    stake: int
    room: str | None

    def accounts(self) -> list[int | None]: ...

    def seat_of(self, account_id: int) -> int | None: ...

    @property
    def bots(self) -> set[int]: ...

    def announce(self) -> None:
        """Tell every seat and spectator the table (``table_state``)."""


class PublicSide(Protocol):
    """What the watchers need of the table's actor: the observers' side of its hand."""

    public: Callable[[EventOut], None] | None
    """Where the observers' copy of every event goes from now on (None: nowhere)."""

    @property
    def shown_seq(self) -> int: ...

    def public_snapshot(self) -> SnapshotOut | None: ...


class Watchers:
    """The spectators, chat and mutes of one table (the module's rules)."""

    def __init__(
        self, table: WatchedTable, actor: PublicSide, sockets: Sockets, chat: ChatLimits,
        clock: Clock, limit: int,
    ) -> None:
        self._table = table
        self._actor = actor  # the table's actor: its hand as observers see it
        self._sockets = sockets
        self._chat = chat
        self._clock = clock
        self.limit = limit
        self.spectators: dict[int, Spectator] = {}  # account -> where its socket is
        # whether a private room's owner lets people with the code watch (a public table: yes)
        self.allowed = True
        # account -> the accounts whose chat it is not sent at this table
        self.mutes: dict[int, set[int]] = {}

    def __len__(self) -> int:
        return len(self.spectators)

    # --- spectators -------------------------------------------------------------------------

    def watch(self, account_id: int, code: str | None = None, node: str | None = None) -> None:
        """`account_id` watches the table from now on (again: a fresh start), through its
        socket here, or (`node`) through the node of the cluster that holds it. It is sent
        ``watching``, the observer's snapshot of the hand (if the table has dealt), then
        every event as an observer sees it; ``table_state`` follows. TableError:
        `seated_here`, `wrong_room_code`, `spectators_not_allowed`, `spectators_full`."""
        table = self._table
        if table.seat_of(account_id) is not None:
            raise TableError("seated_here", "you sit at this table: your seat shows it")
        if table.room is not None and code != table.room:
            raise TableError("wrong_room_code", "this private room is watched with its code")
        if not self.allowed:
            raise TableError("spectators_not_allowed", "this room's owner allows no spectators")
        if account_id not in self.spectators and len(self.spectators) >= self.limit:
            raise TableError("spectators_full", f"this table has {self.limit} spectators already")
        sink = None if node is not None else self._sockets.get(account_id)
        if sink is None and node is None:
            return  # the socket closed meanwhile
        spectator = Spectator(account_id, sink, node)
        self.spectators[account_id] = spectator
        snapshot = self._actor.public_snapshot()
        watching = WatchingMessage(
            table_id=table.table_id, variant=as_variant(table.variant), stake=table.stake,
            seq=self._actor.shown_seq, spectators=len(self.spectators),
        )
        self.send(message_text(watching), [spectator])
        if snapshot is not None:
            view = SnapshotMessage(
                table_id=table.table_id, hand_id=snapshot.hand_id, seq=snapshot.seq,
                view=view_model(snapshot.view), deadline_ms=None,
            )
            self.send(message_text(view), [spectator])
        if self.mutes.get(account_id):
            self.send(message_text(self.muted_message(account_id)), [spectator])
        self._changed()

    def unwatch(self, account_id: int) -> None:
        """The account watches the table no longer (nothing when it did not)."""
        if self.spectators.pop(account_id, None) is None:
            return
        if self._table.seat_of(account_id) is None:
            self.mutes.pop(account_id, None)
        self._changed()

    def sat_down(self, account_id: int) -> None:
        """The account sat at the table: it no longer watches it."""
        if self.spectators.pop(account_id, None) is not None:
            self._changed()

    def left(self, account_id: int) -> None:
        """The account left its seat: its mutes go, unless it watches the table."""
        if account_id not in self.spectators:
            self.mutes.pop(account_id, None)

    def socket_opened(self, account_id: int) -> None:
        """A socket of the account opened here: a watch through another node's socket,
        which the new one replaced, ends."""
        spectator = self.spectators.get(account_id)
        if spectator is not None and spectator.sink is None:
            del self.spectators[account_id]
            self._changed()

    def socket_closed(self, account_id: int, sink: Sink) -> None:
        """The account's socket `sink` closed: its watch ends with it."""
        spectator = self.spectators.get(account_id)
        if spectator is not None and spectator.sink is sink:
            self.unwatch(account_id)

    def disallow(self) -> None:
        """End every watch (a private room's owner turned spectators off); each spectator is
        told (``spectators_not_allowed``)."""
        if not self.spectators:
            return
        told = ErrorMessage(code="spectators_not_allowed",
                            message="this room's owner allows no spectators now")
        self.send(message_text(told))
        for account in list(self.spectators):
            self.unwatch(account)

    def close(self) -> None:
        """The table closed: every spectator is told (``no_table``) and watches no more."""
        closed = ErrorMessage(code="no_table", message=f"table {self._table.table_id} was closed")
        self.send(message_text(closed))
        self.spectators.clear()

    def remote(self) -> list[tuple[int, str]]:
        """(account, node) of every spectator whose socket is on another node."""
        return [(s.account, s.node) for s in self.spectators.values()
                if s.sink is None and s.node is not None]

    def send(self, encoded: Encoded, chosen: Iterable[Spectator] | None = None) -> None:
        """Queue `encoded` for the spectators (`chosen`, or all): a socket here as watched
        text, those of another node in one message per node. A socket that was closed, or
        is closed now because it let too much wait, is no longer a spectator."""
        remote: dict[str, list[int]] = {}
        gone = []
        for spectator in list(self.spectators.values()) if chosen is None else chosen:
            send = spectator.send
            if send is None:
                if spectator.node is not None:
                    remote.setdefault(spectator.node, []).append(spectator.account)
                continue
            send(encoded)  # a closed socket takes nothing
            if spectator.gone:
                gone.append(spectator.account)
        for node, accounts in remote.items():
            self._sockets.delivery.deliver_watched(node, accounts, encoded)
        if gone:
            for account in gone:
                self.spectators.pop(account, None)
                if self._table.seat_of(account) is None:
                    self.mutes.pop(account, None)
            self._changed()

    def _changed(self) -> None:
        """The spectators came or went: the table sends them its events while there are
        any, and every seat and spectator is told how many there are."""
        self._actor.public = self._public if self.spectators else None
        self._table.announce()

    def _public(self, item: EventOut) -> None:
        """The observers' copy of one event, written once for every spectator."""
        if not self.spectators:
            return
        try:
            self.send(event_text(self._table.table_id, item.hand_id, item.seq, item.event))
        except Exception:  # a bad conversion must not reach the actor
            log.exception("table %s: cannot send event %d to its spectators",
                          self._table.table_id, item.seq)

    # --- quick chat -------------------------------------------------------------------------

    def chat(self, account_id: int, phrase: str) -> None:
        """A seated player says `phrase` (of the fixed list, checked at the edge): every
        player at the table and every spectator is sent ``chat``, except those who muted
        the player. TableError: `wrong_table` (not seated: spectators do not chat),
        `chat_limited`."""
        table = self._table
        seat = table.seat_of(account_id)
        if seat is None:
            raise TableError("wrong_table", "only a player seated at the table chats there")
        if not self._chat.take(account_id, self._clock.now()):
            raise TableError(
                "chat_limited",
                f"at most {self._chat.burst} phrases at once, then one every "
                f"{self._chat.refill:g} s",
            )
        said = ChatSaidMessage(table_id=table.table_id, seat=seat, phrase=phrase)  # type: ignore[arg-type]
        bots = table.bots
        for account in table.accounts():
            if account is None or account in bots:
                continue
            if account_id not in self.mutes.get(account, ()):
                self._sockets.send_message(account, said)
        listening = [
            s for a, s in self.spectators.items() if account_id not in self.mutes.get(a, ())
        ]
        if listening:
            self.send(message_text(said), listening)

    def mute(self, account_id: int, seat: int, on: bool) -> MutedMessage:
        """The account (seated at or watching the table) stops (or starts again) receiving
        the chat of the player at `seat`; its mutes as they are now. TableError:
        `wrong_table` (neither seated nor watching), `bad_seat` (empty, or its own)."""
        table = self._table
        if table.seat_of(account_id) is None and account_id not in self.spectators:
            raise TableError("wrong_table", "you neither sit at nor watch this table")
        target = table.accounts()[seat]
        if target is None or target == account_id:
            raise TableError("bad_seat", f"nobody else sits at seat {seat}")
        muted = self.mutes.setdefault(account_id, set())
        if on:
            muted.add(target)
        else:
            muted.discard(target)
            if not muted:
                del self.mutes[account_id]
        return self.muted_message(account_id)

    def muted_message(self, account_id: int) -> MutedMessage:
        """The seats whose players `account_id` has muted at the table, as they sit now."""
        muted = self.mutes.get(account_id, set())
        return MutedMessage(
            table_id=self._table.table_id,
            seats=[n for n, a in enumerate(self._table.accounts()) if a is not None and a in muted],
        )
