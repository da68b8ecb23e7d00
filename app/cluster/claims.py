"""Seat claims: an account sits at one table of the whole cluster at a time.

``seated:<account>`` holds ``<table>|<ms>``: the table the account sits at (or is being
seated at) and when the claim was made (Redis's clock). Sitting claims first, in one
script (`CLAIM`): no key -> the claim is made; a key naming the same table -> it stands
(the owner's sit then decides, e.g. `already_seated`); a key naming another table -> the
sit is refused with that table. Two concurrent sits of one account on any nodes: exactly
one makes the claim.

The owner of the table gives the claim back (`RELEASE`, compare-and-delete: only a claim
naming that table) whenever the account's seat is freed. A claim whose release was lost
(the owner died between freeing the seat and writing) must not lock the account out for
good: a claim older than `GRACE_MS` whose table's directory line does not list the
account (or no longer exists) is stale and is replaced by the new one. The grace covers
the time between a claim and the directory listing the seat (a sit and its summary write,
well under the lobby's 5 s call timeout).
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis

from app.cluster.keys import Keys

GRACE_MS = 15_000

# KEYS: seated:<account>, the directory hash. ARGV: table id, account id, grace (ms).
# Returns the table the claim names afterwards.
CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local value = ARGV[1] .. '|' .. string.format('%d', now)
local old = redis.call('GET', KEYS[1])
if not old then
  redis.call('SET', KEYS[1], value)
  return ARGV[1]
end
local held, at = string.match(old, '^(.*)|(%d+)$')
if held == ARGV[1] then return held end
if held == nil or now - tonumber(at) >= tonumber(ARGV[3]) then
  local line = held and redis.call('HGET', KEYS[2], held)
  local listed = false
  if line then
    for _, seated in ipairs(cjson.decode(line)['seats']) do
      if seated == tonumber(ARGV[2]) then listed = true end
    end
  end
  if not listed then
    redis.call('SET', KEYS[1], value)
    return ARGV[1]
  end
end
return held
"""

# KEYS: seated:<account>. ARGV: table id. Deletes the claim only while it names that table.
RELEASE = """
local old = redis.call('GET', KEYS[1])
if old and string.match(old, '^(.*)|') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# KEYS: seated:<account> of each account asked about, then the directory hash. ARGV: grace
# (ms), then the account ids in the order of their keys. Returns the accounts seated: a claim
# within its grace, or an older one whose table's directory line lists the account (what
# `CLAIM` would not replace).
SEATED = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local directory = KEYS[#KEYS]
local seated = {}
for i = 1, #KEYS - 1 do
  local old = redis.call('GET', KEYS[i])
  if old then
    local held, at = string.match(old, '^(.*)|(%d+)$')
    local holds = held ~= nil and now - tonumber(at) < tonumber(ARGV[1])
    if not holds then
      local line = held and redis.call('HGET', directory, held)
      if line then
        for _, sitting in ipairs(cjson.decode(line)['seats']) do
          if sitting == tonumber(ARGV[i + 1]) then holds = true end
        end
      end
    end
    if holds then seated[#seated + 1] = ARGV[i + 1] end
  end
end
return seated
"""


class Claims:
    def __init__(self, redis: Redis, keys: Keys, grace_ms: int = GRACE_MS) -> None:
        self._keys = keys
        self.grace_ms = grace_ms
        self.claim_script = redis.register_script(CLAIM)
        self.release_script = redis.register_script(RELEASE)
        self.seated_script = redis.register_script(SEATED)

    async def claim(self, account_id: int, table_id: str) -> str:
        """Claim the account's seat for `table_id`: the table the claim names afterwards."""
        held = await self.claim_script(
            keys=[self._keys.seated(account_id), self._keys.directory],
            args=[table_id, account_id, self.grace_ms],
        )
        return str(held)

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        """Which of the accounts hold a seat on some node (a claim `claim` would not
        replace): one script, the accounts' keys and at most one directory line each."""
        if not account_ids:
            return set()
        found = await self.seated_script(
            keys=[*(self._keys.seated(a) for a in account_ids), self._keys.directory],
            args=[self.grace_ms, *account_ids],
        )
        return {int(a) for a in found}

    def release_args(self, account_id: int, table_id: str) -> tuple[list[str], list[str]]:
        """The keys and arguments of `RELEASE` (sent through the node's ordered writer)."""
        return [self._keys.seated(account_id)], [table_id]
