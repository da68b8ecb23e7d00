"""Cross-node message routing over Redis, against bare Redis pub/sub in the same run.

    REDIS_URL=redis://127.0.0.1:6379/5 python -m bench.bench_cluster [messages]

Two `RedisNetwork` nodes in one process: node A `deliver`s server messages for an account
whose socket (a sink) is on node B, as a table owner does for every per-seat message; the
baseline publishes the same JSON on a bare channel to a bare subscriber. It prints
messages/s and the send-to-receive latency p50/p99 of both, and their ratio. Keys live
under a fresh prefix that is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import sys
import time
from typing import Any, cast

from redis.asyncio import Redis

from app.cluster.node import RedisNetwork
from app.protocol import ErrorMessage, ServerMessage
from app.settings import Settings
from app.tables.registry import TableRegistry

ACCOUNT = 1
PACED = 2000
PACE = 500.0  # messages a second: about 25 busy tables' worth of per-seat messages
TEXT = "x" * 160  # about the size of a discard event on the wire


class Sink:
    def __init__(self, expected: int, sent: dict[int, float]) -> None:
        self.latencies: list[float] = []
        self.expected = expected
        self.sent = sent
        self.done = asyncio.Event()

    def deliver(self, message: ServerMessage) -> None:
        assert isinstance(message, ErrorMessage) and message.ref_seq is not None
        self.latencies.append(time.perf_counter() - self.sent[message.ref_seq])
        if len(self.latencies) == self.expected:
            self.done.set()

    def close(self, code: int) -> None:
        pass


def _summary(name: str, count: int, seconds: float, latencies: list[float]) -> dict[str, Any]:
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "name": name, "rate": count / seconds, "p50": cuts[49] * 1000, "p99": cuts[98] * 1000,
    }


async def _routed(url: str, prefix: str, count: int, pace: float) -> dict[str, Any]:
    nodes = []
    for name in ("a", "b"):
        settings = Settings(
            redis_url=url, redis_prefix=prefix, node_id=name, jwt_secret="x" * 40,
            watch_interval_ms=60000,
        )
        network = RedisNetwork(settings, TableRegistry(cast(Any, None)))
        await network.start()
        nodes.append(network)
    a, b = nodes
    sent: dict[int, float] = {}
    sink = Sink(count, sent)
    b.routing.connected(ACCOUNT, sink)
    await b.writer.flush()
    started = time.perf_counter()
    for seq in range(count):
        if pace:
            await _pace(started, seq, pace)
        sent[seq] = time.perf_counter()
        a.routing.deliver(ACCOUNT, ErrorMessage(code="internal", message=TEXT, ref_seq=seq))
        if not pace and seq % 200 == 0:
            await asyncio.sleep(0)
    await asyncio.wait_for(sink.done.wait(), 120)
    elapsed = time.perf_counter() - started
    for network in nodes:
        await network.stop()
    return _summary("routed", count, elapsed, sink.latencies)


async def _pace(started: float, seq: int, rate: float) -> None:
    """Sleep until message `seq` is due at `rate` messages a second."""
    due = started + seq / rate
    delay = due - time.perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


async def _bare(url: str, prefix: str, count: int, pace: float) -> dict[str, Any]:
    redis = Redis.from_url(url, decode_responses=True)
    listener = Redis.from_url(url, decode_responses=True)
    pubsub = listener.pubsub(ignore_subscribe_messages=True)
    channel = f"{prefix}bare"
    await pubsub.subscribe(channel)
    payload = ErrorMessage(code="internal", message=TEXT, ref_seq=0).model_dump_json()
    sent: dict[int, float] = {}
    latencies: list[float] = []

    async def receive() -> None:
        while len(latencies) < count:
            message = await pubsub.get_message(timeout=1.0)
            if message is not None:
                seq = int(message["data"].split("|", 1)[0])
                latencies.append(time.perf_counter() - sent[seq])

    receiver = asyncio.create_task(receive())
    started = time.perf_counter()
    batch = 1 if pace else 200
    for first in range(0, count, batch):
        if pace:
            await _pace(started, first, pace)
        async with redis.pipeline(transaction=False) as pipe:
            for seq in range(first, min(count, first + batch)):
                sent[seq] = time.perf_counter()
                pipe.publish(channel, f"{seq}|{payload}")
            await pipe.execute()
    await asyncio.wait_for(receiver, 120)
    elapsed = time.perf_counter() - started
    await pubsub.aclose()
    await listener.aclose()
    await redis.aclose()
    return _summary("bare", count, elapsed, latencies)


async def run_async(url: str, count: int) -> str:
    prefix = f"bench-{secrets.token_hex(4)}:"
    try:
        bare = await _bare(url, prefix, count, 0)
        routed = await _routed(url, prefix, count, 0)
        paced_bare = await _bare(url, prefix, PACED, PACE)
        paced_routed = await _routed(url, prefix, PACED, PACE)
    finally:
        redis = Redis.from_url(url)
        async for key in redis.scan_iter(match=f"{prefix}*"):
            await redis.delete(key)
        await redis.aclose()
    lines = [
        "## Cross-node routing (`app.cluster`)",
        "",
        "Server messages of about 200 bytes, both nodes in one process, Redis on loopback.",
        "Routed: node A `deliver`s (presence lookup and PUBLISH in one script, through the",
        "ordered writer), node B's listener parses it and hands it to the socket. Bare:",
        "PUBLISH of the same JSON to one plain subscriber.",
        f"Throughput: {count:,} messages sent at once (latency is then mostly queueing);",
        f"latency: {PACED:,} messages paced at {PACE:,.0f}/s.",
        "",
        "| path | burst messages/s | paced p50 ms | paced p99 ms |",
        "|---|---:|---:|---:|",
    ]
    for burst, paced in ((routed, paced_routed), (bare, paced_bare)):
        lines.append(
            f"| {burst['name']} | {burst['rate']:,.0f} | {paced['p50']:.2f} | {paced['p99']:.2f} |"
        )
    lines += ["", f"Routed / bare throughput: {routed['rate'] / bare['rate']:.2f}."]
    return "\n".join(lines)


def run(count: int = 20000) -> str:
    url = os.environ.get("REDIS_URL") or os.environ.get("TEST_REDIS_URL")
    if not url:
        return "## Cross-node routing (`app.cluster`)\n\nSkipped: REDIS_URL is not set."
    return asyncio.run(run_async(url, count))


if __name__ == "__main__":
    print(run(int(sys.argv[1]) if len(sys.argv) > 1 else 20000))
