"""The silver ledger (银两): every change is an append-only row, and the account's balance
changes in the same transaction. A row's idempotency key is unique: posting the same change
twice is a no-op. Money is whole units, never a float.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import REASONS, Account, LedgerEntry


class LedgerError(Exception):
    """A change the ledger refuses: `code` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Posted:
    entry: LedgerEntry
    created: bool  # False: the key was posted before, nothing changed


async def _existing(session: AsyncSession, key: str) -> LedgerEntry | None:
    return (
        await session.execute(select(LedgerEntry).where(LedgerEntry.idempotency_key == key))
    ).scalar_one_or_none()


async def apply(
    session: AsyncSession,
    account_id: int,
    delta: int,
    reason: str,
    key: str,
    *,
    hand_id: str | None = None,
    note: str | None = None,
    allow_partial: bool = False,
) -> LedgerEntry:
    """Add one ledger row and move the balance, inside the caller's transaction.

    The balance never goes below 0: a debit larger than the balance is refused
    (`insufficient_balance`), or, with `allow_partial`, reduced to the whole balance.
    The caller must have checked the key is new (see `post`)."""
    if type(delta) is not int:
        raise LedgerError("validation_error", "a silver amount is a whole number")
    if reason not in REASONS:
        raise LedgerError("validation_error", f"unknown ledger reason {reason!r}")
    account = (
        await session.execute(select(Account).where(Account.id == account_id).with_for_update())
    ).scalar_one_or_none()
    if account is None:
        raise LedgerError("not_found", f"no account {account_id}")
    if account.balance + delta < 0:
        if not allow_partial:
            raise LedgerError(
                "insufficient_balance", f"balance {account.balance} cannot pay {-delta}"
            )
        delta = -account.balance
    result = await session.execute(
        update(Account)
        .where(Account.id == account_id)
        .values(balance=Account.balance + delta)
        .returning(Account.balance)
    )
    balance_after = result.scalar_one()
    entry = LedgerEntry(
        account_id=account_id,
        delta=delta,
        balance_after=balance_after,
        reason=reason,
        hand_id=hand_id,
        note=note,
        idempotency_key=key,
    )
    session.add(entry)
    await session.flush()
    return entry


async def post(
    session: AsyncSession,
    account_id: int,
    delta: int,
    reason: str,
    key: str,
    *,
    hand_id: str | None = None,
    note: str | None = None,
) -> Posted:
    """One silver change in a transaction of its own (`session` must have none open); a key
    already posted changes nothing and returns the first row."""
    try:
        async with session.begin():
            found = await _existing(session, key)
            if found is not None:
                return Posted(found, False)
            entry = await apply(session, account_id, delta, reason, key, hand_id=hand_id, note=note)
    except IntegrityError:
        # the same key was posted concurrently, and that post won
        async with session.begin():
            found = await _existing(session, key)
        if found is None:
            raise
        return Posted(found, False)
    return Posted(entry, True)
