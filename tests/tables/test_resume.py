"""Resuming after a dropped socket (docs/protocol.md, "Resuming"): a reconnecting socket gets
each event it missed exactly once, in order, whether or not it sends ``resume``, and a
``resume`` answers only what that socket was not sent already; a storm of reconnects during
play leaves every seat's stream whole."""

from __future__ import annotations

import asyncio
import random

from app.protocol import EventMessage, ResumeMessage, SnapshotMessage
from app.store.db import Database
from app.tables.messages import Autoplay, Disconnected
from app.tables.registry import TableRegistry
from app.tables.routing import route
from app.tables.timers import BotPace, Timers
from tests.sinks import Sink
from tests.tables.settlement.test_penalties import _accounts
from tests.waits import until

PACE = BotPace(0.01, 0.03)  # the server plays every seat, a little apart
TIMERS = Timers(discard=60, claim=60, decide=60, ready=0.05)


def _events(sink: Sink) -> list[EventMessage]:
    return [m for m in sink.messages if isinstance(m, EventMessage)]


def _last_seq(sink: Sink) -> int:
    shown = [m.seq for m in sink.messages if isinstance(m, EventMessage | SnapshotMessage)]
    return max(shown, default=0)


async def _table(db: Database) -> tuple[TableRegistry, str, int, Sink]:
    ids = await _accounts(db)
    registry = TableRegistry(db.sessions, bot_pace=PACE)
    live = registry.create("lishui", 1, timers=TIMERS)
    player = ids[0]
    first = Sink()
    registry.connections.connect(player, first)
    await registry.sit(live.table_id, player, 0)
    for seat, bot in enumerate(ids[1:], start=1):
        await registry.sit(live.table_id, bot, seat, bot=True)
    registry.require(live.table_id).table.submit(Autoplay(0, True))  # 托管: the hands play themselves
    return registry, live.table_id, player, first


def _drop(registry: TableRegistry, table_id: str, player: int, sink: Sink) -> None:
    """The socket closes, as app/api/ws.py tells the registry and the table."""
    for held_table, seat in registry.connections.disconnect(player, sink):
        registry.require(held_table).table.submit(Disconnected(seat))


async def test_events_missed_while_away_come_once_with_or_without_a_resume(
    db: Database,
) -> None:
    registry, table_id, player, first = await _table(db)
    live = registry.require(table_id)
    try:
        await until(lambda: _last_seq(first) >= 12, 30, "seq 12 seen")
        _drop(registry, table_id, player, first)
        seen = _last_seq(first)
        try:
            await until(lambda: live.seq >= seen + 8, 30, "the table goes on")
        except AssertionError as stopped:  # say where it stopped
            kinds = [(m.seq, m.event.kind) for m in _events(first)][-6:]
            raise AssertionError(
                f"{stopped}: dropped at seq {seen}, the table at {live.seq}, seats "
                f"{live.seats}, the dropped socket's last events {kinds}") from None
        second = Sink()
        registry.connections.connect(player, second)
        route(ResumeMessage(table_id=table_id, last_seq=seen), registry, player)
        await registry.require(table_id).flush()
        seqs = [m.seq for m in _events(second)]
        assert seqs, "the missed events came"
        assert len(seqs) == len(set(seqs)), f"an event came twice: {seqs}"
        assert seqs == sorted(seqs)
        # from where the old socket stopped, nothing missing, until the table's last shown
        snapshots = [m for m in second.messages if isinstance(m, SnapshotMessage)]
        if not snapshots:  # the same hand: its events after `seen`, each once
            assert seqs[0] == seen + 1 and seqs == list(range(seen + 1, seqs[-1] + 1))
    finally:
        await registry.stop()


async def test_a_storm_of_reconnects_leaves_every_stream_whole(db: Database) -> None:
    """Twenty reconnects at random moments of play, each sending ``resume`` from the last
    seq its dropped socket got: no socket ever gets an event twice, and each one's
    events continue its last snapshot or event without a gap."""
    registry, table_id, player, sink = await _table(db)
    rng = random.Random(5)
    sinks = [sink]
    try:
        for _ in range(20):
            await asyncio.sleep(rng.uniform(0.0, 0.15))
            seen = _last_seq(sinks[-1])
            _drop(registry, table_id, player, sinks[-1])
            await asyncio.sleep(rng.uniform(0.0, 0.1))
            sinks.append(Sink())
            registry.connections.connect(player, sinks[-1])
            if rng.random() < 0.8:
                route(ResumeMessage(table_id=table_id, last_seq=seen), registry, player)
        await registry.require(table_id).flush()
    finally:
        await registry.stop()
    for socket in sinks:
        shown = [m for m in socket.messages if isinstance(m, EventMessage | SnapshotMessage)]
        seqs = [m.seq for m in shown if isinstance(m, EventMessage)]
        assert len(seqs) == len(set(seqs)), f"an event came twice on one socket: {seqs}"
        last = None
        for message in shown:  # each event follows the one before, or a snapshot
            if isinstance(message, EventMessage) and last is not None:
                assert message.seq == last + 1 or message.event.kind == "hand_started", (
                    f"a gap: {last} -> {message.seq}")
            last = message.seq
