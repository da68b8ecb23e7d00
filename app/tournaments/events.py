"""Tournaments in the database (比赛场), before any round is played: made by an operator
with the house able to cover the guarantee, listed, registered for and left (each with its
fee or refund in the same transaction), and cancelled (every fee refunded with the status
in one transaction). docs/tournaments.md, "Registering and money".

Each change of an event's entries locks the event's row first, so two registrations for
its last seat, or a registration and a cancel, happen one after the other on PostgreSQL;
SQLite's writers queue in this process (`ledger.writing`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts, house, ledger
from app.store.models import Tournament, TournamentEntry
from app.tournaments import money

Listing = Literal["upcoming", "running", "finished"]
PAID = ("registered", "playing", "forfeited", "finished")  # a player whose fee is held


class TournamentRefused(Exception):
    """A refusal with a stable error code (app/api/errors.py)."""

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite keeps no offset


async def create(session: AsyncSession, tournament: Tournament) -> Tournament:
    """Store a new open event and its account, in a transaction of its own (`session` must
    have none open). `house_funds_low`: the house's balance is below the guarantee now."""
    async with ledger.writing(session):
        if tournament.guarantee:
            house_id = await house.account_id(session)
            bank = await accounts.by_id(session, house_id)
            assert bank is not None
            if bank.balance < tournament.guarantee:
                raise TournamentRefused(
                    "house_funds_low",
                    f"the house holds {bank.balance} silver, not the {tournament.guarantee} "
                    "of the guarantee",
                    {"needed": tournament.guarantee, "house": bank.balance},
                )
        tournament.account_id = await money.open_account(session)
        session.add(tournament)
        await session.flush()
        await money.name_account(session, tournament)
    return tournament


async def listing(
    session: AsyncSession, which: Listing, limit: int, offset: int
) -> Sequence[Tournament]:
    """Upcoming (open: soonest first), running (earliest start first) or finished (over or
    cancelled: latest start first)."""
    query = select(Tournament)
    if which == "upcoming":
        query = query.where(Tournament.status == "open").order_by(Tournament.starts_at,
                                                                  Tournament.id)
    elif which == "running":
        query = query.where(Tournament.status == "running").order_by(Tournament.starts_at,
                                                                     Tournament.id)
    else:
        query = query.where(Tournament.status.in_(("finished", "cancelled"))).order_by(
            Tournament.starts_at.desc(), Tournament.id.desc())
    return (await session.execute(query.limit(limit).offset(offset))).scalars().all()


async def players(session: AsyncSession, ids: Sequence[int]) -> dict[int, int]:
    """Per event, the players whose fee it holds (registered; from the start, playing)."""
    if not ids:
        return {}
    rows = await session.execute(
        select(TournamentEntry.tournament_id, func.count())
        .where(TournamentEntry.tournament_id.in_(ids), TournamentEntry.bot.is_(False),
               TournamentEntry.status.in_(PAID))
        .group_by(TournamentEntry.tournament_id))
    counts = {int(t): int(n) for t, n in rows.all()}
    return {i: counts.get(i, 0) for i in ids}


async def registered_for(session: AsyncSession, account_id: int, ids: Sequence[int]
                         ) -> set[int]:
    """Which of the events `account_id` has a paid entry in."""
    if not ids:
        return set()
    rows = await session.execute(select(TournamentEntry.tournament_id).where(
        TournamentEntry.account_id == account_id, TournamentEntry.tournament_id.in_(ids),
        TournamentEntry.status.in_(PAID)))
    return {int(t) for t in rows.scalars()}


async def playing_in(session: AsyncSession, account_id: int) -> int | None:
    """The running event `account_id` plays in (or forfeited: its seats are still theirs),
    if any: its director alone seats them until it ends."""
    return (await session.execute(
        select(TournamentEntry.tournament_id)
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .where(TournamentEntry.account_id == account_id, TournamentEntry.bot.is_(False),
               TournamentEntry.status.in_(("playing", "forfeited")),
               Tournament.status == "running").limit(1))).scalar_one_or_none()


async def entry_of(session: AsyncSession, tournament_id: int, account_id: int
                   ) -> TournamentEntry | None:
    return (await session.execute(select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament_id,
        TournamentEntry.account_id == account_id))).scalar_one_or_none()


async def _locked(session: AsyncSession, tournament_id: int) -> Tournament:
    found = (await session.execute(
        select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    )).scalar_one_or_none()
    if found is None:
        raise TournamentRefused("not_found", f"no tournament {tournament_id}")
    return found


def _open(tournament: Tournament, now: datetime) -> None:
    if tournament.status != "open" or now >= aware(tournament.starts_at):
        raise TournamentRefused("registration_closed",
                                f"registration for tournament {tournament.id} is closed")


async def register(session: AsyncSession, tournament_id: int, account_id: int, now: datetime
                   ) -> TournamentEntry:
    """Take a seat and pay the fee, in one transaction of its own. Refused, nothing
    changed: `not_found`, `registration_closed` (not open, or its start has come),
    `already_registered`, `tournament_full`, `insufficient_balance`."""
    try:
        async with ledger.writing(session):
            tournament = await _locked(session, tournament_id)
            _open(tournament, now)
            entry = await entry_of(session, tournament_id, account_id)
            if entry is not None and entry.status != "withdrawn":
                raise TournamentRefused("already_registered",
                                        f"you are registered for tournament {tournament_id}")
            if (await players(session, [tournament_id]))[tournament_id] >= tournament.seats:
                raise TournamentRefused("tournament_full",
                                        f"tournament {tournament_id}'s {tournament.seats} seats "
                                        "are taken", {"seats": tournament.seats})
            if entry is None:
                entry = TournamentEntry(tournament_id=tournament_id, account_id=account_id,
                                        status="registered", bot=False, registrations=1,
                                        registered_at=now)
                session.add(entry)
            else:
                entry.status = "registered"
                entry.registrations += 1
                entry.registered_at = now
            await session.flush()
            await money.pay_fee(session, tournament, account_id, entry.registrations)
    except ledger.LedgerError as refused:
        raise TournamentRefused(refused.code, str(refused), refused.details) from None
    return entry


async def unregister(session: AsyncSession, tournament_id: int, account_id: int, now: datetime
                     ) -> TournamentEntry:
    """Give the seat up and have the fee back, in one transaction of its own. Refused:
    `not_found`, `registration_closed`, `not_registered`."""
    async with ledger.writing(session):
        tournament = await _locked(session, tournament_id)
        _open(tournament, now)
        entry = await entry_of(session, tournament_id, account_id)
        if entry is None or entry.status != "registered":
            raise TournamentRefused("not_registered",
                                    f"you are not registered for tournament {tournament_id}")
        entry.status = "withdrawn"
        await session.flush()
        await money.refund_fee(session, tournament, account_id, entry.registrations)
    return entry


async def cancel(session: AsyncSession, tournament_id: int) -> tuple[Tournament, int]:
    """Cancel the event and refund every fee it holds, in one transaction of its own; the
    number of players refunded by this call. Cancelled already: nothing moves (0).
    Refused: `not_found`, `tournament_finished`."""
    async with ledger.writing(session):
        tournament = await _locked(session, tournament_id)
        if tournament.status == "cancelled":
            return tournament, 0
        if tournament.status == "finished":
            raise TournamentRefused("tournament_finished",
                                    f"tournament {tournament_id} is over: its prizes are paid")
        entries = (await session.execute(
            select(TournamentEntry).where(
                TournamentEntry.tournament_id == tournament_id,
                TournamentEntry.bot.is_(False), TournamentEntry.status.in_(PAID))
            .order_by(TournamentEntry.id))).scalars().all()
        for entry in entries:
            entry.status = "withdrawn"
        await money.refund_fees(session, tournament,
                                [(e.account_id, e.registrations) for e in entries])
        tournament.status = "cancelled"
        await session.flush()
    return tournament, len(entries)
