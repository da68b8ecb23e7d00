"""A tournament's play over REST (比赛场, docs/tournaments.md "Play"): anyone reads the live
standings and the rounds' tables of an event (`app.tournaments.view`): the Swiss places
after every round whose tables are all done (the final table's players first by their
points there once it is done); each table names its accounts by seat, and the final table
the room code that lets anyone watch it."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.tournaments import TournamentId
from app.protocol.tournaments import TournamentStanding
from app.store.models import Tournament
from app.tournaments import view

router = APIRouter(tags=["tournaments"])


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
    standings: list[TournamentStanding]
    tables: list[EventTableOut]


@router.get("/tournaments/{tournament_id}/standings",
            responses=errors.responses("validation_error", "not_found"))
async def standings(tournament_id: TournamentId, session: SessionDep) -> StandingsOut:
    """The event's live standings and its rounds' tables (anyone)."""
    async with session.begin():
        tournament = await session.get(Tournament, tournament_id, populate_existing=True)
        if tournament is None:
            raise ApiError("not_found", f"no tournament {tournament_id}")
        now = await view.shown(session, tournament)
    return StandingsOut(
        tournament_id=tournament_id, status=tournament.status,  # type: ignore[arg-type]
        round=tournament.round, rounds=tournament.rounds, final_table=tournament.final_table,
        standings=now.standings,
        tables=[EventTableOut(
            round=t.round, number=t.number, table_id=t.table_id,
            status=t.status,  # type: ignore[arg-type]
            accounts=list(t.accounts),
            room=now.final_room if t.round > tournament.rounds else None) for t in now.tables],
    )
