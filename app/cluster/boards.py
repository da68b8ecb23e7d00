"""Leaderboards (排行榜) as Redis sorted sets, for a cluster: by silver (``board:silver``)
and by points in each variant (``board:points:<variant>``). Win rate stays a PostgreSQL
query (it filters on a minimum number of hands).

A member is the account id, zero-padded, and its score the value negated: ascending
order is then the highest value first and, within a tie, the older account first, the
order of the PostgreSQL boards. A row's rank is one plus the number of members with a
strictly better score (equal values share a rank: 1, 2, 2, 4).

The sets are rebuilt from PostgreSQL (banned accounts, the house and its bots left out:
`house.on_leaderboards`) when missing and then
every `REBUILD_SECONDS` by one node at a time (a lock key), and the four seats of a hand
are updated as soon as it is settled: `queue` gathers the seats of the hands settled while
a write is under way into the next write, one pipeline for all of them, and the hand's
settlement does not wait for it (a burst of endings would otherwise make two round trips a
hand before each result is shown). A banned account found on a page is removed and the
page read again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import cast

from redis.asyncio import Redis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.cluster.keys import Keys
from app.rules.variants import VARIANTS
from app.store import house
from app.store.models import Account, VariantStats
from app.store.ranks import BoardEntry
from app.tables.settlement.results import Profile

log = logging.getLogger(__name__)

REBUILD_SECONDS = 60
CHUNK = 5000


def _member(account_id: int) -> str:
    return f"{account_id:012d}"


def board_names() -> list[str]:
    return ["silver"] + [f"points:{variant}" for variant in VARIANTS]


class Boards:
    def __init__(
        self, redis: Redis, keys: Keys, sessions: async_sessionmaker[AsyncSession]
    ) -> None:
        self._redis = redis
        self._keys = keys
        self._sessions = sessions
        # (account, variant) -> its profile after its latest hand, for the next write
        self._pending: dict[tuple[int, str], Profile] = {}
        self._writing: asyncio.Task[None] | None = None

    async def board(self, name: str, limit: int, offset: int) -> list[BoardEntry] | None:
        """One page of a board; None when the board is not built yet."""
        key = self._keys.board(name)
        if not await self._redis.exists(self._keys.board("built")):
            return None
        rows = cast(
            list[tuple[str, float]],
            await self._redis.zrange(key, offset, offset + limit - 1, withscores=True),
        )
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, score in rows:
                pipe.zcount(key, "-inf", f"({score}")
            better = await pipe.execute()
        return [
            BoardEntry(int(member), -int(score), int(ahead) + 1)
            for (member, score), ahead in zip(rows, better)
        ]

    async def forget(self, account_ids: list[int]) -> None:
        """Take accounts off every board (banned or deleted)."""
        members = [_member(a) for a in account_ids]
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in board_names():
                pipe.zrem(self._keys.board(name), *members)
            await pipe.execute()

    def queue(self, profiles: Mapping[int, Profile], variant: str) -> None:
        """Update the boards of the accounts of a settled hand, from their profiles as the
        hand's store read them, in the next write of the boards (with every hand settled
        meanwhile), without waiting for it. A write that fails is logged: the next rebuild
        has them."""
        for account, profile in profiles.items():
            self._pending.pop((account, variant), None)  # the latest profile goes last
            self._pending[account, variant] = profile
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_pending(), name="boards-settled")

    async def drain(self) -> None:
        """Wait for the queued updates to be written (at shutdown)."""
        while self._writing is not None and not self._writing.done():
            await self._writing

    async def _write_pending(self) -> None:
        while self._pending:
            pending, self._pending = self._pending, {}
            try:
                await self._write(pending)
            except Exception:  # the boards catch up at their next rebuild
                log.exception("updating the leaderboards of %d seats failed", len(pending))

    async def _write(self, profiles: Mapping[tuple[int, str], Profile]) -> None:
        """One pipeline: each ranked account's silver and points in its variant, and each
        account no longer ranked (banned) off every board."""
        if not await self._redis.exists(self._keys.board("built")):
            return  # the first rebuild will have them
        silver = {_member(a): -p.balance for (a, _), p in profiles.items() if p.ranked}
        scored: dict[str, dict[str, int]] = {}
        for (a, variant), p in profiles.items():
            if p.ranked:
                scored.setdefault(variant, {})[_member(a)] = -p.points
        banned = {_member(a) for (a, _), p in profiles.items() if not p.ranked}
        async with self._redis.pipeline(transaction=False) as pipe:
            if silver:
                pipe.zadd(self._keys.board("silver"), silver)
            for variant, points in scored.items():
                pipe.zadd(self._keys.board(f"points:{variant}"), points)
            if banned:
                for name in board_names():
                    pipe.zrem(self._keys.board(name), *banned)
            await pipe.execute()

    async def rebuild_if_due(self, node_id: str) -> bool:
        """Rebuild every board when the last rebuild (by any node: a lock key) is
        `REBUILD_SECONDS` old, or none was ever built; True when rebuilt here."""
        lock = self._keys.board("lock")
        due = await self._redis.set(lock, node_id, nx=True, ex=REBUILD_SECONDS)
        if not due and await self._redis.exists(self._keys.board("built")):
            return False
        await self.rebuild()
        return True

    async def rebuild(self) -> None:
        """Every board from PostgreSQL, each swapped in whole (RENAME)."""
        async with self._sessions() as session, session.begin():
            silver = (await session.execute(
                select(Account.id, Account.balance).where(house.on_leaderboards())
            )).all()
            points = (await session.execute(
                select(VariantStats.account_id, VariantStats.variant, VariantStats.points)
                .join(Account, Account.id == VariantStats.account_id)
                .where(house.on_leaderboards())
            )).all()
        boards: dict[str, dict[str, int]] = {name: {} for name in board_names()}
        boards["silver"] = {_member(a.id): -a.balance for a in silver}
        for row in points:
            boards.setdefault(f"points:{row.variant}", {})[_member(row.account_id)] = -row.points
        for name, scores in boards.items():
            await self._swap(self._keys.board(name), scores)
        await self._redis.set(self._keys.board("built"), "1")

    async def _swap(self, key: str, scores: dict[str, int]) -> None:
        building = f"{key}:building"
        items = list(scores.items())
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.delete(building)
            for start in range(0, len(items), CHUNK):
                pipe.zadd(building, dict(items[start:start + CHUNK]))
            if items:
                pipe.rename(building, key)
            else:
                pipe.delete(key)
            await pipe.execute()
