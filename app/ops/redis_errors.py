"""Redis errors of the node's connection pool, counted where they happen: the connections of a
pool given to `counted` count every exchange with Redis that fails (the connection refused,
lost or timed out: `mahjong_redis_errors_total{client="main"}`), whichever part of the node
made it (the journal's writer, routing, calls, leases, presence, the leaderboards). An error
Redis answers (a script it does not know, a wrong type) is an answer, not counted. The
node's other clients count at the one place each handles its failures (the lease keeper's
thread, the bus's subscription, the request limits' counters).

One failure is counted once, however many of the connection's steps it goes through (a
command whose connection cannot be made fails in `connect`, then in the send that called
it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.ops import metrics

FAILURES = (RedisConnectionError, RedisTimeoutError, OSError)
STEPS = ("connect", "send_packed_command", "read_response")  # a connection's exchanges
_COUNTED = "_mahjong_counted"
Pool = TypeVar("Pool", bound=ConnectionPool)
_made: dict[type[AbstractConnection], type[AbstractConnection]] = {}


def _count(error: BaseException) -> None:
    if not getattr(error, _COUNTED, False):
        setattr(error, _COUNTED, True)
        metrics.redis_error("main")


def _counting_step(base: type[AbstractConnection], name: str) -> Callable[..., Any]:
    """`base`'s coroutine method `name`, counting its failures."""
    step = getattr(base, name)

    async def counted_step(self: AbstractConnection, *args: Any, **kwargs: Any) -> Any:
        try:
            return await step(self, *args, **kwargs)
        except FAILURES as error:
            _count(error)
            raise

    counted_step.__name__ = counted_step.__qualname__ = name
    return counted_step


def counting(base: type[AbstractConnection]) -> type[AbstractConnection]:
    """`base` (the pool's connection class: plain, TLS or Unix socket) counting the failures
    of its steps that talk to Redis (one class per base)."""
    if base not in _made:
        _made[base] = type(f"Counting{base.__name__}", (base,),
                           {name: _counting_step(base, name) for name in STEPS})
    return _made[base]


def counted(pool: Pool) -> Pool:
    """`pool`, its connections (made from now on) counting their failures."""
    pool.connection_class = counting(pool.connection_class)
    return pool
