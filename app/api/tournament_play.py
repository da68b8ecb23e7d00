"""A tournament's play over REST (比赛场, docs/tournaments.md "Play"): anyone reads the live
standings and the rounds' tables of an event. The standings are the Swiss places after
every round whose tables are all done (the final table's players first by their points
there once it is done); each table names its accounts by seat, and the final table the
room code that lets anyone watch it."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.tournaments import TournamentId
from app.store.models import Account, Room, Tournament, TournamentEntry
from app.tournaments import rounds, swiss

router = APIRouter(tags=["tournaments"])


class StandingOut(BaseModel):
    place: int = Field(description="1, 2, ...")
    account_id: int
    name: str
    bot: bool = Field(description="a house bot: plays, wins no prize")
    forfeited: bool = Field(description="left: the rest of the event is played on 托管")
    points: int = Field(description="net points over the Swiss rounds done")
    wins: int = Field(description="hands won (胡) over the Swiss rounds done")
    best_round: int = Field(description="the most points won in one round")
    final_points: int | None = Field(description="points at the final table (null: not there)")
    prize: int | None = Field(description="silver won, once the prizes are paid")


class EventTableOut(BaseModel):
    round: int = Field(description="1, 2, ...; the final table's is rounds + 1")
    number: int
    table_id: str
    status: Literal["waiting", "playing", "done"]
    accounts: list[int] = Field(description="by seat, 东 first")
    room: str | None = Field(description="the final table's room code (anyone may watch it)")


class StandingsOut(BaseModel):
    tournament_id: int
    status: Literal["open", "running", "finished", "cancelled"]
    round: int = Field(description="the round in play (0 before the start)")
    rounds: int
    final_table: bool
    standings: list[StandingOut]
    tables: list[EventTableOut]


@router.get("/tournaments/{tournament_id}/standings",
            responses=errors.responses("validation_error", "not_found"))
async def standings(tournament_id: TournamentId, session: SessionDep) -> StandingsOut:
    """The event's live standings and its rounds' tables (anyone)."""
    async with session.begin():
        tournament = await session.get(Tournament, tournament_id, populate_existing=True)
        if tournament is None:
            raise ApiError("not_found", f"no tournament {tournament_id}")
        now = await rounds.standings(session, tournament)
        every = await rounds.tables(session, tournament_id)
        entries = {e.number: e for e in (await session.execute(select(TournamentEntry).where(
            TournamentEntry.tournament_id == tournament_id))).scalars() if e.number is not None}
        names = dict((await session.execute(select(Account.id, Account.username).where(
            Account.id.in_([e.account_id for e in entries.values()])))).all())
        final_room = None
        if now.final is not None:
            final_room = (await session.execute(select(Room.code).where(
                Room.table_id == every[-1].table_id))).scalar_one_or_none()
    final_done = now.final is not None and now.final_scores is not None and all(
        t.status == "done" for t in every if t.round > tournament.rounds)
    order = (swiss.final_places(now.ranked, now.final, now.final_scores) if final_done
             else tuple(s.entrant for s in now.ranked))
    ranked = {s.entrant: s for s in now.ranked}
    return StandingsOut(
        tournament_id=tournament_id, status=tournament.status,  # type: ignore[arg-type]
        round=tournament.round, rounds=tournament.rounds, final_table=tournament.final_table,
        standings=[_standing(place, ranked[e], entries[e], names, now)
                   for place, e in enumerate(order, start=1)],
        tables=[EventTableOut(
            round=t.round, number=t.number, table_id=t.table_id,
            status=t.status,  # type: ignore[arg-type]
            accounts=[entries[e].account_id for e in rounds.seats_of(t)],
            room=final_room if t.round > tournament.rounds else None) for t in every],
    )


def _standing(place: int, standing: swiss.Standing, entry: TournamentEntry,
              names: dict[int, str], now: rounds.Standings) -> StandingOut:
    at_final = now.final is not None and standing.entrant in now.final.seats
    final_points = None
    if at_final and now.final_scores is not None:
        final_points = now.final_scores.get(standing.entrant, swiss.Score()).points
    return StandingOut(
        place=place, account_id=entry.account_id, name=names.get(entry.account_id, ""),
        bot=entry.bot, forfeited=entry.status == "forfeited", points=standing.points,
        wins=standing.wins, best_round=standing.best_round, final_points=final_points,
        prize=entry.prize,
    )
