"""The quick-match levels (app/store/levels.py): a fresh migration holds the defaults, a
table emptied of them is seeded again when read, a put creates or replaces a level, and the
database refuses a minimum below a table's own (100 x the stake)."""

from __future__ import annotations

import pytest
from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from app.store import levels
from app.store.db import Database
from app.store.levels import DEFAULT_LEVELS, Level
from app.store.models import MatchLevel


async def test_defaults_put_and_the_minimums_check(db: Database) -> None:
    async with db.sessions() as s, s.begin():
        assert tuple(await levels.all_levels(s)) == DEFAULT_LEVELS
        await s.execute(delete(MatchLevel))
    async with db.sessions() as s, s.begin():
        assert tuple(await levels.all_levels(s)) == DEFAULT_LEVELS  # seeded again
        royal = Level("royal", "至尊场", "Royal", 1000, 100_000, 3)
        assert await levels.put(s, royal) is None
        closed = Level("beginner", "初级场", "Beginner", 1, 100, 0, enabled=False)
        assert await levels.put(s, closed) == DEFAULT_LEVELS[0]
    async with db.sessions() as s, s.begin():
        assert [lv.key for lv in await levels.open_levels(s)] == [
            "intermediate", "advanced", "royal"
        ]
        assert (await levels.all_levels(s))[0] == closed
    with pytest.raises(IntegrityError):
        async with db.sessions() as s, s.begin():
            s.add(MatchLevel(key="cheap", name_zh="便宜场", name_en="Cheap", stake=10,
                             min_balance=999, position=9, enabled=True))
