"""An account's computed standing: the title by silver (the 丽水 ladder), its record in every
variant (zeros where it has not played) with win rate and escape rate (逃跑率), and the 湖州
level from its 湖州 points. Titles and levels come from `app.store.ranks`; nothing here is
stored.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.api.schemas import AccountOut, LevelOut, NextStepOut, VariantStatsOut
from app.rules.variants import VARIANTS
from app.store import ranks
from app.store.models import Account, VariantStats

HUZHOU = "huzhou"


def rate(part: int, whole: int) -> float:
    """part / whole rounded to 4 places; 0 when whole is 0."""
    return round(part / whole, 4) if whole > 0 else 0.0


def variant_stats_out(stats: VariantStats | None) -> VariantStatsOut:
    def value(name: str) -> int:
        found = getattr(stats, name, None) if stats is not None else None
        return int(found or 0)

    hands = value("hands")
    return VariantStatsOut(
        points=value("points"),
        hands=hands,
        wins=value("wins"),
        self_draws=value("self_draws"),
        deal_ins=value("deal_ins"),
        escapes=value("escapes"),
        disconnects=value("disconnects"),
        win_rate=rate(value("wins"), hands),
        escape_rate=rate(value("escapes"), hands),
    )


async def stats_out(session: AsyncSession, account_id: int) -> dict[str, VariantStatsOut]:
    """Every variant's record for an account, in the order the server lists variants."""
    found = await ranks.stats_of(session, account_id)
    return {name: variant_stats_out(found.get(name)) for name in VARIANTS}


def huzhou_level(stats: dict[str, VariantStatsOut]) -> LevelOut:
    points = stats[HUZHOU].points if HUZHOU in stats else 0
    title, base = ranks.level_of(points)
    return LevelOut(title=title, base=base, points=points, next=next_step(ranks.next_level(points)))


def next_step(step: ranks.NextStep | None) -> NextStepOut | None:
    return None if step is None else NextStepOut(title=step.title, at=step.at, since=step.since)


def account_out(account: Account) -> AccountOut:
    return AccountOut(
        id=account.id,
        username=account.username,
        role=account.role,
        balance=account.balance,
        title=ranks.title_of(account.balance),
        banned=account.banned,
        created_at=account.created_at,
    )
