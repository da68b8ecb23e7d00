"""A spectator (旁观) whose socket is on another node than the table's owner: its watch is
forwarded to the owner, the table's events come back as one message per node and reach the
socket as watched (held to the spectators' bound), its chat mute and the player's quick
chat work alike, and the owner forgets the spectator when its socket closes, when presence
names another node, or when its account connects on the owner. Two apps in one process on one Redis (tests/cluster/
test_lobby.py's nodes)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from redis.asyncio import Redis

from app.cluster.keys import Keys
from app.protocol import (
    AutoplayMessage,
    ChatSaidMessage,
    EventMessage,
    MutedMessage,
    MuteMessage,
    SendChatMessage,
    SnapshotMessage,
    WatchingMessage,
    WatchMessage,
)
from app.store.db import Database
from app.tables.registry import TableRegistry
from app.tables.routing import route
from tests.api.helpers import fund_house
from tests.cluster.test_lobby import Node, _headers, nodes
from tests.sinks import Sink

__all__ = ["nodes"]  # the fixture


async def _until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def _id(http: httpx.AsyncClient, headers: dict[str, str]) -> int:
    return int((await http.get("/me", headers=headers)).json()["id"])


async def test_a_spectator_on_another_node_watches_and_hears_the_chat(
    nodes: tuple[Node, Node], db: Database, redis: Redis, prefix: str
) -> None:
    await fund_house(db)
    (app_a, a), (app_b, b) = nodes
    registry_a: TableRegistry = app_a.state.tables
    registry_b: TableRegistry = app_b.state.tables
    ann, eve = await _headers(a, "ann"), await _headers(b, "eve")
    ann_id, eve_id = await _id(a, ann), await _id(b, eve)
    table_id = (await a.post("/tables", json={"variant": "lishui", "stake": 1},
                             headers=ann)).json()["id"]
    player, spectator = Sink(), Sink()
    registry_a.connections.connect(ann_id, player)  # the player's socket and the table are on A
    registry_b.connections.connect(eve_id, spectator)  # the spectator's socket on B
    assert (await a.post(f"/tables/{table_id}/sit", json={"seat": 0},
                         headers=ann)).status_code == 200
    route(AutoplayMessage(table_id=table_id, on=True), registry_a, ann_id)

    # the watch goes from B to A; A keeps the spectator as (eve, node b)
    assert route(WatchMessage(table_id=table_id), registry_b, eve_id) is None
    live = registry_a.get(table_id)
    assert live is not None
    await _until(lambda: eve_id in live.watchers.spectators)
    assert live.watchers.spectators[eve_id].node == "b" and live.watchers.spectators[eve_id].sink is None
    await _until(lambda: any(isinstance(m, WatchingMessage) for m in spectator.messages))

    # a hand played by the player's 托管 and three bots reaches B's socket, event by event
    assert (await a.post(f"/tables/{table_id}/fill-bots", headers=ann)).status_code == 200

    def ended() -> bool:
        return any(isinstance(m, EventMessage) and m.event.kind == "hand_ended"
                   for m in spectator.messages)

    await _until(ended, 30)
    events = [m for m in spectator.messages if isinstance(m, EventMessage)]
    assert [m.seq for m in events] == list(range(1, len(events) + 1))
    assert all(m.event.tiles is None for m in events if m.event.kind == "dealt")  # type: ignore[union-attr]
    assert not [m for m in spectator.messages if m.type == "prompt"]

    # the player's quick chat reaches the spectator on B; muted from B, it does not
    assert route(SendChatMessage(table_id=table_id, phrase="hello"), registry_a, ann_id) is None
    await _until(lambda: any(isinstance(m, ChatSaidMessage) for m in spectator.messages))
    said = [m for m in spectator.messages if isinstance(m, ChatSaidMessage)]
    assert [(m.seat, m.phrase) for m in said] == [(0, "hello")]
    assert route(MuteMessage(table_id=table_id, seat=0), registry_b, eve_id) is None
    await _until(lambda: any(isinstance(m, MutedMessage) for m in spectator.messages))
    assert [m for m in spectator.messages if isinstance(m, MutedMessage)][-1].seats == [0]
    assert route(SendChatMessage(table_id=table_id, phrase="thanks"), registry_a, ann_id) is None
    await _until(lambda: [m.phrase for m in player.messages if isinstance(m, ChatSaidMessage)]
                 == ["hello", "thanks"])
    await registry_a.require(table_id).flush()
    await asyncio.sleep(0.2)  # what A published meanwhile has reached B
    assert [m.phrase for m in spectator.messages if isinstance(m, ChatSaidMessage)] == ["hello"]

    # watching again from B: a fresh start with a snapshot of the ended hand
    before = len(spectator.messages)
    route(WatchMessage(table_id=table_id), registry_b, eve_id)
    await _until(lambda: any(isinstance(m, SnapshotMessage)
                             for m in spectator.messages[before:]))

    # B's socket closes: A forgets the spectator (`away`)
    registry_b.connections.disconnect(eve_id, spectator)
    await _until(lambda: eve_id not in live.watchers.spectators)

    # watching again; then presence names another node (a login elsewhere, or B died
    # without a word): A ends the watch at its next look
    online = Keys(prefix).online(eve_id)
    registry_b.connections.connect(eve_id, Sink())
    await _until_present(redis, online, "b")
    route(WatchMessage(table_id=table_id), registry_b, eve_id)
    await _until(lambda: eve_id in live.watchers.spectators)
    await redis.set(online, "c")
    await _until(lambda: eve_id not in live.watchers.spectators)

    # watching again, then the account connects on A itself: the watch through B ends
    await redis.set(online, "b")
    route(WatchMessage(table_id=table_id), registry_b, eve_id)
    await _until(lambda: eve_id in live.watchers.spectators)
    registry_a.connections.connect(eve_id, Sink())
    assert eve_id not in live.watchers.spectators


async def _until_present(redis: Redis, key: str, node: str) -> None:
    async with asyncio.timeout(10):
        while await redis.get(key) != node:
            await asyncio.sleep(0.02)
