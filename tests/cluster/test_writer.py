"""The node's ordered writer: commands run in the order queued, each completion gets its
own result, `flush` waits for what was queued before it, and a script Redis does not
know yet (new, or forgotten after a restart) is loaded and run in place."""

from __future__ import annotations

import secrets

from redis.asyncio import Redis

from app.cluster.writer import Gather, Writer

PUSH = "return redis.call('RPUSH', KEYS[1], ARGV[1])  -- {tag}"


async def test_in_order_with_results_and_unknown_scripts(redis: Redis, prefix: str) -> None:
    writer = Writer(redis)
    writer.start()
    try:
        # a script body Redis has never seen: its first EVALSHA is refused with NOSCRIPT
        push = redis.register_script(PUSH.format(tag=secrets.token_hex(8)))
        results: list[object] = []
        key = f"{prefix}ordered"
        for n in range(300):
            writer.put(push, [key], [n], results.append)
        writer.publish(f"{prefix}nobody", "hello")
        await writer.flush()
        assert results == list(range(1, 301))
        assert await redis.lrange(key, 0, -1) == [str(n) for n in range(300)]
        # once known, no reload is needed
        writer.put(push, [key], ["last"], results.append)
        await writer.flush()
        assert results[-1] == 301
    finally:
        await writer.stop()


GATHERED = """
redis.call('INCR', ARGV[1] .. 'calls')
for i, key in ipairs(KEYS) do redis.call('RPUSH', key, ARGV[i + 1]) end
return #KEYS
"""


async def test_gathered_items_go_as_one_call_after_the_batch_in_their_order(
    redis: Redis, prefix: str
) -> None:
    """Items of a gathered command queued together are one script call, in the order
    queued, after the batch's other commands; each key gets its own items in order."""
    writer = Writer(redis)
    kind = Gather(redis.register_script(GATHERED), (prefix,))
    # an ordinary command notes how many items `a` holds when it runs
    count = redis.register_script("return redis.call('RPUSH', KEYS[1], redis.call('LLEN', KEYS[2]))")
    a, b, seen = f"{prefix}a", f"{prefix}b", f"{prefix}seen"
    writer.start()
    try:
        await writer.flush()  # started and idle: what follows is queued before it runs
        for n in range(100):
            writer.gather(kind, a if n % 3 else b, f"m{n}")
            if n == 50:
                writer.put(count, [seen, a], [])
        await writer.flush()
        assert await redis.get(f"{prefix}calls") == "1"
        assert await redis.lrange(a, 0, -1) == [f"m{n}" for n in range(100) if n % 3]
        assert await redis.lrange(b, 0, -1) == [f"m{n}" for n in range(100) if not n % 3]
        assert await redis.lrange(seen, 0, -1) == ["0"]  # it ran before the gathered call
        # the next batch is a call of its own
        writer.gather(kind, a, "later")
        await writer.flush()
        assert await redis.get(f"{prefix}calls") == "2"
        assert (await redis.lrange(a, -1, -1)) == ["later"]
    finally:
        await writer.stop()
