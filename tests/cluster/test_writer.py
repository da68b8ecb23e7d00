"""The node's ordered writer: commands run in the order queued, each completion gets its
own result, `flush` waits for what was queued before it, and a script Redis does not
know yet (new, or forgotten after a restart) is loaded and run in place."""

from __future__ import annotations

import secrets

from redis.asyncio import Redis

from app.cluster.writer import Writer

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
