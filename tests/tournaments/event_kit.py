"""Helpers for the tournaments' store tests: an event as an operator makes it, players with
silver, the supply's check."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.rules.wall import commitment
from app.store import house, ledger
from app.store.db import Database
from app.store.models import Account, LedgerEntry, Tournament
from app.tournaments import events

NOW = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


def event(created_by: int = 1, **changes: object) -> Tournament:
    """An open event starting in two hours: 丽水, 8 seats, fee 100, rake 10%, no guarantee."""
    seed = secrets.token_bytes(32)
    made = Tournament(
        name="冬至杯", variant="lishui", options="{}", stake=1,
        timers=json.dumps({"discard": 20, "claim": 10, "decide": 10, "ready": 15}),
        fee=100, rake_bp=1000, guarantee=0, seats=8, rounds=3, length_unit="hands", length=8,
        final_table=False, prize_shares=json.dumps([50, 30, 20]),
        starts_at=NOW + timedelta(hours=2), status="open", seed=seed.hex(),
        seed_revealed=False, commitment=commitment(seed), bot_level="standard",
        created_by=created_by,
    )
    for name, value in changes.items():
        setattr(made, name, value)
    return made


async def operator(db: Database) -> int:
    async with db.sessions() as s, s.begin():
        account = Account(username=f"op{secrets.token_hex(4)}", password_hash="x",
                          role="admin", balance=0)
        s.add(account)
        await s.flush()
        return account.id


async def made(db: Database, **changes: object) -> Tournament:
    by = await operator(db)
    async with db.sessions() as s:
        return await events.create(s, event(by, **changes))


async def funded(db: Database, *balances: int) -> list[int]:
    """Accounts holding these balances, each from its signup grant."""
    ids = []
    async with db.sessions() as s:
        async with s.begin():
            for i, _ in enumerate(balances):
                account = Account(username=f"p{secrets.token_hex(4)}{i}", password_hash="x",
                                  balance=0)
                s.add(account)
                await s.flush()
                ids.append(account.id)
        for account_id, amount in zip(ids, balances, strict=True):
            await ledger.grant_signup(s, account_id, amount)
    return ids


async def fund_house(db: Database, amount: int) -> int:
    async with db.sessions() as s:
        async with s.begin():
            house_id = await house.account_id(s)
        await ledger.adjust(s, house_id, amount, "float", admin_id=house_id)
    return house_id


async def balances(db: Database, ids: Sequence[int]) -> list[int]:
    async with db.sessions() as s:
        rows = dict((await s.execute(select(Account.id, Account.balance))).all())
    return [rows[i] for i in ids]


async def rows(db: Database, reason: str | None = None) -> list[tuple[int, int, str, str]]:
    """(account, delta, reason, key) of the tournaments' ledger rows, oldest first."""
    async with db.sessions() as s:
        query = select(LedgerEntry).where(LedgerEntry.reason.startswith("tournament_"))
        if reason is not None:
            query = query.where(LedgerEntry.reason == reason)
        found = (await s.execute(query.order_by(LedgerEntry.id))).scalars().all()
    return [(r.account_id, r.delta, r.reason, r.idempotency_key) for r in found]


async def reconciled(db: Database) -> house.Supply:
    """The supply, which explains every silver."""
    async with db.sessions() as s, s.begin():
        supply = await house.supply(s)
    assert supply.unexplained == 0, supply
    assert supply.total == supply.house + supply.players + supply.bots + supply.events, supply
    return supply
