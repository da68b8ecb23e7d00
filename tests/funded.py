"""Accounts for table tests: made in one transaction, each funded by the signup grant
through the ledger (so every balance equals its ledger)."""

from __future__ import annotations

from sqlalchemy import func, select

from app.store import ledger
from app.store.db import Database
from app.store.models import Account


async def funded_accounts(db: Database, n: int, prefix: str, balance: int = 100_000) -> list[int]:
    """`n` new accounts named `prefix` and a number (counted on from the accounts already
    there, so that a test may call it again), each granted `balance`; their ids."""
    async with db.sessions() as s, s.begin():
        known = (await s.execute(select(func.count()).select_from(Account))).scalar_one()
        made = [
            Account(username=f"{prefix}{known + i}", password_hash="x", balance=0)
            for i in range(n)
        ]
        s.add_all(made)
        await s.flush()
        ids = [a.id for a in made]
    for account_id in ids:
        async with db.sessions() as s:
            await ledger.grant_signup(s, account_id, balance)
    return ids
