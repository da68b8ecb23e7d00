"""Presence: which node holds each online account's socket (``online:<account>`` = node
id, with a TTL refreshed while the socket lives).

Arriving on a node replaces the account's entry and, in the same script, publishes a
`Close` to the node that held it before: a second login on any node closes the first.
Leaving deletes the entry only while it still names this node (a newer login elsewhere
keeps its own).
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.typing import EncodableT

from app.cluster.keys import Keys

ARRIVE = """
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if old and old ~= ARGV[1] then
  redis.call('PUBLISH', ARGV[3] .. old, ARGV[4])
  return old
end
return false
"""

LEAVE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

REFRESH = """
local refreshed = 0
for _, key in ipairs(KEYS) do
  local now = redis.call('GET', key)
  if now == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    refreshed = refreshed + 1
  elseif not now then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    refreshed = refreshed + 1
  end
end
return refreshed
"""
REFRESH_CHUNK = 500
"""Accounts a refresh script call carries: one command for many keys (a command per key
held a node's event loop ~0.1 s of CPU at 5,000 sockets, every third of the TTL), and the
loop runs other work between the calls."""


class Presence:
    def __init__(self, redis: Redis, keys: Keys, node_id: str, ttl_ms: int) -> None:
        self._redis = redis
        self._keys = keys
        self.node_id = node_id
        self.ttl_ms = ttl_ms
        self.arrive_script = redis.register_script(ARRIVE)
        self.leave_script = redis.register_script(LEAVE)
        self.refresh_script = redis.register_script(REFRESH)

    def arrive_args(self, account_id: int, close_payload: str) -> tuple[list[str], list[EncodableT]]:
        keys = [self._keys.online(account_id)]
        return keys, [self.node_id, self.ttl_ms, self._keys.channel_prefix, close_payload]

    async def arrive(self, account_id: int, close_payload: str) -> str | None:
        """Mark the account online here; the node it was online on before (told to close)."""
        keys, args = self.arrive_args(account_id, close_payload)
        old = await self.arrive_script(keys=keys, args=args)
        return None if old is None else (old.decode() if isinstance(old, bytes) else str(old))

    async def leave(self, account_id: int) -> bool:
        """Mark the account offline, unless a newer login on another node holds it."""
        keys = [self._keys.online(account_id)]
        return bool(await self.leave_script(keys=keys, args=[self.node_id]))

    async def refresh(self, accounts: list[int]) -> None:
        """Extend (or restore) the entries of the accounts whose sockets are here, a chunk
        of `REFRESH_CHUNK` accounts a command."""
        for start in range(0, len(accounts), REFRESH_CHUNK):
            keys = [self._keys.online(a) for a in accounts[start:start + REFRESH_CHUNK]]
            await self.refresh_script(keys=keys, args=[self.node_id, self.ttl_ms])

    async def where(self, account_id: int) -> str | None:
        """The node holding the account's socket, None when offline."""
        node = await self._redis.get(self._keys.online(account_id))
        return None if node is None else (node.decode() if isinstance(node, bytes) else str(node))
