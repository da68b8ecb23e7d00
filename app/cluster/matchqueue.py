"""The quick-match queues of a cluster, in Redis (`app.tables.matching.MatchQueue`): every
node queues players and runs the matcher over the same queues, and exactly one node forms
each table (`take` is one script that takes a group only if all of it is still in place).

Keys (`Keys`): `qm:queue:<variant>|<level>` a sorted set (account -> joined, ms),
`qm:player:<account>` a hash (state, queue, since, seen, at, reason, table; an outcome
expires after `OUTCOME_MS`), `qm:queues` the set of queue names that may have waiters (a
script that empties a queue removes its name, in the same step). Times are Redis's clock
(`TIME`), which every node shares. Presence is the cluster's own: a player has a table
socket open when `online:<account>` names a node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from app.cluster.keys import Keys
from app.tables.matching import (
    OUTCOME_MS,
    STALE_MATCHING_MS,
    Forming,
    QueueState,
    Standing,
    Waiter,
)

NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function ms(x) return string.format('%d', x) end
"""

# the player's state, a `matching` past its time counting as none
STATE = """
local function state_of(key, stale)
  local s = redis.call('HMGET', key, 'state', 'queue', 'at')
  local state, queue = s[1] or '', s[2] or ''
  if state == 'matching' and now - tonumber(s[3]) > tonumber(stale) then state = '' end
  return state, queue
end
"""

# KEYS: player, new queue, old queue (the one read; else the new one), queue names.
# ARGV: account, new queue's name, the old queue's name as read ('' none), stale ms.
JOIN = NOW + STATE + """
local state, queue = state_of(KEYS[1], ARGV[4])
if state == 'matching' then return 'forming' end
local current = ''
if state == 'queued' then current = queue end
if current ~= ARGV[3] then return 'retry' end
if current == ARGV[2] then return 'same' end
if current ~= '' then
  redis.call('ZREM', KEYS[3], ARGV[1])
  if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('SREM', KEYS[4], current) end
end
local since = now
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] and tonumber(last[2]) >= since then since = tonumber(last[2]) + 1 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'queued', 'queue', ARGV[2], 'since', ms(since),
  'seen', ms(now), 'at', ms(now))
redis.call('ZADD', KEYS[2], ms(since), ARGV[1])
redis.call('SADD', KEYS[4], ARGV[2])
return 'joined'
"""

# KEYS: player, its queue as read (else any key), queue names. ARGV: account, the queue's
# name as read ('' none), stale ms.
LEAVE = NOW + STATE + """
local state, queue = state_of(KEYS[1], ARGV[3])
if state == 'matching' then return 'forming' end
local current = ''
if state == 'queued' then current = queue end
if current ~= ARGV[2] then return 'retry' end
if current ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[3], current) end
end
redis.call('DEL', KEYS[1])
return 'left'
"""

# in place: still queued in KEYS[1] with the same `since`
IN_PLACE = """
local function in_place(player, account, since)
  local score = redis.call('ZSCORE', KEYS[1], account)
  return score and tonumber(score) == tonumber(since)
    and redis.call('HGET', player, 'state') == 'queued'
end
"""

# KEYS: queue, queue names, the group's players. ARGV: queue's name, n, accounts, sinces.
TAKE = NOW + IN_PLACE + """
local n = tonumber(ARGV[2])
for i = 1, n do
  if not in_place(KEYS[2 + i], ARGV[2 + i], ARGV[2 + n + i]) then return 0 end
end
for i = 1, n do
  redis.call('ZREM', KEYS[1], ARGV[2 + i])
  redis.call('HSET', KEYS[2 + i], 'state', 'matching', 'at', ms(now))
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
"""

# KEYS: queue, queue names, players. ARGV: queue's name, reason ('' none), n, accounts, sinces.
PUT_BACK = NOW + """
local n = tonumber(ARGV[3])
local added = false
for i = 1, n do
  local s = redis.call('HMGET', KEYS[2 + i], 'state', 'queue')
  if s[1] == 'matching' and s[2] == ARGV[1] then
    redis.call('ZADD', KEYS[1], ARGV[3 + n + i], ARGV[3 + i])
    redis.call('HSET', KEYS[2 + i], 'state', 'queued', 'at', ms(now), 'seen', ms(now))
    if ARGV[2] == '' then redis.call('HDEL', KEYS[2 + i], 'reason')
    else redis.call('HSET', KEYS[2 + i], 'reason', ARGV[2]) end
    added = true
  end
end
if added then redis.call('SADD', KEYS[2], ARGV[1]) end
return 1
"""

# KEYS: queue, queue names, players. ARGV: queue's name, reason, ttl, n, accounts, sinces.
REMOVE = NOW + IN_PLACE + """
local n = tonumber(ARGV[4])
for i = 1, n do
  if in_place(KEYS[2 + i], ARGV[4 + i], ARGV[4 + n + i]) then
    redis.call('ZREM', KEYS[1], ARGV[4 + i])
    redis.call('HSET', KEYS[2 + i], 'state', 'idle', 'reason', ARGV[2], 'at', ms(now))
    redis.call('PEXPIRE', KEYS[2 + i], ARGV[3])
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
"""

# KEYS: players. ARGV: state, table ('' none), reason ('' none), ttl.
FINISH = NOW + """
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'state') == 'matching' then
    redis.call('HSET', KEYS[i], 'state', ARGV[1], 'at', ms(now))
    if ARGV[2] ~= '' then redis.call('HSET', KEYS[i], 'table', ARGV[2]) end
    if ARGV[3] ~= '' then redis.call('HSET', KEYS[i], 'reason', ARGV[3])
    else redis.call('HDEL', KEYS[i], 'reason') end
    redis.call('PEXPIRE', KEYS[i], ARGV[4])
  end
end
return 1
"""

# KEYS: queue, players. ARGV: reason ('' none), n, accounts, sinces.
TELL = IN_PLACE + """
local n = tonumber(ARGV[2])
for i = 1, n do
  if in_place(KEYS[1 + i], ARGV[2 + i], ARGV[2 + n + i]) then
    if ARGV[1] == '' then redis.call('HDEL', KEYS[1 + i], 'reason')
    else redis.call('HSET', KEYS[1 + i], 'reason', ARGV[1]) end
  end
end
return 1
"""

# KEYS: players seen with a socket open. ARGV: none. Only a queued player is marked.
SEEN = NOW + """
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'state') == 'queued' then
    redis.call('HSET', KEYS[i], 'seen', ms(now))
  end
end
return 1
"""

STATES: dict[str, QueueState] = {
    "idle": "idle", "queued": "queued", "matching": "matching", "seated": "seated"
}
RETRIES = 5  # a join or leave that raced another change of the same player is tried again


def _int(value: Any) -> int | None:
    return None if value is None or value == "" else int(float(value))


class RedisMatchQueue:
    def __init__(self, redis: Redis, keys: Keys) -> None:
        self._redis = redis
        self._keys = keys
        self._join = redis.register_script(JOIN)
        self._leave = redis.register_script(LEAVE)
        self._take = redis.register_script(TAKE)
        self._put_back = redis.register_script(PUT_BACK)
        self._remove = redis.register_script(REMOVE)
        self._finish = redis.register_script(FINISH)
        self._tell = redis.register_script(TELL)
        self._seen = redis.register_script(SEEN)

    async def now(self) -> int:
        seconds, micros = await self._redis.time()  # type: ignore[misc]
        return int(seconds) * 1000 + int(micros) // 1000

    async def _current(self, account: int) -> str:
        """The queue the account waits in now, as read ('' none)."""
        state, queue = await self._redis.hmget(self._keys.match_player(account), "state", "queue")
        return str(queue) if state == "queued" and queue else ""

    async def join(self, account: int, name: str) -> Standing:
        keys = self._keys
        for _ in range(RETRIES):
            current = await self._current(account)
            answer = await self._join(
                keys=[keys.match_player(account), keys.match_queue(name),
                      keys.match_queue(current or name), keys.match_queues],
                args=[account, name, current, STALE_MATCHING_MS],
            )
            if answer == "forming":
                raise Forming()
            if answer != "retry":
                break
        return await self.standing(account)

    async def leave(self, account: int) -> None:
        keys = self._keys
        for _ in range(RETRIES):
            current = await self._current(account)
            answer = await self._leave(
                keys=[keys.match_player(account), keys.match_queue(current or "-"),
                      keys.match_queues],
                args=[account, current, STALE_MATCHING_MS],
            )
            if answer == "forming":
                raise Forming()
            if answer != "retry":
                return

    async def standing(self, account: int) -> Standing:
        keys = self._keys
        found = await self._redis.hgetall(keys.match_player(account))
        record = {str(k): str(v) for k, v in found.items()}
        now = await self.now()
        state = record.get("state", "")
        at = _int(record.get("at")) or 0
        if state not in STATES or (state == "matching" and now - at > STALE_MATCHING_MS):
            return Standing(account, "idle", now=now)
        name = record.get("queue") or None
        position = None
        waiting = 0
        first = None
        if name is not None:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zrank(keys.match_queue(name), account)
                pipe.zcard(keys.match_queue(name))
                pipe.zrange(keys.match_queue(name), 0, 0, withscores=True)
                rank, waiting, head = await pipe.execute()
            if state == "queued" and rank is not None:
                position = int(rank) + 1
            first = int(head[0][1]) if head else None
        return Standing(
            account, STATES[state], name, _int(record.get("since")), position, int(waiting), first,
            record.get("reason") or None, record.get("table") or None, now,
        )

    async def counts(self) -> dict[str, int]:
        names = sorted(str(n) for n in await self._redis.smembers(self._keys.match_queues))
        if not names:
            return {}
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.zcard(self._keys.match_queue(name))
            sizes = await pipe.execute()
        return {name: int(size) for name, size in zip(names, sizes, strict=True) if size}

    async def look(self, name: str) -> list[Waiter]:
        keys = self._keys
        found: list[Any] = await self._redis.zrange(
            keys.match_queue(name), 0, -1, withscores=True
        )
        members = [(str(member), float(score)) for member, score in found]
        if not members:
            return []
        accounts = [int(member) for member, _ in members]
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.mget([keys.online(a) for a in accounts])
            for account in accounts:
                pipe.hget(keys.match_player(account), "seen")
            answers = await pipe.execute()
        online, seen = answers[0], answers[1:]
        present = [a for a, node in zip(accounts, online, strict=True) if node]
        if present:
            await self._seen(keys=[keys.match_player(a) for a in present], args=[])
        now = await self.now() if present else 0
        return [
            Waiter(a, int(score), now if node else (_int(s) or int(score)), bool(node))
            for (_, score), a, node, s in zip(members, accounts, online, seen, strict=True)
        ]

    def _group(self, group: Sequence[Waiter]) -> tuple[list[str], list[int]]:
        keys = [self._keys.match_player(w.account) for w in group]
        return keys, [w.account for w in group] + [w.since for w in group]

    async def take(self, name: str, group: Sequence[Waiter]) -> bool:
        if not group:
            return False
        players, args = self._group(group)
        taken = await self._take(
            keys=[self._keys.match_queue(name), self._keys.match_queues, *players],
            args=[name, len(group), *args],
        )
        return bool(taken)

    async def put_back(self, name: str, waiters: Sequence[Waiter], reason: str | None = None
                       ) -> None:
        if not waiters:
            return
        players, args = self._group(waiters)
        await self._put_back(
            keys=[self._keys.match_queue(name), self._keys.match_queues, *players],
            args=[name, reason or "", len(waiters), *args],
        )

    async def remove(self, name: str, waiters: Sequence[Waiter], reason: str) -> None:
        if not waiters:
            return
        players, args = self._group(waiters)
        await self._remove(
            keys=[self._keys.match_queue(name), self._keys.match_queues, *players],
            args=[name, reason, OUTCOME_MS, len(waiters), *args],
        )

    async def finish(self, accounts: Sequence[int], *, table_id: str | None = None,
                     reason: str | None = None) -> None:
        if not accounts:
            return
        await self._finish(
            keys=[self._keys.match_player(a) for a in accounts],
            args=["seated" if table_id is not None else "idle", table_id or "", reason or "",
                  OUTCOME_MS],
        )

    async def tell(self, name: str, waiters: Sequence[Waiter], reason: str | None) -> None:
        if not waiters:
            return
        players, args = self._group(waiters)
        await self._tell(
            keys=[self._keys.match_queue(name), *players],
            args=[reason or "", len(waiters), *args],
        )
