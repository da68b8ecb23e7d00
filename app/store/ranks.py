"""Ranks and per-variant stats: the title by silver (银两, the 丽水 ladder of RULES.md 2), the
湖州 level by points (积分, RULES.md 4), and the counts of RULES.md 7 (hands, wins, self-draws,
deal-ins, escapes, disconnects). Titles and levels are computed, never stored.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import AsyncIterator, Collection, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, cast

from sqlalchemy import BigInteger, Insert, Table, bindparam, case, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.rules.variants import huzhou
from app.store.models import VariantStats

if TYPE_CHECKING:
    from app.rules.state import HandState

# (lowest balance, title): 菜鸟 0-5999, 生手 6000-11999 ... 万赌之王 104857600 and up
TITLES: tuple[tuple[int, str], ...] = (
    (0, "菜鸟"),
    (6000, "生手"),
    (12000, "赌客"),
    (24000, "赌棍"),
    (96000, "赌鬼"),
    (192000, "老手"),
    (384000, "高人"),
    (768000, "老千"),
    (3072000, "千王"),
    (6144000, "赌王"),
    (12288000, "赌神"),
    (24576000, "赌圣"),
    (52428800, "赌仙"),
    (104857600, "万赌之王"),
)
_TITLE_FLOORS = [low for low, _ in TITLES]


def title_of(balance: int) -> str:
    """The title (称号) of an account by its silver: the 丽水 ladder, RULES.md 2. A balance is
    never negative; one below 0 would read as the lowest title."""
    return TITLES[max(0, bisect_right(_TITLE_FLOORS, balance) - 1)][1]


@dataclass(frozen=True, slots=True)
class NextStep:
    """The next rung of a ladder: its name, the value it starts at, and where the rung held
    now started (so that a client can draw the way from one to the other)."""

    title: str
    at: int
    since: int


def _next(ladder: list[tuple[int, str]], value: int) -> NextStep | None:
    floors = [low for low, _ in ladder]
    held = max(0, bisect_right(floors, value) - 1)
    if held + 1 >= len(ladder):
        return None  # the top of the ladder
    low, title = ladder[held + 1]
    return NextStep(title=title, at=low, since=ladder[held][0])


def next_title(balance: int) -> NextStep | None:
    """The title above the one `balance` holds (None at 万赌之王)."""
    return _next(list(TITLES), balance)


def next_level(points: int) -> NextStep | None:
    """The 湖州 level above the one `points` holds (None at 麻将王)."""
    return _next([(low, name) for low, name, _ in huzhou.LEVELS], max(0, points))


def level_of(points: int) -> tuple[str, int]:
    """The 湖州 level (级别) and its base score for `points` 积分 (RULES.md 4)."""
    return huzhou.level_of(points)


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One row of a leaderboard page (排行榜): the account, its value (silver or points) and
    its rank (equal values share one)."""

    account: int
    value: int
    rank: int


class Boards(Protocol):
    """The leaderboards as kept beside the database (the cluster's sorted sets,
    app/cluster/boards.py); `DatabaseBoards`: none, the database answers."""

    async def board(self, name: str, limit: int, offset: int) -> list[BoardEntry] | None:
        """A page of a leaderboard (`silver`, `points:<variant>`); None: ask the database."""
        ...

    async def forget(self, account_ids: list[int]) -> None:
        """Take accounts off the leaderboards (banned)."""


class DatabaseBoards:
    """`Boards` with nothing beside the database."""

    async def board(self, name: str, limit: int, offset: int) -> list[BoardEntry] | None:
        return None

    async def forget(self, account_ids: list[int]) -> None:
        return


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's part in a finished hand, as the stats count it. `points` is the seat's net
    points of the settlement (before the silver floor)."""

    won: bool = False
    self_draw: bool = False  # 自摸
    dealt_in: bool = False  # 放冲 / 点炮: the discarder, or the robbed seat of a 抢杠
    escaped: bool = False  # 逃跑
    disconnected: bool = False  # away when the hand ended (not an escape)
    points: int = 0


def results_from(state: HandState, *, disconnected: Collection[int] = ()) -> list[SeatResult]:
    """Each seat's `SeatResult` from a finished hand: who won (and by self-draw), who dealt in
    (the discarder or the robbed seat of a win), who escaped, and the seat's net points. The
    rules know nothing of connections: `disconnected` names the seats that were away."""
    if state.phase != "ended" or state.settlement is None:
        raise ValueError("the hand is not finished")
    net = state.settlement.net()
    winners = {w.seat: w for w in state.wins}
    dealers_in = {w.from_seat for w in state.wins if not w.self_draw and w.from_seat is not None}
    return [
        SeatResult(
            won=seat in winners,
            self_draw=seat in winners and winners[seat].self_draw,
            dealt_in=seat in dealers_in,
            escaped=state.escaped == seat,
            disconnected=seat in disconnected,
            points=net[seat],
        )
        for seat in range(4)
    ]


@asynccontextmanager
async def in_transaction(session: AsyncSession) -> AsyncIterator[None]:
    """Run the block in the session's open transaction, or in one of its own that commits
    at the end (so a read leaves no transaction open behind it)."""
    if session.in_transaction():
        yield
    else:
        async with session.begin():
            yield


COUNTS = ("wins", "self_draws", "deal_ins", "escapes", "disconnects")


@lru_cache
def _upsert(dialect: str) -> Insert:
    """One seat's stats upsert, built once per dialect and run for many seats at once. A new
    row starts from the result; an existing one adds it (points floored at 0)."""
    stats = cast(Table, VariantStats.__table__)
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(stats).values(
        account_id=bindparam("s_account"),
        variant=bindparam("s_variant"),
        hands=1,
        points=bindparam("s_points"),  # the first hand's points, floored at 0
        **{name: bindparam(f"s_{name}") for name in COUNTS},
    )
    grown = stats.c.points + bindparam("s_delta", type_=BigInteger)
    return statement.on_conflict_do_update(
        index_elements=[stats.c.account_id, stats.c.variant],
        set_={
            "hands": stats.c.hands + 1,
            "points": case((grown < 0, 0), else_=grown),
            **{name: stats.c[name] + statement.excluded[name] for name in COUNTS},
        },
    )


async def record_hand_stats(
    session: AsyncSession, variant: str, results: Iterable[tuple[int, SeatResult]]
) -> None:
    """`record_stats` for several (account id, result) pairs in one statement."""
    params = [
        {
            "s_account": account_id,
            "s_variant": variant,
            "s_points": max(0, result.points),
            "s_delta": result.points,
            "s_wins": int(result.won),
            "s_self_draws": int(result.self_draw),
            "s_deal_ins": int(result.dealt_in),
            "s_escapes": int(result.escaped),
            "s_disconnects": int(result.disconnected),
        }
        for account_id, result in results
    ]
    if params:
        async with in_transaction(session):
            connection = await session.connection()
            await connection.execute(_upsert(connection.dialect.name), params)


async def record_stats(
    session: AsyncSession, account_id: int, variant: str, result: SeatResult
) -> None:
    """Count one hand in the account's stats for `variant` (an upsert): hands + 1, the counts
    the result says, and points += result.points, never below 0 (积分). Runs in the caller's
    transaction when one is open."""
    await record_hand_stats(session, variant, [(account_id, result)])


async def stats_of(session: AsyncSession, account_id: int) -> dict[str, VariantStats]:
    """The account's stats, by variant (only variants it has played)."""
    async with in_transaction(session):
        rows = (
            await session.execute(
                select(VariantStats)
                .where(VariantStats.account_id == account_id)
                .order_by(VariantStats.variant)
                .execution_options(populate_existing=True)  # upserts bypass the identity map
            )
        ).scalars()
        return {row.variant: row for row in rows}


async def points_of(
    session: AsyncSession, variant: str, account_ids: Collection[int]
) -> dict[int, int]:
    """Each account's 积分 in `variant` as stored: the sum of its settled hands, never below
    0; 0 for an account that has not played the variant."""
    async with in_transaction(session):
        rows = await session.execute(
            select(VariantStats.account_id, VariantStats.points).where(
                VariantStats.variant == variant, VariantStats.account_id.in_(sorted(account_ids))
            )
        )
        stored = {account_id: points for account_id, points in rows.all()}
    return {a: max(0, stored.get(a, 0)) for a in account_ids}
