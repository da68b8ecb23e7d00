"""Transfers between accounts inside the caller's transaction (`transfer`): rows that sum to
0, all booked or none, once per set of keys. The callers own the transaction so that a
change of their own rows (a tournament's entry, its status) and the silver it moves commit
together; `writing` opens such a transaction (SQLite's writers queue in this process, as
the ledger's own do)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.store.ledger.posting import _book, _Change, _is_int, _lock, _refuse, _rows, _writing
from app.store.models import LedgerEntry

MAX_KEY = 160  # the ledger's idempotency key column


@dataclass(frozen=True, slots=True)
class Move:
    """One row of a transfer: `delta` silver to `account_id` (below 0: from it)."""

    account_id: int
    delta: int
    reason: str
    key: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Transferred:
    entries: list[LedgerEntry]
    created: bool  # False: the keys were posted before and nothing moved


@asynccontextmanager
async def writing(session: AsyncSession) -> AsyncIterator[None]:
    """A write transaction of the caller's (`session` must have none open)."""
    async with _writing(session):
        yield


async def transfer(session: AsyncSession, moves: Sequence[Move]) -> Transferred:
    """Book `moves` in the caller's transaction: the accounts locked (in id order), every
    row written and every balance moved, or, when a row would take a balance below 0,
    `LedgerError("insufficient_balance")` and nothing (the caller rolls back). The rows must
    sum to 0 and none may be 0. When any key is posted already nothing moves and the rows
    posted under the keys are returned (`created` False)."""
    if not moves:
        return Transferred([], True)
    if not all(_is_int(m.delta) and m.delta != 0 for m in moves):
        raise _refuse("a transfer's rows are whole numbers of silver other than 0")
    if sum(m.delta for m in moves) != 0:
        raise _refuse("a transfer's rows sum to 0")
    keys = [m.key for m in moves]
    if len(set(keys)) != len(keys) or not all(0 < len(k) <= MAX_KEY for k in keys):
        raise _refuse(f"a transfer's keys are distinct, 1 to {MAX_KEY} characters")
    balances, posted = await _lock(session, [m.account_id for m in moves], keys)
    if posted:
        return Transferred(await _rows(session, keys), False)
    changes = [_Change(m.account_id, m.delta, m.reason, m.key, note=m.note) for m in moves]
    return Transferred(await _book(session, balances, changes), True)
