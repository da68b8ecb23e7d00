"""The house account, the bots' funding through it, retry-safe adjustments and the silver
supply, on every backend."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from app.rules.context import Settlement, Transfer
from app.settings import Settings
from app.store import house, ledger
from app.store.db import Database
from app.store.models import Account, LedgerEntry
from tests.store.test_settlement import _accounts, _assert_books_balance, _balances


async def _house(db: Database) -> int:
    async with db.sessions() as s, s.begin():
        return await house.account_id(s)


async def _fund(db: Database, house_id: int, amount: int) -> None:
    async with db.sessions() as s:
        await ledger.adjust(s, house_id, amount, "float", admin_id=house_id)


async def _supply(db: Database) -> house.Supply:
    async with db.sessions() as s, s.begin():
        return await house.supply(s)


async def test_the_house_account_is_made_once_with_no_silver(db: Database) -> None:
    ids = await asyncio.gather(*(_house(db) for _ in range(4)))
    assert len(set(ids)) == 1
    async with db.sessions() as s:
        made = (await s.execute(select(Account).where(Account.id == ids[0]))).scalar_one()
    assert (made.username, made.role, made.banned, made.balance) == ("house-bank", "house",
                                                                     True, 0)


async def test_bots_are_levelled_through_the_house(db: Database) -> None:
    house_id = await _house(db)
    await _fund(db, house_id, 1000)
    poor, rich, new = await _accounts(db, 30, 900, 0)
    async with db.sessions() as s:
        rows = await ledger.level_bots(s, house_id, {poor: 200, rich: 200, new: 200}, "fill:1")
    assert await _balances(db, [house_id, poor, rich, new]) == [1000 - 170 + 700 - 200,
                                                                200, 200, 200]
    assert {r.reason for r in rows} == {"house_funding"} and sum(r.delta for r in rows) == 0
    assert len(rows) == 6  # two rows a move, the surplus paid back first
    assert [r.delta for r in rows[:2]] == [-700, 700]

    async with db.sessions() as s:  # the same key again: nothing moves
        again = await ledger.level_bots(s, house_id, {poor: 200, rich: 200, new: 200}, "fill:1")
    assert sorted(r.id for r in again) == sorted(r.id for r in rows)
    assert await _balances(db, [house_id]) == [1330]

    # the house cannot pay every bot: none is paid
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError) as refused:
            await ledger.level_bots(s, house_id, {poor: 1000, new: 1000}, "fill:2")
    assert refused.value.code == "house_funds_low"
    assert refused.value.details == {"needed": 1600, "house": 1330}
    assert await _balances(db, [house_id, poor, new]) == [1330, 200, 200]
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError):
            await ledger.level_bots(s, house_id, {house_id: 5}, "fill:3")
    await _assert_books_balance(db)


async def test_an_adjustment_key_makes_one_row(db: Database) -> None:
    (ann,) = await _accounts(db, 100)

    async def once(delta: int = 50) -> ledger.Posted:
        async with db.sessions() as s:
            return await ledger.adjust_once(s, ann, delta, "goodwill", 9, "k-1")

    posts = await asyncio.gather(*(once() for _ in range(5)))
    assert sum(p.created for p in posts) == 1
    assert len({p.entry.id for p in posts}) == 1
    later = await once(60)  # the caller sees the first row and tells the difference
    assert (later.created, later.entry.delta) == (False, 50)
    assert await _balances(db, [ann]) == [150]
    async with db.sessions() as s:
        assert (await s.execute(
            select(func.count()).select_from(LedgerEntry).where(LedgerEntry.account_id == ann)
        )).scalar_one() == 2


async def test_the_supply_counts_what_made_silver(db: Database) -> None:
    house_id = await _house(db)
    await _fund(db, house_id, 5000)
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    async with db.sessions() as s:
        await ledger.level_bots(s, house_id, {seats[3]: 1500}, "fill:1")
    # a 湖州 hand with house points and silver: rewards are made, transfers are not
    settlement = Settlement(
        transfers=(Transfer(payer=1, payee=0, points=3, reason="win"),),
        house=(2, 0, 0, 0),
        house_silver=(50, 0, 0, 0),
    )
    async with db.sessions() as s:
        await ledger.settle_hand(s, "h1", seats, settlement, 10, variant="huzhou")
    supply = await _supply(db)
    assert (supply.grants, supply.adjustments, supply.rewards) == (4000, 5000, 20 + 50)
    assert supply.total == 4000 + 5000 + 70 and supply.unexplained == 0
    assert supply.house == 4500 and supply.bots == 0 and supply.bot_accounts == 0
    assert supply.players == supply.total - supply.house


async def test_the_house_gets_its_opening_float_once_per_database(
    db: Database, settings: Settings
) -> None:
    """`python -m app` grants the house `house_float` at its first start, and never again: a
    fresh install can call bots at once, and the grant is in the supply's `grants`."""
    for float_ in (1_000_000, 1_000_000, 5_000_000):  # later starts, a changed setting too
        await house.open_house(settings.model_copy(update={"house_float": float_}))
    house_id = await _house(db)
    assert (await _balances(db, [house_id])) == [1_000_000]
    supply = await _supply(db)
    assert (supply.house, supply.grants, supply.unexplained) == (1_000_000, 1_000_000, 0)
    async with db.sessions() as s:
        reasons = (await s.execute(select(LedgerEntry.reason))).scalars().all()
    assert reasons == ["house_float"]


async def test_a_house_float_of_0_leaves_the_funding_to_operators(
    db: Database, settings: Settings
) -> None:
    await house.open_house(settings.model_copy(update={"house_float": 0}))
    assert (await _supply(db)).total == 0
