"""Quick-match levels (场次): data an administrator changes, not code.

Rules (docs/architecture.md, "Quick match"):
- a level has a key (`beginner`), a Chinese and an English name, the stake of the tables it
  forms (silver per point), the silver a player needs to queue and to be seated
  (`min_balance`, never below the table's own minimum, 100 x the stake: a player seated
  by the level could not otherwise sit at its table), a position in the list and whether
  it is open (`enabled`);
- the defaults are 初级场 stake 1 / 100 silver, 中级场 10 / 2,000, 高级场 100 / 20,000
  (migration 0007 seeds them); a table with no level at all is seeded again with them when
  read, so an operator closes quick match by disabling levels, not by deleting rows;
- `bot_level`: who plays the house bots that fill the seats of the tables it forms
  (beginner 新手, standard 普通, expert 高手; migration 0010): the defaults keep standard,
  the greedy bot the house always played (docs/operating.md, "House bots' level").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import MatchLevel

MIN_BALANCE_PER_STAKE = 100
"""As app/tables/registry.py: a seat at a table needs 100 x its stake (the store does not
import the tables)."""
KEY_PATTERN = r"^[a-z][a-z0-9_]{0,15}$"
"""A level's key: lowercase letters, digits and `_`, 1-16 characters, a letter first."""


@dataclass(frozen=True, slots=True)
class Level:
    key: str
    name_zh: str
    name_en: str
    stake: int
    min_balance: int
    position: int = 0
    enabled: bool = True
    bot_level: str = "standard"  # who plays the house bots that fill its tables (0010)


DEFAULT_LEVELS = (
    Level("beginner", "初级场", "Beginner", 1, 100, 0),
    Level("intermediate", "中级场", "Intermediate", 10, 2_000, 1),
    Level("advanced", "高级场", "Advanced", 100, 20_000, 2),
)


def _level(row: MatchLevel) -> Level:
    return Level(row.key, row.name_zh, row.name_en, row.stake, row.min_balance, row.position,
                 row.enabled, row.bot_level)


async def all_levels(session: AsyncSession) -> list[Level]:
    """Every level, open or not, in the order shown (position, then key), inside the
    caller's transaction. An empty table gets the defaults first."""
    rows = (await session.execute(
        select(MatchLevel).order_by(MatchLevel.position, MatchLevel.key)
    )).scalars().all()
    if rows:
        return [_level(row) for row in rows]
    try:
        async with session.begin_nested():
            session.add_all(MatchLevel(**asdict(level)) for level in DEFAULT_LEVELS)
    except IntegrityError:  # seeded by a concurrent request
        pass
    return await all_levels(session)


async def open_levels(session: AsyncSession) -> list[Level]:
    """The levels a player may queue at, in order."""
    return [level for level in await all_levels(session) if level.enabled]


async def put(session: AsyncSession, level: Level) -> Level | None:
    """Create or replace the level `level.key`, inside the caller's transaction; the level
    as it was before (None: new)."""
    await all_levels(session)  # an empty table is seeded first: a put adds to the defaults
    row = await session.get(MatchLevel, level.key, populate_existing=True)
    if row is None:
        session.add(MatchLevel(**asdict(level)))
        await session.flush()
        return None
    before = _level(row)
    for name, value in asdict(level).items():
        setattr(row, name, value)
    await session.flush()
    return before
