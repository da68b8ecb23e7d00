"""Text with a NUL character never reaches a statement (app/store/db.py), on every backend:
PostgreSQL's driver would fail on it, SQLite would store it."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.store import accounts
from app.store.db import Database, NulCharacter
from app.store.models import Account


async def test_a_nul_in_a_parameter_is_refused_before_the_statement(db: Database) -> None:
    async with db.sessions() as s:
        with pytest.raises(NulCharacter):
            async with s.begin():
                await accounts.by_username(s, "ann\x00")
        with pytest.raises(NulCharacter):
            async with s.begin():
                await accounts.create(s, "ann", "hash\x00")
        async with s.begin():
            await accounts.create(s, "ann", "hash")  # the refused one left nothing behind
        async with s.begin():
            names = (await s.execute(select(Account.username))).scalars().all()
    assert list(names) == ["ann"]
