"""Redis errors and the cluster writer's drops, counted as an operator reads them: against a
port where no Redis listens (no Redis server needed), each failed exchange is counted once,
by the client that made it, and the commands the writer gives up on are counted."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from app.cluster import writer as writer_module
from app.cluster.bus import Bus
from app.cluster.writer import Writer
from app.loadtest.servers import free_port
from app.ops.redis_errors import counted


def _errors(client: str) -> float:
    return REGISTRY.get_sample_value("mahjong_redis_errors_total", {"client": client}) or 0.0


def _dropped() -> float:
    return REGISTRY.get_sample_value("mahjong_writer_dropped_commands_total") or 0.0


def _nowhere() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


async def _handler(_: str) -> None:
    return None


async def test_a_failed_command_of_the_pool_is_one_error() -> None:
    redis = Redis.from_pool(counted(BlockingConnectionPool.from_url(_nowhere(), timeout=1)))
    before = _errors("main")
    try:
        with pytest.raises(RedisConnectionError):
            await redis.ping()  # the connection fails in `connect`, then in the send: once
        assert _errors("main") == before + 1
        with pytest.raises(RedisConnectionError):
            await redis.get("k")
        assert _errors("main") == before + 2
    finally:
        await redis.aclose()


async def test_the_writer_counts_its_attempts_and_what_it_drops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(writer_module, "RETRIES", 2)
    redis = Redis.from_pool(counted(BlockingConnectionPool.from_url(_nowhere(), timeout=1)))
    script = redis.register_script("return 1")
    writer = Writer(redis)
    results: list[object] = []
    errors, dropped = _errors("main"), _dropped()
    writer.start()
    try:
        writer.put(script, ["a"], [], results.append)
        writer.put(script, ["b"], [], results.append)
        await writer.flush()
    finally:
        await writer.stop()
        await redis.aclose()
    assert all(isinstance(result, ConnectionError) for result in results) and len(results) == 2
    assert _dropped() == dropped + 2
    assert _errors("main") == errors + 2  # one failed pipeline per attempt


async def test_the_bus_counts_a_subscription_that_fails() -> None:
    bus = Bus(_nowhere(), "mj:test", _handler, client_name="test")
    before = _errors("bus")
    with pytest.raises(RedisConnectionError):
        await bus.start()
    await bus.stop()
    assert _errors("bus") == before + 1
