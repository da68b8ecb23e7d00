"""Tournaments before their start, in the database, on every backend: the event's own
account, registering and unregistering with the fee held and paid back in the same
transaction, full and closed events, a cancel that refunds every fee once, and the supply
explaining every silver throughout."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.store.db import Database
from app.store.models import Account, TournamentEntry
from app.tournaments import events
from app.tournaments.events import TournamentRefused
from tests.tournaments.event_kit import (
    NOW,
    balances,
    event,
    fund_house,
    funded,
    made,
    operator,
    reconciled,
    rows,
)


async def _refused(code: str, call: object) -> None:
    with pytest.raises(TournamentRefused) as refused:
        await call  # type: ignore[misc]
    assert refused.value.code == code, refused.value


async def test_an_event_has_an_account_no_player_can_use(db: Database) -> None:
    made_event = await made(db)
    async with db.sessions() as s:
        account = await s.get(Account, made_event.account_id)
    assert account is not None
    assert (account.username, account.role, account.banned, account.balance) == (
        f"event-{made_event.id}", "house", True, 0)
    assert account.password_hash == "!"
    assert (await reconciled(db)).events == 0


async def test_registering_pays_the_fee_and_unregistering_pays_it_back(db: Database) -> None:
    tournament = await made(db, fee=250)
    ann, bob = await funded(db, 1000, 1000)
    async with db.sessions() as s:
        entry = await events.register(s, tournament.id, ann, NOW)
    assert (entry.status, entry.registrations, entry.number, entry.prize) == (
        "registered", 1, None, None)
    assert await balances(db, [ann, bob, tournament.account_id]) == [750, 1000, 250]
    key = f"tournament:{tournament.id}:fee:{ann}:1"
    assert await rows(db) == [(ann, -250, "tournament_fee", f"{key}:from"),
                              (tournament.account_id, 250, "tournament_fee", key)]
    assert (await reconciled(db)).events == 250

    async with db.sessions() as s:
        await _refused("already_registered", events.register(s, tournament.id, ann, NOW))
        await _refused("not_registered", events.unregister(s, tournament.id, bob, NOW))
    assert await balances(db, [ann, tournament.account_id]) == [750, 250]  # a retry: nothing

    async with db.sessions() as s:
        await events.unregister(s, tournament.id, ann, NOW)
        await _refused("not_registered", events.unregister(s, tournament.id, ann, NOW))
    assert await balances(db, [ann, tournament.account_id]) == [1000, 0]
    assert [r[:3] for r in await rows(db, "tournament_refund")] == [
        (tournament.account_id, -250, "tournament_refund"), (ann, 250, "tournament_refund")]

    async with db.sessions() as s:  # registering again is a new fee under a new key
        again = await events.register(s, tournament.id, ann, NOW)
    assert again.registrations == 2
    assert await balances(db, [ann, tournament.account_id]) == [750, 250]
    assert (await rows(db))[-1][3] == f"tournament:{tournament.id}:fee:{ann}:2"
    await reconciled(db)


async def test_a_full_a_closed_and_an_unaffordable_event_change_nothing(db: Database) -> None:
    tournament = await made(db, seats=8, fee=100)
    players = await funded(db, *[500] * 8)
    poor, late = await funded(db, 99, 500)
    async with db.sessions() as s:
        for p in players:
            await events.register(s, tournament.id, p, NOW)
        await _refused("tournament_full", events.register(s, tournament.id, late, NOW))
        await events.unregister(s, tournament.id, players[0], NOW)
        await _refused("insufficient_balance", events.register(s, tournament.id, poor, NOW))
        start = tournament.starts_at
        await _refused("registration_closed", events.register(s, tournament.id, late, start))
        await _refused("registration_closed",
                       events.unregister(s, tournament.id, players[1], start + timedelta(1)))
        await _refused("not_found", events.register(s, tournament.id + 99, late, NOW))
    assert await balances(db, [poor, late, players[1], tournament.account_id]) == [
        99, 500, 400, 700]
    async with db.sessions() as s:
        entries = (await s.execute(select(TournamentEntry.account_id).where(
            TournamentEntry.status == "registered"))).scalars().all()
    assert sorted(entries) == sorted(players[1:])
    await reconciled(db)


async def test_the_last_seat_goes_to_one_of_two_at_once(db: Database) -> None:
    tournament = await made(db, seats=8, fee=10)
    players = await funded(db, *[100] * 9)
    async with db.sessions() as s:
        for p in players[:7]:
            await events.register(s, tournament.id, p, NOW)

    async def take(account: int) -> str:
        async with db.sessions() as s:
            try:
                await events.register(s, tournament.id, account, NOW)
            except TournamentRefused as refused:
                return refused.code
            return "registered"

    assert sorted(await asyncio.gather(take(players[7]), take(players[8]))) == [
        "registered", "tournament_full"]
    assert (await balances(db, [tournament.account_id])) == [80]
    await reconciled(db)


async def test_cancelling_refunds_every_fee_once(db: Database) -> None:
    tournament = await made(db, fee=300)
    ann, bob, cy = await funded(db, 1000, 1000, 1000)
    async with db.sessions() as s:
        for p in (ann, bob, cy):
            await events.register(s, tournament.id, p, NOW)
        await events.unregister(s, tournament.id, cy, NOW)
    assert await balances(db, [ann, bob, cy, tournament.account_id]) == [700, 700, 1000, 600]

    async with db.sessions() as s:
        cancelled, refunded = await events.cancel(s, tournament.id)
    assert (cancelled.status, refunded) == ("cancelled", 2)
    assert await balances(db, [ann, bob, cy, tournament.account_id]) == [1000, 1000, 1000, 0]
    async with db.sessions() as s:  # again: nothing moves
        assert (await events.cancel(s, tournament.id))[1] == 0
        await _refused("registration_closed", events.register(s, tournament.id, ann, NOW))
    refunds = await rows(db, "tournament_refund")
    assert len(refunds) == 6 and sum(r[1] for r in refunds) == 0
    assert await balances(db, [ann, bob, cy, tournament.account_id]) == [1000, 1000, 1000, 0]
    assert (await reconciled(db)).events == 0


async def test_a_guarantee_the_house_cannot_cover_makes_nothing(db: Database) -> None:
    by = await operator(db)
    async with db.sessions() as s:
        await _refused("house_funds_low", events.create(s, event(by, guarantee=5000)))
        known = (await s.execute(select(Account.username))).scalars().all()
    assert not [n for n in known if n.startswith("event-")]
    await fund_house(db, 5000)
    assert (await made(db, guarantee=5000)).guarantee == 5000


async def test_a_registration_sent_twice_at_once_pays_once(db: Database) -> None:
    tournament = await made(db, fee=40)
    (ann,) = await funded(db, 100)

    async def take() -> str:
        async with db.sessions() as s:
            try:
                await events.register(s, tournament.id, ann, NOW)
            except TournamentRefused as refused:
                return refused.code
            return "registered"

    assert sorted(await asyncio.gather(take(), take())) == ["already_registered", "registered"]
    assert await balances(db, [ann, tournament.account_id]) == [60, 40]
    assert len(await rows(db)) == 2
    await reconciled(db)
