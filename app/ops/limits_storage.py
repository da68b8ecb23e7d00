"""Where rate-limit counters live: in this process, or in Redis when `REDIS_URL` is set, so
that every node of a cluster counts against the same limits (the `limits` library's
storages; its strategies do the counting atomically)."""

from __future__ import annotations

from limits.aio.storage import MemoryStorage, RedisStorage, Storage

from app.settings import Settings


def limits_storage(settings: Settings) -> Storage:
    """The counters' storage for `settings`: Redis (through redis-py, the client the rest
    of the server uses) when configured, else this process's memory."""
    if settings.redis_url:
        return RedisStorage(
            "async+" + settings.redis_url,
            implementation="redispy",
            key_prefix=f"{settings.redis_prefix}limits",
        )
    return MemoryStorage()
