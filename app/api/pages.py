"""Paging the silver ledger (银两流水): newest first, by a cursor (the id of the last row
seen), so a page stays right while new rows arrive. One row more than asked is read to know
whether a next page exists.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.params import INT64_MAX
from app.api.schemas import LedgerEntryOut, LedgerPage
from app.store import ledger

Limit = Annotated[int, Query(ge=1, le=100, description="rows per page")]
Before = Annotated[
    int | None,
    Query(
        ge=1,
        le=INT64_MAX,
        description="only rows older than this id (the `next_before` of the previous page)",
    ),
]


async def ledger_page_out(
    session: AsyncSession, account_id: int, limit: int, before: int | None
) -> LedgerPage:
    async with session.begin():
        rows = await ledger.ledger_page(session, account_id, limit=limit + 1, before_id=before)
    shown = rows[:limit]
    return LedgerPage(
        entries=[LedgerEntryOut.model_validate(row) for row in shown],
        next_before=shown[-1].id if len(rows) > limit else None,
    )
