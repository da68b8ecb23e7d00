"""Spectators (旁观) and quick chat (快捷语) at a running table, with sinks in place of
sockets (issue 17, items 3 and 4): what a spectator is sent (the public view only, in seq
order, from a snapshot), who may watch (the cap, a private room's code and its owner's
leave, not one's own table), and who hears whose chat (the rate limit, mutes). Messages go
through `route`, as from a socket."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from app.api.ws import CLOSE_TOO_SLOW, CLOSE_WATCH_TOO_SLOW, Connection
from app.protocol import (
    ChatSaidMessage,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    MutedMessage,
    MuteMessage,
    PromptMessage,
    SendChatMessage,
    ServerMessage,
    SnapshotMessage,
    TableStateMessage,
    UnmuteMessage,
    UnwatchMessage,
    WatchingMessage,
    WatchMessage,
)
from app.protocol.encode import Encoded
from app.store.db import Database
from app.tables import admin as table_admin
from app.tables.clock import FakeClock
from app.tables.registry import TableRegistry
from app.tables.routing import route
from app.tables.timers import Timers
from tests.sinks import LONG, Sink
from tests.tables.settlement.test_penalties import _accounts

QUICK = Timers(**{**LONG, "ready": 0.0})  # bots deal the next hand at once


async def _until(condition: Callable[[], object], seconds: float = 30.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


def _send(registry: TableRegistry, account: int, message: ClientMessage) -> ServerMessage | None:
    return route(message, registry, account)


def _code(answer: ServerMessage | None) -> str | None:
    return answer.code if isinstance(answer, ErrorMessage) else None


def _of(sink: Sink, kind: type[ServerMessage]) -> list[ServerMessage]:
    return [m for m in sink.messages if isinstance(m, kind)]


def _hidden(message: ServerMessage) -> list[str]:
    """What `message` shows of any seat's concealed tiles during a hand."""
    leaks = []
    if isinstance(message, EventMessage):
        event = message.event.model_dump()
        if event["kind"] == "dealt" and event["tiles"] is not None:
            leaks.append("dealt")
        if event["kind"] == "drew" and event["tile"] is not None:
            leaks.append("drew")
        if event["kind"] == "melded" and event["meld"] == "concealed_kong" \
                and event["tiles"] is not None:
            leaks.append("concealed kong")
    if isinstance(message, SnapshotMessage) and message.view.phase != "ended":
        leaks += [f"seat {s.seat}'s hand" for s in message.view.seats if s.hand is not None]
    if isinstance(message, PromptMessage):
        leaks.append("a prompt")
    return leaks


async def test_a_spectator_gets_the_public_view_in_order_from_a_snapshot(db: Database) -> None:
    *bots, watcher = await _accounts(db, 5)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=QUICK)
    sink = Sink()
    try:
        registry.connections.connect(watcher, sink)
        for bot in bots:
            await registry.sit(live.table_id, bot, bot=True)  # hands play themselves
        await _until(lambda: live.table.seq > 30)  # mid-hand, or later
        assert _send(registry, watcher, WatchMessage(table_id=live.table_id)) is None
        await _until(lambda: int(live.table.hand_id.rpartition("-")[2] or 0) >= 4)
        await table_admin.pause(registry, live.table_id)
        await asyncio.sleep(0.2)
        watching = sink.messages[0]
        assert isinstance(watching, WatchingMessage)
        assert watching.variant == "lishui" and watching.spectators == 1
        snapshot = sink.messages[1]
        assert isinstance(snapshot, SnapshotMessage) and snapshot.seq == watching.seq
        assert snapshot.view.seat is None and snapshot.view.legal_actions == []
        seqs = [m.seq for m in sink.messages if isinstance(m, EventMessage)]
        assert seqs == list(range(watching.seq + 1, watching.seq + 1 + len(seqs)))
        assert [m for m in sink.messages if _hidden(m)] == []
        kinds = {m.event.kind for m in _of(sink, EventMessage)}  # type: ignore[attr-defined]
        assert {"hand_started", "dealt", "drew", "discarded", "hand_ended"} <= kinds
        # every seat's deal reached the spectator, each with its count and no tile
        dealt = [m.event for m in _of(sink, EventMessage) if m.event.kind == "dealt"]  # type: ignore[attr-defined]
        assert {e.seat for e in dealt} == {0, 1, 2, 3}
        states = _of(sink, TableStateMessage)
        assert states and states[-1].spectators == 1  # type: ignore[attr-defined]
    finally:
        await registry.stop()


async def test_who_may_watch(db: Database) -> None:
    player, other, third, fourth = await _accounts(db, 4)
    registry = TableRegistry(db.sessions, max_spectators=2)
    live = registry.create("lishui", 1, timers=Timers(**LONG))
    sinks = {a: Sink() for a in (player, other, third, fourth)}
    table_id = live.table_id
    try:
        for account, sink in sinks.items():
            registry.connections.connect(account, sink)
        await registry.sit(table_id, player, 0)
        assert _code(_send(registry, player, WatchMessage(table_id=table_id))) == "seated_here"
        assert _code(_send(registry, other, WatchMessage(table_id="gone"))) == "no_table"
        # a table that never dealt: watching, and no snapshot yet
        assert _send(registry, other, WatchMessage(table_id=table_id)) is None
        assert [type(m) for m in sinks[other].messages] == [WatchingMessage]
        assert _send(registry, third, WatchMessage(table_id=table_id)) is None
        assert _code(_send(registry, fourth, WatchMessage(table_id=table_id))) == \
            "spectators_full"
        assert _send(registry, third, WatchMessage(table_id=table_id)) is None  # again: fine
        await registry.require(table_id).flush()
        assert _of(sinks[player], TableStateMessage)[-1].spectators == 2  # type: ignore[attr-defined]

        # a spectator who sits down plays, and watches no more
        await registry.sit(table_id, third, 1)
        assert set(live.watchers.spectators) == {other}
        _send(registry, other, UnwatchMessage(table_id=table_id))
        _send(registry, other, UnwatchMessage(table_id=table_id))  # nothing to end: no answer
        assert live.watchers.spectators == {}
        assert live.table.public is None  # nobody watches: no copy is made

        # a private room: its code, and its owner's leave
        live.room = "123456"
        for code in (None, "654321"):
            assert _code(_send(registry, other, WatchMessage(table_id=table_id, code=code))) \
                == "wrong_room_code"
        assert _send(registry, other, WatchMessage(table_id=table_id, code="123456")) is None
        live.watchers.allowed = False
        registry.require(table_id).watchers.disallow()
        assert _code(sinks[other].messages[-1]) == "spectators_not_allowed"
        assert live.watchers.spectators == {}
        assert _code(_send(registry, other, WatchMessage(table_id=table_id, code="123456"))) \
            == "spectators_not_allowed"

        # a closed socket watches nothing
        live.room, live.watchers.allowed = None, True
        assert _send(registry, fourth, WatchMessage(table_id=table_id)) is None
        registry.connections.disconnect(fourth, sinks[fourth])
        assert live.watchers.spectators == {}
    finally:
        await registry.stop()


async def test_chat_reaches_the_table_and_its_spectators_within_the_limit(db: Database) -> None:
    a, b, c, watcher = await _accounts(db, 4)
    clock = FakeClock()
    registry = TableRegistry(db.sessions, clock=clock, chat_burst=3, chat_refill_seconds=3.0)
    live = registry.create("lishui", 1, timers=Timers(**LONG))
    table_id = live.table_id
    sinks = {x: Sink() for x in (a, b, c, watcher)}
    try:
        for account, sink in sinks.items():
            registry.connections.connect(account, sink)
        for seat, account in enumerate((a, b, c)):
            await registry.sit(table_id, account, seat)
        _send(registry, watcher, WatchMessage(table_id=table_id))

        def heard(account: int) -> list[tuple[int, str]]:
            return [(m.seat, m.phrase) for m in _of(sinks[account], ChatSaidMessage)]  # type: ignore[attr-defined]

        for phrase in ("hello", "hurry", "thumbs_up"):
            assert _send(registry, a, SendChatMessage(table_id=table_id, phrase=phrase)) is None  # type: ignore[arg-type]
        said = [(0, "hello"), (0, "hurry"), (0, "thumbs_up")]
        assert all(heard(x) == said for x in (a, b, c, watcher))  # the sender too
        # the burst is spent: refused, and nobody hears it
        assert _code(_send(registry, a, SendChatMessage(table_id=table_id, phrase="sorry"))) \
            == "chat_limited"
        clock.advance(2.9)
        assert _code(_send(registry, a, SendChatMessage(table_id=table_id, phrase="sorry"))) \
            == "chat_limited"
        clock.advance(0.2)
        assert _send(registry, a, SendChatMessage(table_id=table_id, phrase="sorry")) is None
        assert heard(watcher)[-1] == (0, "sorry")
        # a spectator does not chat
        assert _code(_send(registry, watcher, SendChatMessage(table_id=table_id, phrase="wow"))) \
            == "wrong_table"

        # b and the spectator mute a; c does not
        answer = _send(registry, b, MuteMessage(table_id=table_id, seat=0))
        assert isinstance(answer, MutedMessage) and answer.seats == [0]
        assert _send(registry, watcher, MuteMessage(table_id=table_id, seat=0)) == \
            MutedMessage(table_id=table_id, seats=[0])
        assert _code(_send(registry, b, MuteMessage(table_id=table_id, seat=1))) == "bad_seat"
        assert _code(_send(registry, b, MuteMessage(table_id=table_id, seat=3))) == "bad_seat"
        clock.advance(10)
        before = {x: len(heard(x)) for x in sinks}
        assert _send(registry, a, SendChatMessage(table_id=table_id, phrase="again")) is None
        assert {x: len(heard(x)) - before[x] for x in sinks} == {a: 1, b: 0, c: 1, watcher: 0}
        # b's chat still reaches a
        assert _send(registry, b, SendChatMessage(table_id=table_id, phrase="thanks")) is None
        assert heard(a)[-1] == (1, "thanks")
        # unmuted, b hears a again
        answer = _send(registry, b, UnmuteMessage(table_id=table_id, seat=0))
        assert answer == MutedMessage(table_id=table_id, seats=[])
        assert _send(registry, a, SendChatMessage(table_id=table_id, phrase="bye")) is None
        assert heard(b)[-1] == (0, "bye") and heard(watcher)[-1] != (0, "bye")
        # a mute is by player: it follows a to another seat
        await registry.require(table_id).leave(a)
        await registry.sit(table_id, a, 3)
        assert _send(registry, watcher, WatchMessage(table_id=table_id)) is None  # again
        assert _of(sinks[watcher], MutedMessage)[-1] == MutedMessage(table_id=table_id, seats=[3])
        # a mute ends when the muter leaves the table
        _send(registry, watcher, UnwatchMessage(table_id=table_id))
        assert watcher not in live.watchers.mutes
    finally:
        await registry.stop()


class StalledSocket:
    """A WebSocket whose client never reads: a send never completes."""

    def __init__(self) -> None:
        self.scope: dict[str, object] = {"extensions": {}}  # a server without `SEND_MANY`
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await asyncio.Event().wait()

    async def close(self, code: int) -> None:
        await asyncio.Event().wait()


async def test_a_spectator_that_does_not_read_is_dropped_not_waited_for() -> None:
    socket = StalledSocket()
    connection = Connection(socket, max_bytes=256 * 1024, send_timeout=60,  # type: ignore[arg-type]
                            watch_max_bytes=8 * 1024)
    pump = asyncio.create_task(connection.pump())
    try:
        message = Encoded("event", "x" * 1000)
        for _ in range(8):  # a seat's own messages count only against the socket's bound
            connection.deliver_encoded(message)
        await asyncio.sleep(0.01)  # the first is being written (and never will be)
        assert not connection.closing and socket.sent == ["x" * 1000]
        for n in range(100):
            connection.deliver_watched(message)  # returns at once: nobody waits
            if connection.closing:
                break
        assert connection.closing and n == 8  # the ninth kilobyte of watched text
        assert connection._close_code == CLOSE_WATCH_TOO_SLOW
        assert connection.queued_bytes == 1000 and connection.watched_bytes == 0  # dropped
        connection.deliver_watched(message)  # closed: nothing more is queued
        assert connection.queued_bytes == 1000
    finally:
        pump.cancel()

    other = Connection(StalledSocket(), max_bytes=8 * 1024, send_timeout=60,  # type: ignore[arg-type]
                       watch_max_bytes=64 * 1024)
    for _ in range(9):
        other.deliver_encoded(Encoded("event", "x" * 1000))
    assert other._close_code == CLOSE_TOO_SLOW  # a player's own bound is as it was
