"""A tournament (比赛场) as its entrants are told of it over the WebSocket (`tournament`):
the event's round in play, the standings after the rounds done, and the entrant's own table
of the round in play. The same standings are `GET /tournaments/{id}/standings` for anyone.
docs/tournaments.md."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from app.protocol.base import TableId, WireModel
from app.protocol.vocabulary import TournamentStatus

# round 2 of three and a final table has just been drawn (the `tournament` message)
EXAMPLE: dict[str, Any] = {
    "id": 12, "name": "冬至杯", "status": "running", "round": 2, "rounds": 3,
    "final_table": True, "table_id": "7f3c9a1b2d4e",
    "standings": [
        {"place": 1, "account_id": 7, "name": "Ann", "bot": False, "forfeited": False,
         "points": 24, "wins": 2, "best_round": 24, "final_points": None, "prize": None},
        {"place": 2, "account_id": 31, "name": "bot-31", "bot": True, "forfeited": False,
         "points": 9, "wins": 1, "best_round": 9, "final_points": None, "prize": None},
    ],
}  # fmt: skip


class TournamentStanding(WireModel):
    """One entrant's place."""

    place: int = Field(ge=1)
    """1, 2, ...: by the points, then the hands won, then the best round, then the draw;
    once the final table is done, its four players first by their points there"""
    account_id: int
    """the entrant's account"""
    name: str
    """the entrant's name"""
    bot: bool
    """a house bot filling an empty seat: it plays but wins no prize"""
    forfeited: bool
    """the player left: the rest of their event is played on 托管"""
    points: int
    """net points over the Swiss rounds done"""
    wins: int = Field(ge=0)
    """hands won (胡) over the Swiss rounds done"""
    best_round: int
    """the most points won in one round"""
    final_points: int | None
    """points at the final table (null: not there, or not played yet)"""
    prize: int | None = Field(ge=0)
    """silver won (null until the prizes are paid)"""


class TournamentInfo(WireModel):
    """The event as an entrant is told of it."""

    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE]})

    id: int
    """the event's id (GET /tournaments/{id})"""
    name: str
    """the event's name"""
    status: TournamentStatus
    """open, running, finished or cancelled"""
    round: int = Field(ge=0)
    """the round in play (0 before the start; rounds + 1 is the final table)"""
    rounds: int = Field(ge=1)
    """Swiss rounds"""
    final_table: bool
    """whether the four best play a final table after the Swiss rounds"""
    table_id: TableId | None
    """your table in the round in play (null: the event is over, or you are not at the
    final table); you are seated there and told `seated` too"""
    standings: list[TournamentStanding]
    """every entrant, by place"""


class TournamentMessage(WireModel):
    """A tournament you entered moved on: it started (round 1 drawn), a round ended and the
    next one (or the final table) was drawn, or it ended (places and prizes). Sent to every
    player entered (not to the house bots), wherever their socket is."""

    v: Literal[2] = 2
    """the protocol version, 2"""
    type: Literal["tournament"] = "tournament"
    tournament: TournamentInfo
    """the event as it is now"""
