"""Presence (a second login anywhere closes the first) and the node bus (one listener per
node that comes back after its connection is killed)."""

from __future__ import annotations

import asyncio
import json

import pytest
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster.bus import Bus
from app.cluster.keys import Keys
from app.cluster.presence import REFRESH_CHUNK, Presence


async def _listening(redis_url: str, channel: str, name: str) -> tuple[Bus, list[str]]:
    got: list[str] = []

    async def handle(raw: str) -> None:
        got.append(raw)

    bus = Bus(redis_url, channel, handle, client_name=name, backoff_min=0.05, backoff_max=0.2)
    await bus.start()
    return bus, got


async def _until(condition: object, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def test_a_second_login_elsewhere_tells_the_first_node(
    redis: Redis, redis_url: str, prefix: str
) -> None:
    keys = Keys(prefix)
    a = Presence(redis, keys, "node-a", 10000)
    b = Presence(redis, keys, "node-b", 10000)
    bus_a, got_a = await _listening(redis_url, keys.channel("node-a"), f"{prefix}bus:a")
    try:
        assert await a.arrive(7, '{"close": 7}') is None
        assert await a.where(7) == "node-a"
        assert await b.arrive(7, '{"close": 7}') == "node-a"
        await _until(lambda: got_a)
        assert json.loads(got_a[0]) == {"close": 7}  # node a is told to close its socket
        assert await b.where(7) == "node-b"
        # the old node's socket closing later does not take the new login offline
        assert await a.leave(7) is False
        assert await a.where(7) == "node-b"
        assert await b.leave(7) is True
        assert await a.where(7) is None
    finally:
        await bus_a.stop()


async def test_presence_lives_while_refreshed(redis: Redis, prefix: str) -> None:
    keys = Keys(prefix)
    a = Presence(redis, keys, "node-a", 1000)
    await a.arrive(8, "{}")
    await redis.pexpire(keys.online(8), 50)
    await asyncio.sleep(0.1)
    assert await a.where(8) is None  # expired: e.g. the node died
    await a.refresh([8])  # the node still holds the socket: it is online again
    assert await a.where(8) == "node-a"
    assert 0 < await redis.pttl(keys.online(8)) <= 1000
    b = Presence(redis, keys, "node-b", 1000)
    await b.arrive(8, "{}")
    await a.refresh([8])  # a refresh never takes an account from the node holding it
    assert await a.where(8) == "node-b"


async def test_a_refresh_of_thousands_reaches_every_account(redis: Redis, prefix: str) -> None:
    """A node refreshes every socket it holds (5,000 in the load test) in chunks of one
    command each: every entry is extended or restored, none taken from another node."""
    keys = Keys(prefix)
    a, b = Presence(redis, keys, "node-a", 60_000), Presence(redis, keys, "node-b", 60_000)
    accounts = list(range(1, 2 * REFRESH_CHUNK + 7))
    for account in accounts[::2]:
        await a.arrive(account, "{}")
        await redis.pexpire(keys.online(account), 5_000)
    await b.arrive(accounts[-1], "{}")
    await a.refresh(accounts)
    found = await redis.mget([keys.online(account) for account in accounts])
    assert found[:-1] == ["node-a"] * (len(accounts) - 1)
    assert found[-1] == "node-b"
    ttls = [await redis.pttl(keys.online(account)) for account in accounts[:-1:97]]
    assert all(5_000 < ttl <= 60_000 for ttl in ttls)  # extended, or set again


async def test_the_listener_subscribes_again_after_its_connection_is_killed(
    redis: Redis, redis_url: str, prefix: str
) -> None:
    keys = Keys(prefix)
    name = f"{prefix}bus:x".replace(":", "-")
    bus, got = await _listening(redis_url, keys.channel("x"), name)
    try:
        await redis.publish(keys.channel("x"), "one")
        await _until(lambda: got == ["one"])
        clients = await redis.client_list()
        ids = [c["id"] for c in clients if c.get("name") == name]
        assert len(ids) == 1  # exactly one listener connection per node
        await redis.execute_command("CLIENT", "KILL", "ID", ids[0])
        await _until(lambda: bus.reconnects >= 1 and bus.subscribed.is_set())
        async with asyncio.timeout(5):
            while (await redis.pubsub_numsub(keys.channel("x")))[0][1] < 1:
                await asyncio.sleep(0.02)
        await redis.publish(keys.channel("x"), "two")
        await _until(lambda: got == ["one", "two"])
    finally:
        await bus.stop()
    assert (await redis.pubsub_numsub(keys.channel("x")))[0][1] == 0


async def test_an_unreachable_redis_fails_the_start() -> None:
    async def handle(raw: str) -> None:
        pass

    bus = Bus("redis://127.0.0.1:1/0", "nowhere", handle, client_name="unreachable")
    with pytest.raises((RedisError, OSError)):
        await bus.start()
