"""The caller's own account and the public profiles (个人资料).

Rules: a player sees their id, role, silver, title (丽水 ladder), record in every variant
with win rate and escape rate (逃跑率), and 湖州 level; their ledger page by page, newest
first. Anyone may see another account's public profile by username: the same without id
and role (`not_found` for an unknown name).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.pages import Before, Limit, ledger_page_out
from app.api.profiles import huzhou_level, next_step, stats_out
from app.api.schemas import LedgerPage, LevelOut, NextStepOut, VariantStatsOut
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.store import accounts, house, ranks

router = APIRouter(tags=["accounts"])

# the one example of a variant's record, shown under its variant in /me and profiles
_STATS_EXAMPLE: dict[str, Any] = {
    "huzhou": VariantStatsOut.model_config["json_schema_extra"]["example"]  # type: ignore[index]
}


# the level and the next title of the example account (12,800 silver, 42 湖州 points)
_LADDERS_EXAMPLE: dict[str, Any] = {
    "huzhou_level": LevelOut.model_config["json_schema_extra"]["example"],  # type: ignore[index]
    "next_title": {"title": "赌棍", "at": 24000, "since": 12000},
}


class ProfileOut(BaseModel):
    """What anyone may see of an account."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "username": "阿明哥",
                "balance": 12800,
                "title": "赌客",
                "stats": _STATS_EXAMPLE,
                **_LADDERS_EXAMPLE,
            }
        }
    )

    username: str
    balance: int
    title: str
    stats: dict[str, VariantStatsOut]
    huzhou_level: LevelOut
    next_title: NextStepOut | None = Field(
        default=None, description="the title by silver above this one; null at the top (万赌之王)"
    )


class MeOut(ProfileOut):
    """The caller's own account."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "id": 7,
                "username": "阿明哥",
                "role": "player",
                "balance": 12800,
                "title": "赌客",
                "stats": _STATS_EXAMPLE,
                **_LADDERS_EXAMPLE,
            }
        }
    )

    id: int
    role: str


@router.get("/me", responses=errors.responses(*AUTH_ERRORS))
async def me(account: CurrentAccount, session: SessionDep) -> MeOut:
    """The caller's account, title, record per variant and 湖州 level."""
    async with session.begin():
        stats = await stats_out(session, account.id)
    return MeOut(
        id=account.id,
        username=account.username,
        role=account.role,
        balance=account.balance,
        title=ranks.title_of(account.balance),
        stats=stats,
        huzhou_level=huzhou_level(stats),
        next_title=next_step(ranks.next_title(account.balance)),
    )


@router.get("/me/ledger", responses=errors.responses("validation_error", *AUTH_ERRORS))
async def my_ledger(
    account: CurrentAccount, session: SessionDep, limit: Limit = 20, before: Before = None
) -> LedgerPage:
    """The caller's silver changes, newest first, one page at a time."""
    return await ledger_page_out(session, account.id, limit, before)


@router.get("/accounts/{username}", responses=errors.responses("not_found", "validation_error"))
async def profile(username: str, session: SessionDep) -> ProfileOut:
    """An account's public profile."""
    async with session.begin():
        found = await accounts.by_username(session, username)
        if found is None or found.role == house.HOUSE_ROLE:  # the house's funds are not public
            raise ApiError("not_found", f"no account {username!r}")
        stats = await stats_out(session, found.id)
    return ProfileOut(
        username=found.username,
        balance=found.balance,
        title=ranks.title_of(found.balance),
        stats=stats,
        huzhou_level=huzhou_level(stats),
        next_title=next_step(ranks.next_title(found.balance)),
    )
