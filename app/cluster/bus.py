"""The node bus: one pub/sub listener per node on its own channel (``node:<id>``), and
publishing to another node's channel.

The listener runs on its own connection (named ``<prefix>bus:<node>`` so an operator can
find it in CLIENT LIST). When the connection breaks it reconnects and subscribes again,
waiting `backoff_min` seconds, doubling up to `backoff_max`, and back to the minimum once
it is subscribed again. Pub/sub delivers at most once: what was published while the
listener was away is lost (clients `resume` and get it again from the table).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.ops import metrics
from app.ops.tasks import cancel_and_wait

log = logging.getLogger(__name__)

Handler = Callable[[str], Awaitable[None]]


class Bus:
    def __init__(
        self,
        url: str,
        channel: str,
        handler: Handler,
        *,
        client_name: str,
        backoff_min: float = 0.05,
        backoff_max: float = 5.0,
    ) -> None:
        self._url = url
        self.channel = channel
        self._handler = handler
        self._client_name = client_name
        self._backoff_min = backoff_min
        self._backoff_max = backoff_max
        self._task: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()
        self.reconnects = 0  # subscriptions after the first

    async def start(self) -> None:
        """Start listening; returns once subscribed (raises when Redis cannot be reached)."""
        self._task = asyncio.create_task(self._listen(), name=f"bus-{self.channel}")
        waiter = asyncio.ensure_future(self.subscribed.wait())
        done, _ = await asyncio.wait({waiter, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if self._task in done:
            waiter.cancel()
            self._task.result()  # raises the first connection error

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])
            self._task = None

    async def _listen(self) -> None:
        delay = self._backoff_min
        first = True
        while True:
            redis = Redis.from_url(
                self._url, decode_responses=True, client_name=self._client_name
            )
            pubsub = redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                if not first:
                    self.reconnects += 1
                    log.info("bus %s: subscribed again", self.channel)
                first = False
                self.subscribed.set()
                delay = self._backoff_min
                # `listen` blocks on the socket: no timer per message (`get_message` with a
                # timeout arms one each time, a measurable cost at thousands a second)
                async for message in pubsub.listen():
                    if message["type"] != "message":
                        continue
                    try:
                        await self._handler(str(message["data"]))
                    except Exception:  # one bad message must not stop the listener
                        log.exception("bus %s: handling a message failed", self.channel)
            except (RedisError, OSError) as exc:
                metrics.redis_error("bus")
                self.subscribed.clear()
                if first:
                    raise
                log.warning("bus %s: connection lost (%s); again in %.2fs", self.channel, exc, delay)
            finally:
                try:
                    await pubsub.aclose()
                    await redis.aclose()
                except (RedisError, OSError):
                    pass
            await asyncio.sleep(delay)
            delay = min(self._backoff_max, delay * 2)
