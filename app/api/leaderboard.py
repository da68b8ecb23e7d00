"""Leaderboards (排行榜): by silver, by points in one variant, and by win rate in one variant
among accounts with at least `min_hands` hands there.

Rules: banned accounts, the house account and its bots are left out (`house.on_leaderboards`:
people only); equal values share a rank (1, 2, 2, 4), and within a
tie the older account is listed first; pages by limit and offset; an unknown variant is
`not_found`. Every row shows the title by silver (the 丽水 ladder).

Each board has a `/me` beside it (`GET /leaderboards/silver/me` ...): the caller's own rank
and value on it, read from the database, so that a client can say where the player stands
when they are not on the page it shows; `rank` is null when the board does not rank them
(no hand in the variant, fewer than `min_hands` hands).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Float, Select, cast, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.params import INT32_MAX, Offset, VariantPath
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.rules.variants import VARIANTS
from app.store import house, ranks
from app.store.models import Account, VariantStats

router = APIRouter(prefix="/leaderboards", tags=["leaderboards"])

PageLimit = Annotated[int, Query(ge=1, le=100)]
MinHands = Annotated[
    int, Query(ge=1, le=INT32_MAX, description="only accounts with this many hands")
]


class Row(BaseModel):
    rank: int
    username: str
    title: str
    value: int


class RateRow(BaseModel):
    rank: int
    username: str
    title: str
    value: float  # wins / hands, 4 places
    wins: int
    hands: int


class MyRow(BaseModel):
    """The caller's place on a board whose value is a whole number."""

    model_config = ConfigDict(
        json_schema_extra={"example": {"rank": 37, "username": "bob", "title": "赌客",
                                       "value": 12000}}
    )

    rank: int | None = Field(description="null: this board does not rank the caller")
    username: str
    title: str = Field(description="the title by silver (the 丽水 ladder)")
    value: int | None = Field(description="silver or points; null when not ranked")


class MyRateRow(BaseModel):
    """The caller's place on the win-rate board."""

    rank: int | None = Field(description="null: fewer than min_hands hands in the variant")
    username: str
    title: str = Field(description="the title by silver (the 丽水 ladder)")
    value: float | None = Field(description="wins / hands, 4 places; null when not ranked")
    wins: int
    hands: int


class Board(BaseModel):
    """One page of a leaderboard whose value is a whole number (silver or points)."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "rows": [
                    {"rank": 1, "username": "阿明哥", "title": "赌棍", "value": 30500},
                    {"rank": 2, "username": "bob", "title": "赌客", "value": 12000},
                ],
                "limit": 20,
                "offset": 0,
            }
        }
    )

    rows: list[Row]
    limit: int
    offset: int


class RateBoard(BaseModel):
    """One page of the win-rate leaderboard."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "rows": [
                    {
                        "rank": 1,
                        "username": "阿明哥",
                        "title": "赌棍",
                        "value": 0.3125,
                        "wins": 10,
                        "hands": 32,
                    },
                ],
                "limit": 20,
                "offset": 0,
            }
        }
    )

    rows: list[RateRow]
    limit: int
    offset: int


def _known(variant: str) -> None:
    if variant not in VARIANTS:
        raise ApiError("not_found", f"no variant {variant!r}", details={"variants": list(VARIANTS)})


async def _rows(
    session: AsyncSession,
    query: Select[*tuple[Any, ...]],
    value: Any,
    limit: int,
    offset: int,
) -> list[Any]:
    """Rank the query's rows by `value` (highest first) and take one page."""
    ranked = query.add_columns(func.rank().over(order_by=value.desc()).label("rank")).order_by(
        value.desc(), Account.id
    )
    async with session.begin():
        return list((await session.execute(ranked.limit(limit).offset(offset))).all())


async def _from_cluster(
    request: Request, session: AsyncSession, name: str, limit: int, offset: int
) -> list[Row] | None:
    """A page from the cluster's sorted sets (app/cluster/boards.py); None without Redis.
    Names and titles come from the database; an account found on the page that no board
    ranks (banned since, a bot or the house from an older build) is taken off the boards
    and the page read again."""
    boards = request.app.state.network.boards
    for _ in range(3):
        page = await boards.board(name, limit, offset)
        if page is None:
            return None
        ids = [entry.account for entry in page]
        async with session.begin():
            found = {
                a.id: a for a in (await session.execute(
                    select(Account.id, Account.username, Account.balance, Account.banned,
                           Account.role)
                    .where(Account.id.in_(ids))
                )).all()
            }
        gone = [
            i for i in ids
            if i not in found
            or not house.ranked(found[i].username, found[i].role, found[i].banned)
        ]
        if gone:
            await boards.forget(gone)
            continue
        return [
            Row(
                rank=entry.rank,
                username=found[entry.account].username,
                title=ranks.title_of(found[entry.account].balance),
                value=entry.value,
            )
            for entry in page
        ]
    return None


@router.get("/silver", responses=errors.responses("validation_error"))
async def silver_board(
    session: SessionDep, request: Request, limit: PageLimit = 20, offset: Offset = 0
) -> Board:
    """Accounts by silver (银两)."""
    clustered = await _from_cluster(request, session, "silver", limit, offset)
    if clustered is not None:
        return Board(rows=clustered, limit=limit, offset=offset)
    query = select(Account.username, Account.balance).where(house.on_leaderboards())
    rows = await _rows(session, query, Account.balance, limit, offset)
    return Board(
        rows=[
            Row(rank=r.rank, username=r.username, title=ranks.title_of(r.balance), value=r.balance)
            for r in rows
        ],
        limit=limit,
        offset=offset,
    )


def _in_variant(variant: str) -> Select[*tuple[Any, ...]]:
    return (
        select(
            Account.username,
            Account.balance,
            VariantStats.wins,
            VariantStats.hands,
            VariantStats.points,
        )
        .join(VariantStats, VariantStats.account_id == Account.id)
        .where(house.on_leaderboards(), VariantStats.variant == variant)
    )


@router.get("/points/{variant}", responses=errors.responses("not_found", "validation_error"))
async def points(
    variant: VariantPath,
    session: SessionDep,
    request: Request,
    limit: PageLimit = 20,
    offset: Offset = 0,
) -> Board:
    """Accounts by points (积分) in one variant."""
    _known(variant)
    clustered = await _from_cluster(request, session, f"points:{variant}", limit, offset)
    if clustered is not None:
        return Board(rows=clustered, limit=limit, offset=offset)
    rows = await _rows(session, _in_variant(variant), VariantStats.points, limit, offset)
    return Board(
        rows=[
            Row(rank=r.rank, username=r.username, title=ranks.title_of(r.balance), value=r.points)
            for r in rows
        ],
        limit=limit,
        offset=offset,
    )


@router.get("/win-rate/{variant}", responses=errors.responses("not_found", "validation_error"))
async def win_rate(
    variant: VariantPath,
    session: SessionDep,
    min_hands: MinHands = 20,
    limit: PageLimit = 20,
    offset: Offset = 0,
) -> RateBoard:
    """Accounts by win rate (wins / hands) in one variant."""
    _known(variant)
    query = _in_variant(variant).where(VariantStats.hands >= min_hands)
    rate = cast(VariantStats.wins, Float) / VariantStats.hands
    rows = await _rows(session, query, rate, limit, offset)
    return RateBoard(
        rows=[
            RateRow(
                rank=r.rank,
                username=r.username,
                title=ranks.title_of(r.balance),
                value=round(r.wins / r.hands, 4),
                wins=r.wins,
                hands=r.hands,
            )
            for r in rows
        ],
        limit=limit,
        offset=offset,
    )


async def _place(session: AsyncSession, better: Select[*tuple[Any, ...]]) -> int:
    """1 + the number of ranked accounts `better` counts: the rank the board's `rank()` gives
    (equal values share it)."""
    async with session.begin():
        return 1 + int((await session.execute(better)).scalar_one())


def _ranked(account: Account) -> bool:
    return house.ranked(account.username, account.role, account.banned)


async def _my_stats(session: AsyncSession, account: Account, variant: str) -> VariantStats | None:
    async with session.begin():
        return (
            await session.execute(
                select(VariantStats).where(
                    VariantStats.account_id == account.id, VariantStats.variant == variant
                )
            )
        ).scalar_one_or_none()


@router.get("/silver/me", responses=errors.responses(*AUTH_ERRORS))
async def my_silver(account: CurrentAccount, session: SessionDep) -> MyRow:
    """The caller's rank and silver on the silver board."""
    title = ranks.title_of(account.balance)
    if not _ranked(account):
        return MyRow(rank=None, username=account.username, title=title, value=None)
    rank = await _place(
        session,
        select(func.count())
        .select_from(Account)
        .where(house.on_leaderboards(), Account.balance > account.balance),
    )
    return MyRow(rank=rank, username=account.username, title=title, value=account.balance)


@router.get(
    "/points/{variant}/me", responses=errors.responses(*AUTH_ERRORS, "not_found", "validation_error")
)
async def my_points(variant: VariantPath, account: CurrentAccount, session: SessionDep) -> MyRow:
    """The caller's rank and points on one variant's points board; not ranked before their
    first hand there."""
    _known(variant)
    title = ranks.title_of(account.balance)
    mine = await _my_stats(session, account, variant)
    if mine is None or not _ranked(account):
        return MyRow(rank=None, username=account.username, title=title, value=None)
    rank = await _place(
        session,
        select(func.count())
        .select_from(_in_variant(variant).where(VariantStats.points > mine.points).subquery()),
    )
    return MyRow(rank=rank, username=account.username, title=title, value=mine.points)


@router.get(
    "/win-rate/{variant}/me",
    responses=errors.responses(*AUTH_ERRORS, "not_found", "validation_error"),
)
async def my_win_rate(
    variant: VariantPath, account: CurrentAccount, session: SessionDep, min_hands: MinHands = 20
) -> MyRateRow:
    """The caller's rank and win rate on one variant's win-rate board; not ranked with fewer
    than `min_hands` hands there (`hands` says how many they have)."""
    _known(variant)
    title = ranks.title_of(account.balance)
    mine = await _my_stats(session, account, variant)
    wins, hands = (mine.wins, mine.hands) if mine is not None else (0, 0)
    if mine is None or hands < min_hands or not _ranked(account):
        return MyRateRow(rank=None, username=account.username, title=title, value=None,
                         wins=wins, hands=hands)
    rate = cast(VariantStats.wins, Float) / VariantStats.hands
    rank = await _place(
        session,
        select(func.count()).select_from(
            _in_variant(variant)
            .where(VariantStats.hands >= min_hands, rate > wins / hands)
            .subquery()
        ),
    )
    return MyRateRow(rank=rank, username=account.username, title=title,
                     value=round(wins / hands, 4), wins=wins, hands=hands)
