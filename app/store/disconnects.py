"""Disconnects (断线) per account, for the rolling 24-hour count of RULES.md 1.

A disconnect is recorded once per account and hand (`record`); its time is the end of that
hand on the server's wall clock, which the caller passes in (tests use a fake one). The
per-variant totals shown in profiles are `VariantStats.disconnects` (`app.store.ranks`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Disconnect
from app.store.ranks import in_transaction

WINDOW = timedelta(hours=24)


def _utc(at: datetime) -> datetime:
    if at.tzinfo is None:
        raise ValueError("a disconnect time carries its time zone")
    return at.astimezone(UTC)


async def record(
    session: AsyncSession, account_id: int, hand_id: str, variant: str, at: datetime
) -> bool:
    """Record that `account_id` was away when `hand_id` ended at `at`; False when it was
    recorded before (nothing changes). Runs in the caller's transaction when one is open."""
    async with in_transaction(session):
        found = (
            await session.execute(
                select(Disconnect.id).where(
                    Disconnect.account_id == account_id, Disconnect.hand_id == hand_id
                )
            )
        ).scalar_one_or_none()
        if found is not None:
            return False
        session.add(Disconnect(
            account_id=account_id, hand_id=hand_id, variant=variant, at=_utc(at), penalty=0
        ))
        await session.flush()
        return True


async def count_within(
    session: AsyncSession, account_id: int, at: datetime, window: timedelta = WINDOW
) -> int:
    """The account's disconnects in the `window` up to `at` (after `at - window`, up to and
    including `at`)."""
    at = _utc(at)
    async with in_transaction(session):
        return int(
            (
                await session.execute(
                    select(func.count())
                    .select_from(Disconnect)
                    .where(
                        Disconnect.account_id == account_id,
                        Disconnect.at > at - window,
                        Disconnect.at <= at,
                    )
                )
            ).scalar_one()
        )


async def mark_penalty(session: AsyncSession, account_id: int, hand_id: str, silver: int) -> None:
    """Note on the disconnect's row the penalty it cost (the ledger row is the payment)."""
    async with in_transaction(session):
        await session.execute(
            update(Disconnect)
            .where(Disconnect.account_id == account_id, Disconnect.hand_id == hand_id)
            .values(penalty=silver)
        )


async def history(session: AsyncSession, account_id: int) -> list[Disconnect]:
    """The account's disconnects, oldest first."""
    async with in_transaction(session):
        return list(
            (
                await session.execute(
                    select(Disconnect)
                    .where(Disconnect.account_id == account_id)
                    .order_by(Disconnect.at, Disconnect.id)
                    .execution_options(populate_existing=True)
                )
            ).scalars()
        )
