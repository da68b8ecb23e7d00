"""Two nodes in one process (two registries, two `RedisNetwork`s on one Redis): the hand
in play is journaled as it goes, another node restores exactly the same hand from the
journal once the lease is free, and the old owner, fenced off, stops serving the table
the moment it tries to act on it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from app.cluster.keys import Keys
from app.cluster.lease import FENCE_TTL_MS
from app.cluster.node import RedisNetwork
from app.protocol.rooms import RoomLength
from app.rooms.service import Rooms
from app.rules.hand import legal_actions, pending_seats
from app.settings import Settings
from app.store import migrate
from app.store.db import Database
from app.tables import admin as table_admin
from app.tables.messages import PlayerAction
from app.tables.registry import LiveTable, TableRegistry
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.sinks import Sink

SLOW = Timers(discard=60, claim=60, decide=60, ready=0.1)


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'failover.db'}"
    migrate.upgrade(url)
    return url


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    db = Database.connect(database_url)
    yield db
    await db.close()


async def _node(name: str, db: Database, redis_url: str, prefix: str) -> RedisNetwork:
    settings = Settings(
        database_url="sqlite://", redis_url=redis_url, redis_prefix=prefix, node_id=name,
        lease_ms=10000, watch_interval_ms=60000, jwt_secret="x" * 40,
    )
    registry = TableRegistry(db.sessions)
    network = RedisNetwork(settings, registry)
    registry.network = network.parts()
    await network.start()
    return network


async def _stop(*nodes: RedisNetwork) -> None:
    """Stop the nodes' tables, then the nodes."""
    for node in nodes:
        await node.registry.stop()
    for node in nodes:
        await node.stop()


async def _lishui_table(node: RedisNetwork, accounts: tuple[int, ...]) -> LiveTable:
    """A 丽水 table opened on `node`, `accounts` seated in seat order."""
    live = node.registry.create("lishui", 1, timers=SLOW)
    await node.ownership.opened(live)
    for account in accounts:
        await node.registry.sit(live.table_id, account)
    return live


async def _until(condition: object, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def _act(live: LiveTable, registry: TableRegistry) -> None:
    """The first pending seat plays its first legal action."""
    state = live.table.hand
    assert state is not None
    seat = pending_seats(state)[0]
    action = legal_actions(state, seat)[0]
    registry.require(live.table_id).table.submit(PlayerAction(seat, action, live.table.seq))
    await registry.require(live.table_id).flush()


async def test_a_hand_restored_on_another_node_and_the_old_owner_fenced_off(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    keys = Keys(prefix)
    try:
        live_a = await _lishui_table(a, (11, 12, 13, 14))
        table_id = live_a.table_id
        await _until(lambda: live_a.table.hand is not None)
        for _ in range(9):
            await _act(live_a, a.registry)
        await a.writer.flush()
        assert await a.redis.llen(keys.actions(table_id)) == len(live_a.table._play.actions)

        # nobody else may take a held table
        assert await b.watch_once() == []
        # A stops renewing and its lease is gone: B takes the table over at its second look
        await a.keeper.stop()
        await a.redis.delete(keys.lease(table_id))
        assert await b.watch_once() == []
        assert await b.watch_once() == [table_id]
        live_b = b.registry.get(table_id)
        assert live_b is not None
        await b.registry.require(table_id).flush()
        assert live_b.table.hand_id == live_a.table.hand_id
        assert live_b.table.seq == live_a.table.seq
        assert live_b.table.hand == live_a.table.hand  # the very same hand, by replay
        assert live_b.accounts() == [11, 12, 13, 14]
        assert not live_b.table.paused
        journaled = await b.redis.llen(keys.actions(table_id))

        # A still runs its copy; its next action is refused by the fence and A stops
        state = live_a.table.hand
        assert state is not None
        seat = pending_seats(state)[0]
        live_a.table.submit(PlayerAction(seat, legal_actions(state, seat)[0], live_a.table.seq))
        await _until(lambda: a.registry.get(table_id) is None)
        assert await b.redis.llen(keys.actions(table_id)) == journaled  # nothing from A
        assert await a.ownership.may_write([table_id]) == [False]

        # B plays on and journals under its own token
        await _act(live_b, b.registry)
        await b.writer.flush()
        assert await b.redis.llen(keys.actions(table_id)) == journaled + 1
        owner = await b.redis.get(keys.lease(table_id))
        assert owner == "b|2"
    finally:
        await _stop(a, b)


async def test_a_pause_of_the_whole_machine_moves_no_table(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    """The machine stands still for longer than the lease (Redis's clock jumps with it):
    the owner's lease has expired when both nodes wake. The owner's next renewal sets it
    again (nobody acquired it since: the fence is still its token), before the other
    node's watch, which takes a table only at its second look without a lease."""
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    keys = Keys(prefix)
    try:
        live_a = await _lishui_table(a, (51, 52, 53, 54))
        table_id = live_a.table_id
        await _until(lambda: live_a.table.hand is not None)
        await _act(live_a, a.registry)
        await a.writer.flush()
        await a.keeper.stop()  # its rounds are played by hand below
        held = a.ownership.held()

        await a.redis.delete(keys.lease(table_id))  # expired in the pause
        assert await b.watch_once() == []  # B wakes first: one look without a lease
        assert await a.leases.renew_all(held) == [True]  # A's renewal sets it again
        assert await b.redis.get(keys.lease(table_id)) == "a|1"
        assert await b.watch_once() == []
        assert await b.watch_once() == []
        assert b.registry.get(table_id) is None

        # A plays on under the same token: its journal writes pass the fence
        journaled = await a.redis.llen(keys.actions(table_id))
        await _act(live_a, a.registry)
        await a.writer.flush()
        assert await a.redis.llen(keys.actions(table_id)) == journaled + 1
        assert a.registry.get(table_id) is live_a
        assert await a.ownership.may_write([table_id]) == [True]
    finally:
        await _stop(a, b)


async def test_a_dissolved_table_leaves_no_key_for_good(
    database: Database, redis_url: str, prefix: str, redis: Redis
) -> None:
    """Its lease, journal and lobby line go at once; its fence stays long enough to keep
    any late writer of an old token out, then expires (it had stayed for good: one key
    per table ever opened)."""
    a = await _node("a", database, redis_url, prefix)
    keys = Keys(prefix)
    try:
        live = await _lishui_table(a, (21, 22))
        table_id = live.table_id
        await a.writer.flush()
        assert await redis.exists(keys.config(table_id))
        await a.registry.dissolve(table_id)
        await a.writer.flush()
        left = [key async for key in redis.scan_iter(match=f"{prefix}*{table_id}*")]
        assert left == [keys.fence(table_id)]
        assert not await redis.hexists(keys.directory, table_id)
        assert 0 < await redis.pttl(keys.fence(table_id)) <= FENCE_TTL_MS
    finally:
        await _stop(a)


async def test_a_clean_shutdown_hands_the_table_over(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    try:
        live_a = a.registry.create("wenzhou", 2, timers=SLOW)
        await a.ownership.opened(live_a)
        table_id = live_a.table_id
        await a.registry.sit(table_id, 21)
        await a.registry.sit(table_id, 22, 3)
        await a.writer.flush()
        listed = await b.calls.tables()
        assert listed is not None and [t["id"] for t in listed] == [table_id]
        assert listed[0]["seats"] == [21, None, None, 22] and listed[0]["node"] == "a"
        await _stop(a)  # releases the lease: the table is not lost with the node
        assert await b.watch_once() == []  # unheld at one look: taken at the next
        assert await b.watch_once() == [table_id]
        live_b = b.registry.get(table_id)
        assert live_b is not None and live_b.variant == "wenzhou" and live_b.stake == 2
        assert live_b.accounts() == [21, None, None, 22]
        await b.writer.flush()
        listed = await b.calls.tables()
        assert listed is not None and listed[0]["node"] == "b"
    finally:
        await _stop(b)


async def test_a_restored_table_keeps_its_pause_and_marks_only_live_sockets_connected(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    keys = Keys(prefix)
    try:
        live_a = await _lishui_table(a, (31, 32, 33))
        table_id = live_a.table_id
        await a.registry.sit(table_id, 34, bot=True)
        b.registry.connections.connect(31, Sink())  # 31 plays through B, which lives on
        a.registry.connections.connect(32, Sink())  # 32 played through A, which dies with its socket
        # 33 has no socket anywhere; 34 is a bot
        await _until(lambda: live_a.table.hand is not None)
        await _act(live_a, a.registry)
        await table_admin.pause(a.registry, table_id)
        await a.writer.flush()
        await b.writer.flush()

        # A dies: its lease runs out and its bus goes quiet; its presence entries remain
        await a.keeper.stop()
        await a.bus.stop()
        await a.redis.delete(keys.lease(table_id))
        assert await b.redis.get(keys.online(32)) == "a"
        assert await b.watch_once() == []
        assert await b.watch_once() == [table_id]
        live_b = b.registry.get(table_id)
        assert live_b is not None
        await b.registry.require(table_id).flush()
        assert live_b.table.hand == live_a.table.hand
        assert live_b.table.paused  # the administrator's pause outlived its node
        assert [s.connected for s in live_b.table.seats] == [True, False, False, True]
        assert live_b.bots == {34}
        # the bot is still played as a house bot (claims included), the players are not
        assert [s.house_bot for s in live_b.table.seats] == [False, False, False, True]

        # the restored table is resumed by an administrator, not by the takeover
        await table_admin.resume(b.registry, table_id)
        assert not live_b.table.paused
        await b.writer.flush()
        config = await b.redis.get(keys.config(table_id))
        assert config is not None and '"paused":false' in config
    finally:
        await _stop(a, b)


async def test_seats_of_a_dead_socket_node_are_disconnected_when_its_presence_expires(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    a = await _node("a", database, redis_url, prefix)  # owns the table
    b = await _node("b", database, redis_url, prefix)  # holds two sockets, then dies
    keys = Keys(prefix)
    try:
        live = await _lishui_table(a, (41, 42, 43, 44))
        table_id = live.table_id
        b.registry.connections.connect(41, Sink())
        b.registry.connections.connect(42, Sink())
        a.registry.connections.connect(43, Sink())  # 44 never connected
        await b.writer.flush()
        await a.writer.flush()
        await _until(lambda: live.table.hand is not None)
        assert await a.check_presence() == []  # everybody is where presence says

        # B is killed: no close, no `away`; its entries expire after their TTL
        for account in (41, 42):
            await a.redis.pexpire(keys.online(account), 1)
        await asyncio.sleep(0.05)
        assert sorted(await a.check_presence()) == [(table_id, 0), (table_id, 1)]
        await a.registry.require(table_id).flush()
        assert [s.connected for s in live.table.seats] == [False, False, True, True]
        assert await a.check_presence() == []  # told once

        # 41 comes back on A; 42 logs in on another node: both are connected again
        a.registry.connections.connect(41, Sink())
        await a.writer.flush()
        await a.redis.set(keys.online(42), "c")
        assert await a.check_presence() == []
        await a.registry.require(table_id).flush()
        assert [s.connected for s in live.table.seats] == [True, True, True, True]
    finally:
        await _stop(a, b)


async def test_a_burst_of_hand_endings_fences_every_store_however_many_at_once(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    # each ending asks Redis whether this node still owns its table before storing the
    # hand: 250 at once took more connections than a plain pool holds (redis-py refused
    # past 100: "Too many connections", and the hands waited for their retries)
    node = await _node("a", database, redis_url, prefix)
    try:
        tables = []
        for _ in range(250):
            live = node.registry.create("lishui", 1, timers=SLOW)
            await node.ownership.opened(live)
            tables.append(live.table_id)
        assert await asyncio.gather(*(node.ownership.may_write([t]) for t in tables)) == [[True]] * 250
        assert await node.ownership.may_write(tables) == [True] * 250  # a batch's fence: one read
    finally:
        await _stop(node)


async def test_a_private_room_taken_over_deals_on_its_new_node(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    """A room's table deals only while its session runs, which the node that serves it
    reads from the database: the node that takes the table over reads it too (it had
    never dealt again after a takeover)."""
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    rooms_a, _ = Rooms(a.registry, database.sessions), Rooms(b.registry, database.sessions)
    try:
        ids = await funded_accounts(database, 4, "roomer")
        room = await rooms_a.create(ids[0], "lishui", {}, 1, SLOW,
                                    RoomLength(unit="hands", count=2), spectators=False)
        await _stop(a)  # the node leaves before the first deal: the table goes to B
        assert await b.watch_once() == []
        assert await b.watch_once() == [room.table_id]
        live_b = b.registry.require(room.table_id)
        assert live_b.room == room.code
        for account in ids:
            await b.registry.sit(room.table_id, account)
        await _until(lambda: live_b.table.hand is not None)
        assert live_b.session_over is False
    finally:
        await _stop(b)
