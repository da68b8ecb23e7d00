"""Table leases: one node owns a live table while it renews its lease.

- `acquire`: ``SET lease <node>|<token> NX PX ttl`` and ``INCR fence`` in one script, so
  every acquisition gets a fencing token larger than any before it;
- `renew`: ``PEXPIRE`` only while the lease still holds our exact value (compare-and-pexpire);
- `release`: ``DEL`` only while it holds our value (clean shutdown hands the table over);
- `is_current`: the fence check a write makes: no newer token was handed out.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from app.cluster.keys import Keys

ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
  return token
end
return 0
"""

RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@dataclass(frozen=True, slots=True)
class Lease:
    """Our hold on one table: `token` is its fencing token."""

    table_id: str
    node_id: str
    token: int

    @property
    def value(self) -> str:
        return f"{self.node_id}|{self.token}"


def owner_of(value: str | bytes | None) -> str | None:
    """The node id in a lease value."""
    if value is None:
        return None
    text = value.decode() if isinstance(value, bytes) else value
    return text.rsplit("|", 1)[0]


class Leases:
    def __init__(self, redis: Redis, keys: Keys, node_id: str, ttl_ms: int) -> None:
        if "|" in node_id:
            raise ValueError("a node id has no '|'")
        self._redis = redis
        self._keys = keys
        self.node_id = node_id
        self.ttl_ms = ttl_ms
        self._acquire = redis.register_script(ACQUIRE)
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)

    async def acquire(self, table_id: str) -> Lease | None:
        """The lease, with a new fencing token; None while another node holds it."""
        keys = [self._keys.lease(table_id), self._keys.fence(table_id)]
        token = int(await self._acquire(keys=keys, args=[self.node_id, self.ttl_ms]))
        return Lease(table_id, self.node_id, token) if token else None

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease; False when it expired or another node took it (stop serving)."""
        keys = [self._keys.lease(lease.table_id)]
        return bool(await self._renew(keys=keys, args=[lease.value, self.ttl_ms]))

    async def renew_all(self, leases: list[Lease]) -> list[bool]:
        """`renew` for many leases in one round trip."""
        if not leases:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for lease in leases:
                await self._renew(
                    keys=[self._keys.lease(lease.table_id)],
                    args=[lease.value, self.ttl_ms],
                    client=pipe,
                )
            return [bool(result) for result in await pipe.execute()]

    async def release(self, lease: Lease) -> bool:
        keys = [self._keys.lease(lease.table_id)]
        return bool(await self._release(keys=keys, args=[lease.value]))

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease, if any."""
        return owner_of(await self._redis.get(self._keys.lease(table_id)))

    async def is_current(self, lease: Lease) -> bool:
        """The fence: True while no newer token than ours was handed out for the table."""
        current = await self._redis.get(self._keys.fence(lease.table_id))
        return current is not None and int(current) == lease.token
