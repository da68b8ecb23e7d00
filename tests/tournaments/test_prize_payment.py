"""Paying a tournament out (app/tournaments/money.py `pay_prizes`), on every backend: the
house's guarantee in, its rake out, every prize by the prize table, in one transaction and
once; the event's account ends at exactly 0 and the supply explains every silver."""

from __future__ import annotations

from sqlalchemy import select, update

from app.store.db import Database
from app.store.models import Tournament, TournamentEntry
from app.tournaments import events, money
from app.tournaments.money import PrizesRefused
from tests.tournaments.event_kit import NOW, balances, fund_house, funded, made, reconciled, rows


async def _started(db: Database, players: list[int], bots: list[int], **changes: object
                   ) -> Tournament:
    """An event the players registered for, started with the bots filling its seats: the
    players numbered 0, 1, ... in their order, then the bots."""
    tournament = await made(db, **changes)
    async with db.sessions() as s:
        for p in players:
            await events.register(s, tournament.id, p, NOW)
    async with db.sessions() as s, s.begin():
        for n, p in enumerate(players):
            await s.execute(update(TournamentEntry).where(
                TournamentEntry.tournament_id == tournament.id,
                TournamentEntry.account_id == p).values(number=n, status="playing"))
        for n, b in enumerate(bots, start=len(players)):
            s.add(TournamentEntry(tournament_id=tournament.id, account_id=b, status="playing",
                                  number=n, bot=True, registrations=0, registered_at=NOW))
        await s.execute(update(Tournament).where(Tournament.id == tournament.id)
                        .values(status="running"))
        found = await s.get(Tournament, tournament.id)
        assert found is not None
        return found


async def test_a_rake_and_a_guarantee_pay_the_pool_exactly(db: Database) -> None:
    house_id = await fund_house(db, 10_000)
    players = await funded(db, *[1000] * 6)
    bots = await funded(db, 0, 0)
    tournament = await _started(db, players, bots, fee=100, rake_bp=1000, guarantee=1000,
                                prize_shares="[50, 30, 20]")
    assert await balances(db, [tournament.account_id]) == [600]
    # fees 600, rake 60, the house tops 540 up to 1000; places: a bot first, then players
    places = [6, 2, 7, 0, 5, 1, 3, 4]
    async with db.sessions() as s:
        paid = await money.pay_prizes(s, tournament, places, {6, 7})
    assert paid.created
    assert await balances(db, [tournament.account_id, house_id, *players, *bots]) == [
        0, 10_000 + 60 - 460, 900 + 300, 900, 900 + 500, 900, 900, 900 + 200, 0, 0]
    assert [(a, d, r) for a, d, r, _ in await rows(db) if r != "tournament_fee"] == [
        (house_id, -460, "tournament_guarantee"), (tournament.account_id, 460,
                                                   "tournament_guarantee"),
        (tournament.account_id, -60, "tournament_rake"), (house_id, 60, "tournament_rake"),
        (tournament.account_id, -500, "tournament_prize"), (players[2], 500, "tournament_prize"),
        (tournament.account_id, -300, "tournament_prize"), (players[0], 300, "tournament_prize"),
        (tournament.account_id, -200, "tournament_prize"), (players[5], 200, "tournament_prize"),
    ]
    async with db.sessions() as s:
        prizes = dict((await s.execute(select(TournamentEntry.account_id, TournamentEntry.prize)
                                       .where(TournamentEntry.bot.is_(False)))).all())
    assert prizes == {players[0]: 300, players[1]: 0, players[2]: 500, players[3]: 0,
                      players[4]: 0, players[5]: 200}

    async with db.sessions() as s:  # finished: it can no longer be cancelled
        status = (await s.execute(select(Tournament.status).where(
            Tournament.id == tournament.id))).scalar_one()
    assert status == "finished"
    async with db.sessions() as s:
        try:
            await events.cancel(s, tournament.id)
        except events.TournamentRefused as refused:
            assert refused.code == "tournament_finished"
        else:
            raise AssertionError("a paid event was cancelled")

    before = await rows(db)
    async with db.sessions() as s:  # paid again: nothing moves
        again = await money.pay_prizes(s, tournament, places, {6, 7})
    assert not again.created and await rows(db) == before
    assert await balances(db, [tournament.account_id, house_id]) == [0, 9600]
    assert (await reconciled(db)).events == 0


async def test_a_rake_alone_and_rounding_leave_the_event_at_0(db: Database) -> None:
    house_id = await fund_house(db, 1)
    players = await funded(db, *[1000] * 7)
    bots = await funded(db, 0)
    tournament = await _started(db, players, bots, fee=37, rake_bp=333, guarantee=0,
                                prize_shares="[3, 2, 1, 1]")
    # fees 259, rake 259 * 333 // 10000 = 8, pool 251: 107, 71, 35, 35 and the 3 left to 1st
    async with db.sessions() as s:
        await money.pay_prizes(s, tournament, list(range(8)), {7})
    assert await balances(db, [tournament.account_id, house_id, *players[:5]]) == [
        0, 1 + 8, 963 + 110, 963 + 71, 963 + 35, 963 + 35, 963]
    await reconciled(db)


async def test_a_guarantee_the_house_cannot_pay_moves_nothing(db: Database) -> None:
    house_id = await fund_house(db, 5000)
    players = await funded(db, *[1000] * 8)
    tournament = await _started(db, players, [], fee=10, rake_bp=0, guarantee=5000)
    async with db.sessions() as s:  # the house spent its silver after the event was made
        from app.store import ledger
        await ledger.adjust(s, house_id, -4990, "spent", admin_id=house_id)
    before = await rows(db)
    async with db.sessions() as s:
        try:
            await money.pay_prizes(s, tournament, list(range(8)), set())
        except PrizesRefused as refused:
            assert refused.code == "house_funds_low"
        else:
            raise AssertionError("paid a guarantee the house does not have")
    assert await rows(db) == before
    assert await balances(db, [tournament.account_id, house_id]) == [80, 10]
    async with db.sessions() as s:
        prizes = (await s.execute(select(TournamentEntry.prize))).scalars().all()
    assert prizes == [None] * 8
    await reconciled(db)


async def test_an_event_not_running_pays_nothing(db: Database) -> None:
    await fund_house(db, 5000)
    players = await funded(db, *[1000] * 8)
    tournament = await made(db, fee=10, guarantee=1000)
    async with db.sessions() as s:
        for p in players:
            await events.register(s, tournament.id, p, NOW)
    before = await rows(db)
    for status in ("open", "cancelled"):
        if status == "cancelled":
            async with db.sessions() as s:
                await events.cancel(s, tournament.id)
            before = await rows(db)
        async with db.sessions() as s:
            try:
                await money.pay_prizes(s, tournament, list(range(8)), set())
            except PrizesRefused as refused:
                assert refused.code == "validation_error"
            else:
                raise AssertionError(f"an event {status} paid prizes")
        assert await rows(db) == before
    await reconciled(db)
