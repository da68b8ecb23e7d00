"""Administration of the quick-match levels (场次): administrators only (`forbidden` for
players); every call, the list included, writes one audit-log row (app/api/admin.py's rule).

- `GET /admin/match-levels`: every level, closed ones included;
- `PUT /admin/match-levels/{key}`: create the level or replace it whole (its names, stake,
  minimum balance, position, open or closed). A minimum below 100 x the stake (a table's own
  minimum) is refused (`validation_error`). The change applies to the next table formed
  (players already queued are checked against the new minimum then; a closed level's
  queue is emptied, its players told `level_closed`); the audit row keeps the level
  before and after. Levels are not deleted: closing one (`enabled: false`) takes it out.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from app.api import errors
from app.api.deps import SessionDep
from app.api.quickmatch import MatchLevelOut, level_out, matcher_of
from app.api.security import ADMIN_ERRORS, AdminAccount
from app.store import audit
from app.store import levels as store_levels
from app.store.levels import KEY_PATTERN, MIN_BALANCE_PER_STAKE, Level
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel

router = APIRouter(prefix="/admin", tags=["admin"])

MAX_STAKE = 1_000_000  # as a lobby table's stake (app/api/lobby.py)
MAX_MIN_BALANCE = 10**12

LevelKeyPath = Annotated[str, Path(
    min_length=1, max_length=16, pattern=KEY_PATTERN,
    description="the level's key: lowercase letters, digits and `_`, a letter first",
)]


class MatchLevelIn(BaseModel):
    """A level as it should be (every field)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": {
        "name_zh": "中级场", "name_en": "Intermediate", "stake": 10, "min_balance": 2000,
        "position": 1, "enabled": True, "bot_level": "expert",
    }})

    name_zh: str = Field(min_length=1, max_length=32, description="its name in Chinese")
    name_en: str = Field(min_length=1, max_length=64, description="its name in English")
    stake: StrictInt = Field(ge=1, le=MAX_STAKE, description="silver per point at its tables")
    min_balance: StrictInt = Field(
        ge=MIN_BALANCE_PER_STAKE, le=MAX_MIN_BALANCE,
        description="the silver needed to queue and be seated: at least 100 x the stake",
    )
    position: StrictInt = Field(default=0, ge=0, le=1000, description="lower is listed first")
    enabled: StrictBool = Field(default=True, description="false: closed, not offered")
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays the house bots that fill its tables: beginner (新手), standard "
        "(普通, the greedy bot, the default) or expert (高手)",
    )

    @model_validator(mode="after")
    def _covers_the_table(self) -> MatchLevelIn:
        if not self.name_zh.strip() or not self.name_en.strip():
            raise ValueError("a level needs a name in both languages")
        if self.min_balance < MIN_BALANCE_PER_STAKE * self.stake:
            raise ValueError(
                f"min_balance must be at least {MIN_BALANCE_PER_STAKE} x the stake "
                f"({MIN_BALANCE_PER_STAKE * self.stake}): a table's own minimum"
            )
        return self


@router.get("/match-levels", responses=errors.responses(*ADMIN_ERRORS))
async def list_match_levels(
    admin: AdminAccount, session: SessionDep
) -> list[MatchLevelOut]:
    """Every quick-match level, closed ones included, in order."""
    async with session.begin():
        found = await store_levels.all_levels(session)
        await audit.record(session, admin.id, "view_match_levels", None, {"count": len(found)})
    return [level_out(level) for level in found]


@router.put(
    "/match-levels/{key}", responses=errors.responses("validation_error", *ADMIN_ERRORS)
)
async def put_match_level(
    key: LevelKeyPath,
    body: MatchLevelIn,
    admin: AdminAccount,
    session: SessionDep,
    request: Request,
) -> MatchLevelOut:
    """Create the level `key` or replace it whole. The next table formed uses it; closing it
    (`enabled: false`) empties its queues (the players are told `level_closed`)."""
    level = Level(key, body.name_zh.strip(), body.name_en.strip(), body.stake, body.min_balance,
                  body.position, body.enabled, body.bot_level)
    async with session.begin():
        before = await store_levels.put(session, level)
        await audit.record(session, admin.id, "set_match_level", None, {
            "key": key,
            "before": None if before is None else asdict(before),
            "after": asdict(level),
        })
    matcher_of(request).forget_levels()
    return level_out(level)
