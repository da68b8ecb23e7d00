"""A tournament as it is shown (docs/tournaments.md, "Play"): the standings now and the
rounds' tables, read from the database, for `GET /tournaments/{id}/standings` and for the
`tournament` message each entrant is sent as the event moves on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.protocol.tournaments import TournamentInfo, TournamentStanding
from app.store.models import Account, Room, Tournament, TournamentEntry, TournamentTable
from app.tournaments import rounds, swiss


@dataclass(frozen=True, slots=True)
class EventTable:
    round: int
    number: int
    table_id: str
    status: str
    accounts: tuple[int, int, int, int]  # by seat, 东 first


@dataclass(frozen=True, slots=True)
class Shown:
    """The event now: its standings by place, every table, the final table's room code."""

    standings: list[TournamentStanding]
    tables: list[EventTable]
    final_room: str | None


async def shown(session: AsyncSession, tournament: Tournament) -> Shown:
    """The standings after the Swiss rounds done (the final table's players first by their
    points there once it is done) and every table of every round, in the caller's
    transaction."""
    now = await rounds.standings(session, tournament)
    every = now.tables
    entries = {e.number: e for e in (await session.execute(select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament.id))).scalars() if e.number is not None}
    names = {int(i): str(n) for i, n in (await session.execute(
        select(Account.id, Account.username).where(
            Account.id.in_([e.account_id for e in entries.values()])))).all()}
    final_tables = [t for t in every if t.round > tournament.rounds]
    final_room = None
    if final_tables:
        final_room = (await session.execute(select(Room.code).where(
            Room.table_id == final_tables[0].table_id))).scalar_one_or_none()
    final_done = bool(final_tables) and all(t.status == "done" for t in final_tables)
    order = (swiss.final_places(now.ranked, now.final, now.final_scores) if final_done
             else tuple(s.entrant for s in now.ranked))
    ranked = {s.entrant: s for s in now.ranked}
    return Shown(
        [_standing(place, ranked[e], entries[e], names, now)
         for place, e in enumerate(order, start=1)],
        [EventTable(t.round, t.number, t.table_id, t.status,
                    _accounts(t, entries)) for t in every],
        final_room,
    )


def info(tournament: Tournament, now: Shown, account: int) -> TournamentInfo:
    """The `tournament` message's event for `account`: its table of the round in play."""
    mine = [t.table_id for t in now.tables
            if t.round == tournament.round and account in t.accounts and t.status != "done"]
    return TournamentInfo(
        id=tournament.id, name=tournament.name,
        status=tournament.status,  # type: ignore[arg-type]
        round=tournament.round, rounds=tournament.rounds, final_table=tournament.final_table,
        table_id=mine[0] if mine else None, standings=now.standings,
    )


def _accounts(table: TournamentTable, entries: dict[int, TournamentEntry]
              ) -> tuple[int, int, int, int]:
    a, b, c, d = (entries[e].account_id for e in rounds.seats_of(table))
    return a, b, c, d


def _standing(place: int, standing: swiss.Standing, entry: TournamentEntry,
              names: dict[int, str], now: rounds.Standings) -> TournamentStanding:
    final_points = None
    if now.final is not None and standing.entrant in now.final.seats and now.final_scores:
        final_points = now.final_scores.get(standing.entrant, swiss.Score()).points
    return TournamentStanding(
        place=place, account_id=entry.account_id, name=names.get(entry.account_id, ""),
        bot=entry.bot, forfeited=entry.status == "forfeited", points=standing.points,
        wins=standing.wins, best_round=standing.best_round, final_points=final_points,
        prize=entry.prize,
    )


def players(entries: Sequence[TournamentStanding]) -> list[int]:
    """The people among the entrants (house bots are told nothing)."""
    return [s.account_id for s in entries if not s.bot]
