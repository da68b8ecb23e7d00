"""Leases are renewed from a thread of the node: a loop busy for longer than the lease's
TTL (a burst of hand endings) keeps its tables; a loop that makes no progress for
`stall_seconds` (stuck) loses them, and the node learns it once its loop runs again."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from redis.asyncio import Redis

from app.cluster.keeper import LeaseKeeper
from app.cluster.keys import Keys
from app.cluster.lease import Lease, Leases

TTL_MS = 300


async def _acquire_as(node_id: str, redis_url: str, prefix: str) -> Lease | None:
    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        return await Leases(redis, Keys(prefix), node_id, TTL_MS).acquire("t1")
    finally:
        await redis.aclose()


async def _kept(redis: Redis, redis_url: str, prefix: str, stall: float) -> tuple[
    Leases, Lease, LeaseKeeper, list[Lease]
]:
    keys = Keys(prefix)
    leases = Leases(redis, keys, "node-a", TTL_MS)
    lease = await leases.acquire("t1")
    assert lease is not None
    lost: list[Lease] = []
    # held until reported lost, as the node's `Ownership.held` (which drops it on the loop)
    keeper = LeaseKeeper(redis_url, leases, lambda: [] if lost else [lease], lost.append, stall)
    keeper.start()
    return leases, lease, keeper, lost


async def test_a_busy_loop_keeps_its_leases(redis: Redis, redis_url: str, prefix: str) -> None:
    leases, lease, keeper, lost = await _kept(redis, redis_url, prefix, stall=30.0)
    try:
        end = time.monotonic() + 5 * TTL_MS / 1000
        while time.monotonic() < end:  # the loop computes for five TTLs (holding the GIL)
            pass
        await asyncio.sleep(0.05)
        assert await leases.owner("t1") == "node-a"
        assert await leases.is_current(lease)
        assert keeper.renewals >= 10 and lost == []
    finally:
        await keeper.stop()


async def test_a_stuck_loop_loses_its_leases(redis: Redis, redis_url: str, prefix: str) -> None:
    _, lease, keeper, lost = await _kept(redis, redis_url, prefix, stall=0.3)
    try:
        time.sleep(1.5)  # noqa: ASYNC251 - the loop stuck for longer than `stall` and the TTL
        # Another node, with a loop of its own, takes the table while this loop is still stuck.
        with ThreadPoolExecutor(1) as other_node:
            other = other_node.submit(asyncio.run, _acquire_as("node-b", redis_url, prefix)).result()
        assert other is not None
        for _ in range(50):  # the loop runs again: its next renewal finds the lease gone
            if lost:
                break
            await asyncio.sleep(0.05)
        # a round may report it again before the loop has dropped it: the node's
        # `Ownership.lost_lease` acts once, so only what is reported matters
        assert lost and set(lost) == {lease}
    finally:
        await keeper.stop()


async def test_a_lease_that_expired_in_a_pause_of_the_machine_is_kept(
    redis: Redis, redis_url: str, prefix: str
) -> None:
    """The whole machine stood still for longer than the TTL (Redis's clock jumps with it):
    the lease is gone when the keeper wakes, and nobody acquired it since; its next round
    sets it again and the table is not lost."""
    leases, lease, keeper, lost = await _kept(redis, redis_url, prefix, stall=30.0)
    try:
        await redis.delete(Keys(prefix).lease("t1"))
        for _ in range(50):
            if await leases.owner("t1") == "node-a":
                break
            await asyncio.sleep(0.02)
        assert await leases.owner("t1") == "node-a"
        assert await leases.is_current(lease)
        await asyncio.sleep(2 * TTL_MS / 1000)  # and renewed as before
        assert await leases.owner("t1") == "node-a" and lost == []
    finally:
        await keeper.stop()
