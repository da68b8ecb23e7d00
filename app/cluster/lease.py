"""Table leases: one node owns a live table while it renews its lease.

- `acquire`: ``SET lease <node>|<token> NX PX ttl`` and ``INCR fence`` in one script, so
  every acquisition gets a fencing token larger than any before it;
- the fence expires `FENCE_TTL_MS` (a week) after the last acquisition or renewal of the
  table's lease, so that closed tables leave no key for good; a live table's lease is
  renewed every third of its TTL, and a table without a lease is taken over within
  seconds, so a fence lapses only when no node has held the table for a week. Should a
  table's journal outlive that (a whole cluster stopped for a week), its next acquisition
  finds the counter gone and the configuration still there, and starts the count again
  from Redis's clock in milliseconds: above every token counted one by one before;
- `renew`: ``PEXPIRE`` only while the lease still holds our exact value (compare-and-pexpire);
  a lease that expired with no acquisition since (the fence still our token) is set again:
  nobody else can have served the table, and a pause of the whole machine longer than the
  TTL (Redis's clock jumps with it) then moves no table; `renew_all` does it for hundreds
  of leases in one script call;
- `release`: ``DEL`` only while it holds our value (clean shutdown hands the table over);
- `is_current`: the fence check a write makes: no newer token was handed out;
- `unheld`: the tables of the directory with no lease, picked by Redis in one script (the
  watch every node runs twice a second: thousands of tables cost Redis about a
  millisecond, where one EXISTS each cost the asking process ~20 us apiece).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.typing import EncodableT

from app.cluster.keys import Keys

FENCE_TTL_MS = 7 * 24 * 3600 * 1000
"""How long a table's fence outlives the last acquisition or renewal of its lease (module
docstring): far beyond any lease, stall or failover."""

# KEYS: the lease, the fence, the table's configuration (the journal's). ARGV: this node,
# the lease's TTL, the fence's. The token; 0: another node holds the lease.
ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('INCR', KEYS[2])
  if token == 1 and redis.call('EXISTS', KEYS[3]) == 1 then
    -- the fence lapsed while the table lived on: count on from the clock, above every
    -- token before (those were counted from 1, one per acquisition)
    local t = redis.call('TIME')
    token = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('SET', KEYS[2], string.format('%d', token))
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('SET', KEYS[1], ARGV[1] .. '|' .. string.format('%d', token), 'PX', ARGV[2])
  return token
end
return 0
"""

# KEYS: n lease keys, then their n fence keys; ARGV[1]: the lease's TTL, ARGV[2]: the
# fence's, ARGV[2 + i]: lease i's value (`<node>|<token>`). 1: renewed (or set again:
# expired, and no acquisition since), 0: lost. A lease kept keeps its fence.
RENEW_MANY = """
local n = #KEYS / 2
local out = {}
for i = 1, n do
  local value = ARGV[i + 2]
  local held = redis.call('GET', KEYS[i])
  if held == value then
    out[i] = redis.call('PEXPIRE', KEYS[i], ARGV[1])
  elseif not held and redis.call('GET', KEYS[n + i]) == string.match(value, '[^|]*$') then
    redis.call('SET', KEYS[i], value, 'PX', ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
  if out[i] == 1 then redis.call('PEXPIRE', KEYS[n + i], ARGV[2]) end
end
return out
"""
RENEW_BATCH = 500  # leases per RENEW_MANY call

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS[1]: the table directory (a hash by table id); ARGV[1]: the lease keys' prefix. The
# lease keys are built inside the script: fine on one Redis (the cluster's deployment),
# not on Redis Cluster, which would need every key declared.
UNHELD = """
local out = {}
for _, table_id in ipairs(redis.call('HKEYS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. table_id) == 0 then out[#out + 1] = table_id end
end
return out
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
    def __init__(
        self, redis: Redis, keys: Keys, node_id: str, ttl_ms: int,
        fence_ttl_ms: int = FENCE_TTL_MS,
    ) -> None:
        if "|" in node_id:
            raise ValueError("a node id has no '|'")
        self._redis = redis
        self._keys = keys
        self.node_id = node_id
        self.ttl_ms = ttl_ms
        self.fence_ttl_ms = fence_ttl_ms
        self._acquire = redis.register_script(ACQUIRE)
        self._release = redis.register_script(RELEASE)
        self._unheld = redis.register_script(UNHELD)
        self._renew_many = redis.register_script(RENEW_MANY)

    async def unheld(self) -> list[str]:
        """The tables listed in the directory that no node holds a lease on now."""
        found = await self._unheld(keys=[self._keys.directory], args=[self._keys.lease("")])
        return [t.decode() if isinstance(t, bytes) else str(t) for t in found]

    async def acquire(self, table_id: str) -> Lease | None:
        """The lease, with a new fencing token; None while another node holds it."""
        keys = [
            self._keys.lease(table_id), self._keys.fence(table_id), self._keys.config(table_id)
        ]
        args: list[EncodableT] = [self.node_id, self.ttl_ms, self.fence_ttl_ms]
        token = int(await self._acquire(keys=keys, args=args))
        return Lease(table_id, self.node_id, token) if token else None

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease (or set it again: expired, and nobody acquired it since); False
        when another node took it (stop serving)."""
        return (await self.renew_all([lease]))[0]

    async def renew_all(self, leases: list[Lease]) -> list[bool]:
        """`renew` for many leases, `RENEW_BATCH` to a script call (one command each: a
        node renews every lease it holds each third of the TTL)."""
        renewed: list[bool] = []
        for _, keys, args in self.renew_calls(leases):
            renewed += [bool(result) for result in await self._renew_many(keys=keys, args=args)]
        return renewed

    def renew_calls(
        self, leases: list[Lease]
    ) -> Iterator[tuple[list[Lease], list[str], list[EncodableT]]]:
        """The `RENEW_MANY` calls that renew `leases`: each batch, its KEYS and ARGV (also
        sent from the `LeaseKeeper`'s thread, over a connection of its own)."""
        for start in range(0, len(leases), RENEW_BATCH):
            batch = leases[start:start + RENEW_BATCH]
            keys = [self._keys.lease(lease.table_id) for lease in batch]
            keys += [self._keys.fence(lease.table_id) for lease in batch]
            yield batch, keys, [
                self.ttl_ms, self.fence_ttl_ms, *(lease.value for lease in batch)
            ]

    async def release(self, lease: Lease) -> bool:
        keys = [self._keys.lease(lease.table_id)]
        return bool(await self._release(keys=keys, args=[lease.value]))

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease, if any."""
        return owner_of(await self._redis.get(self._keys.lease(table_id)))

    async def is_current(self, lease: Lease) -> bool:
        """The fence: True while no newer token than ours was handed out for the table."""
        (current,) = await self.are_current([lease])
        return current

    async def are_current(self, leases: Sequence[Lease]) -> list[bool]:
        """`is_current` for several leases, in one read."""
        if not leases:
            return []
        tokens = await self._redis.mget([self._keys.fence(lease.table_id) for lease in leases])
        return [token is not None and int(token) == lease.token
                for lease, token in zip(leases, tokens, strict=True)]
