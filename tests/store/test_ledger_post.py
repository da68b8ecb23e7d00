"""The ledger's one primitive: a row and the balance move together, once per key."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.store import ledger
from app.store.db import Database
from app.store.models import Account, LedgerEntry


async def _account(db: Database, name: str = "ann") -> int:
    async with db.sessions() as s, s.begin():
        account = Account(username=name, password_hash="x", balance=0)
        s.add(account)
        await s.flush()
        return account.id


async def test_a_post_moves_the_balance_and_writes_one_row(db: Database) -> None:
    aid = await _account(db)
    async with db.sessions() as s:
        posted = await ledger.post(s, aid, 10000, "signup_grant", f"signup:{aid}")
    assert posted.created and posted.entry.balance_after == 10000
    async with db.sessions() as s:
        again = await ledger.post(s, aid, 10000, "signup_grant", f"signup:{aid}")
    assert not again.created and again.entry.id == posted.entry.id
    async with db.sessions() as s:
        balance = (await s.execute(select(Account.balance).where(Account.id == aid))).scalar_one()
        rows = (await s.execute(select(LedgerEntry).where(LedgerEntry.account_id == aid))).scalars().all()
    assert balance == 10000 == sum(r.delta for r in rows) and len(rows) == 1


async def test_a_debit_beyond_the_balance_is_refused_and_changes_nothing(db: Database) -> None:
    aid = await _account(db)
    async with db.sessions() as s:
        await ledger.post(s, aid, 50, "admin_adjustment", "k1", note="test")
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError) as refused:
            await ledger.post(s, aid, -51, "admin_adjustment", "k2", note="test")
    assert refused.value.code == "insufficient_balance"
    async with db.sessions() as s:
        balance = (await s.execute(select(Account.balance).where(Account.id == aid))).scalar_one()
        count = len((await s.execute(select(LedgerEntry))).scalars().all())
    assert balance == 50 and count == 1


async def test_floats_and_unknown_reasons_are_refused(db: Database) -> None:
    aid = await _account(db)
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError):
            await ledger.post(s, aid, 1.5, "admin_adjustment", "f")  # type: ignore[arg-type]
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError):
            await ledger.post(s, aid, 5, "gift", "g")
