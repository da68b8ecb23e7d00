"""Leases and fencing tokens: one owner at a time, a larger token on every acquisition,
renewal only by the holder, and writes refused once a newer token exists."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from app.cluster.journal import APPEND, Journal
from app.cluster.keys import Keys
from app.cluster.lease import FENCE_TTL_MS, Leases
from app.rules.actions import Discard
from app.rules.tiles import parse_one


async def test_one_owner_and_growing_tokens(redis: Redis, prefix: str) -> None:
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 5000)
    b = Leases(redis, keys, "node-b", 5000)
    first = await a.acquire("t1")
    assert first is not None and first.token == 1
    assert await b.acquire("t1") is None  # held: nobody else gets it
    assert await a.owner("t1") == "node-a"
    assert await b.renew(first) is True  # renewal compares the value, not the caller
    assert await a.release(first) is True
    second = await b.acquire("t1")
    assert second is not None and second.token == 2
    assert await a.owner("t1") == "node-b"
    # the old holder can neither renew nor release the new lease, and is fenced off
    assert await a.renew(first) is False
    assert await a.release(first) is False
    assert await a.is_current(first) is False
    assert await b.is_current(second) is True


async def test_an_expired_lease_goes_to_the_next_node(redis: Redis, prefix: str) -> None:
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 300)
    b = Leases(redis, keys, "node-b", 300)
    held = await a.acquire("t2")
    assert held is not None
    assert await a.renew(held)
    await asyncio.sleep(0.45)  # the owner stopped renewing (it died)
    taken = await b.acquire("t2")
    assert taken is not None and taken.token == held.token + 1
    assert await a.renew(held) is False  # the stale owner learns it lost the table


async def test_an_expired_lease_nobody_took_is_set_again_by_its_holder(
    redis: Redis, prefix: str
) -> None:
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 300)
    b = Leases(redis, keys, "node-b", 300)
    held = await a.acquire("t4")
    assert held is not None
    await asyncio.sleep(0.45)  # the whole machine stood still: nobody acquired it meanwhile
    assert await a.owner("t4") is None
    assert await a.renew(held) is True  # the fence is still its token: set again
    assert await a.owner("t4") == "node-a" and await a.is_current(held)
    assert await b.acquire("t4") is None
    # a lease released and taken by another node since is not
    assert await a.release(held) is True
    other = await b.acquire("t4")
    assert other is not None and await b.release(other) is True
    assert await a.renew(held) is False
    assert await a.owner("t4") is None


async def test_journal_writes_of_a_stale_owner_are_refused(redis: Redis, prefix: str) -> None:
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 300)
    b = Leases(redis, keys, "node-b", 300)
    journal = Journal(keys)
    append = redis.register_script(APPEND)
    old = await a.acquire("t3")
    assert old is not None
    action = Discard(0, parse_one("1m"))
    k, args = journal.append("t3", old.token, action)
    assert await append(keys=k, args=args) == 1
    await asyncio.sleep(0.45)
    new = await b.acquire("t3")
    assert new is not None
    k, args = journal.append("t3", old.token, action)
    assert await append(keys=k, args=args) == 0  # fenced: nothing written
    k, args = journal.append("t3", new.token, action)
    assert await append(keys=k, args=args) == 2
    assert len(await redis.lrange(keys.actions("t3"), 0, -1)) == 2


async def test_renewing_many_leases_at_once(redis: Redis, prefix: str) -> None:
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 5000)
    b = Leases(redis, keys, "node-b", 5000)
    held = [lease for t in ("r1", "r2", "r3") if (lease := await a.acquire(t)) is not None]
    assert len(held) == 3
    await redis.delete(keys.lease("r2"))
    assert await b.acquire("r2") is not None  # r2 moved to node b meanwhile
    assert await a.renew_all(held) == [True, False, True]
    assert await a.renew_all([]) == []


async def test_a_fence_expires_only_long_after_its_lease_was_last_held(
    redis: Redis, prefix: str
) -> None:
    """A closed table's `fence:` key goes in time (it had stayed for good, one per table
    ever opened); while the lease is held, each renewal puts its expiry back."""
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 5000)
    held = await a.acquire("f1")
    assert held is not None
    assert 5000 < await redis.pttl(keys.fence("f1")) <= FENCE_TTL_MS
    await redis.pexpire(keys.fence("f1"), 60_000)  # as if the last renewal were long ago
    assert await a.renew(held) is True
    assert await redis.pttl(keys.fence("f1")) > FENCE_TTL_MS - 60_000
    assert await a.is_current(held)


async def test_a_fence_that_lapsed_while_its_table_lived_on_still_grows(
    redis: Redis, prefix: str
) -> None:
    """A table whose journal outlived its fence (no node held it for a week: a whole
    cluster stopped) is taken with a token above every earlier one, never 1 again."""
    keys = Keys(prefix)
    a = Leases(redis, keys, "node-a", 5000)
    b = Leases(redis, keys, "node-b", 5000)
    for _ in range(3):
        lease = await a.acquire("f2")
        assert lease is not None and await a.release(lease)
    assert lease.token == 3
    await redis.set(keys.config("f2"), "{}")  # the table's journal
    await redis.delete(keys.fence("f2"))  # expired
    taken = await b.acquire("f2")
    assert taken is not None and taken.token > lease.token
    assert await b.is_current(taken) and not await a.is_current(lease)
    assert await b.owner("f2") == "node-b"
    assert await b.renew(taken) is True
    again = await b.release(taken) and await a.acquire("f2")
    assert again and again.token == taken.token + 1
    # a table never seen before starts at 1, as always
    fresh = await a.acquire("f3")
    assert fresh is not None and fresh.token == 1
