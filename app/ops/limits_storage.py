"""Where rate-limit counters live: in this process, or in Redis when `REDIS_URL` is set, so
that every node of a cluster counts against the same limits (the `limits` library's
storages; its strategies do the counting atomically)."""

from __future__ import annotations

from limits.aio.storage import MemoryStorage, RedisStorage, Storage

from app.settings import Settings


class SafeMemoryStorage(MemoryStorage):
    """The library's memory storage, whose `clear` leaves the key's (emptied) event list in
    place for its expiry task. That task walks a copy of the keys and reads each one's
    events after an await; a key cleared meanwhile (a good login clears its username and
    address's attempts) made it raise KeyError, logged at ERROR as "Task exception was
    never retrieved" (limits 5.8). The task drops the emptied list itself."""

    async def clear(self, key: str) -> None:
        self.storage.pop(key, None)
        self.expirations.pop(key, None)
        if key in self.events:
            self.events[key] = []


def limits_storage(settings: Settings) -> Storage:
    """The counters' storage for `settings`: Redis (through redis-py, the client the rest
    of the server uses) when configured, else this process's memory."""
    if settings.redis_url:
        return RedisStorage(
            "async+" + settings.redis_url,
            implementation="redispy",
            key_prefix=f"{settings.redis_prefix}limits",
        )
    return SafeMemoryStorage()
