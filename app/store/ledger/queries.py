"""Reading the ledger: an account's rows, a page at a time."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.ledger.posting import _is_int, _refuse
from app.store.models import LedgerEntry
from app.store.ranks import in_transaction


async def ledger_page(
    session: AsyncSession, account_id: int, *, limit: int, before_id: int | None
) -> list[LedgerEntry]:
    """One page of the account's rows, newest first: at most `limit` rows with ids below
    `before_id` (keyset pagination: the next page passes the last row's id)."""
    if not (_is_int(limit) and 1 <= limit <= 500):
        raise _refuse("a page holds 1 to 500 rows")
    query = select(LedgerEntry).where(LedgerEntry.account_id == account_id)
    if before_id is not None:
        query = query.where(LedgerEntry.id < before_id)
    async with in_transaction(session):
        rows = await session.execute(query.order_by(LedgerEntry.id.desc()).limit(limit))
        return list(rows.scalars())
