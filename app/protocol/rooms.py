"""A private room (好友房) as the server shows it, over REST (GET /rooms/{code}) and the
WebSocket (`room`): its code, rules, progress, a dissolve vote in progress and, once over,
the session scoreboard (大结算). docs/rooms.md."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from app.protocol.base import HandId, TableId, WireModel
from app.protocol.vocabulary import BotLevel, LengthUnit, RoomOutcome, RoomStatus, Variant

RoomCode = str
# an ended two-hand session (GET /rooms/{code}, the `room` message)
EXAMPLE: dict[str, Any] = {
    "code": "482913", "table_id": "7f3c9a1b2d4e", "owner_id": 7, "variant": "lishui",
    "options": {"follow_penalty": False}, "stake": 10,
    "timers": {"discard": 15.0, "claim": 8.0, "decide": 8.0, "ready": 15.0},
    "length": {"unit": "hands", "count": 2}, "spectators": False, "status": "ended",
    "hands_played": 2, "seats": [None, None, None, None], "vote": None,
    "scoreboard": {
        "players": [{"account_id": 7, "name": "Ann"}, {"account_id": 8, "name": "Bo"},
                    {"account_id": 9, "name": "Cy"}, {"account_id": 10, "name": "Dee"}],
        "hands": [
            {"number": 1, "hand_id": "7f3c9a1b2d4e-1", "outcome": "win",
             "points": [9, -3, -3, -3], "silver": [90, -30, -30, -30]},
            {"number": 2, "hand_id": "7f3c9a1b2d4e-2", "outcome": "draw",
             "points": [0, 0, 0, 0], "silver": [0, 0, 0, 0]},
        ],
        "points": [9, -3, -3, -3], "silver": [90, -30, -30, -30],
        "best": {"number": 1, "hand_id": "7f3c9a1b2d4e-1", "account_id": 7, "points": 9},
    },
    "rematch": {"code": "913402", "table_id": "0a1b2c3d4e5f", "by": 8},
    "bot_level": "standard",
}  # fmt: skip


class RoomLength(WireModel):
    """How long the session lasts: `count` hands, or `count` 版."""

    unit: LengthUnit
    """hands, or ban (版: four 圈)"""
    count: int = Field(ge=1)
    """how many"""


class RoomVote(WireModel):
    """A dissolve vote (解散投票) in progress: every person seated must agree before the
    deadline; one refusal, or the deadline, ends it and the session goes on."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"by": 8, "voters": [7, 8], "agreed": [8], "seconds_left": 54.2}]})

    by: int
    """the account that asked (its vote is yes)"""
    voters: list[int]
    """the accounts that must agree: the people seated when it was asked (bots do not vote)"""
    agreed: list[int]
    """the voters who agreed so far"""
    seconds_left: float = Field(ge=0)
    """seconds until the deadline, when this was sent"""


class ScoreboardPlayer(WireModel):
    """One player of the session, in the order they first sat."""

    account_id: int
    """the player's account"""
    name: str
    """the player's name (bots: bot-<n>)"""


class ScoreboardHand(WireModel):
    """One hand of the session: its points and silver per player (null: not at the table)."""

    number: int = Field(ge=1)
    """1 for the first hand of the session"""
    hand_id: HandId
    outcome: RoomOutcome
    """how the hand ended (voided: nothing moved)"""
    points: list[int | None]
    """per player (the scoreboard's `players` order): the hand's net points"""
    silver: list[int | None]
    """per player: the silver (银两) the hand moved"""


class BestHand(WireModel):
    """The session's best hand: one player's largest gain in one hand."""

    number: int = Field(ge=1)
    """the hand's number in the session"""
    hand_id: HandId
    account_id: int
    """the player who won it"""
    points: int
    """the net points it won"""


class Scoreboard(WireModel):
    """The session scoreboard (大结算): every hand's result per player, totals and the best
    hand. It is the sum of the stored hands: the totals equal the rows added up."""

    players: list[ScoreboardPlayer]
    """everyone who sat in a hand of the session, in the order they first sat"""
    hands: list[ScoreboardHand]
    """the session's hands in the order played"""
    points: list[int]
    """per player: the session's net points"""
    silver: list[int]
    """per player: the silver the session moved"""
    best: BestHand | None
    """null: nobody won a point"""


class RoomRematch(WireModel):
    """再来一局: the room opened after this one is over, with the same rules and owner; its
    players are invited to join it by its code."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"code": "913402", "table_id": "0a1b2c3d4e5f", "by": 7}]})

    code: RoomCode = Field(pattern=r"^[0-9]{6}$")
    """the new room's code"""
    table_id: TableId
    """the new room's table"""
    by: int
    """the player who asked for it"""


class RoomInfo(WireModel):
    """A private room."""

    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE]})

    code: RoomCode = Field(pattern=r"^[0-9]{6}$")
    """the six-digit code others join with"""
    table_id: TableId
    owner_id: int
    """the account that opened it (it may fill seats with bots and dissolve it before the
    first hand)"""
    variant: Variant
    """the variant the room plays"""
    options: dict[str, bool | int | str | None]
    """the house rules: the variant's options that differ from its defaults (RULES.md);
    GET /rooms/options lists every option with its default and meaning"""
    stake: int = Field(ge=1)
    """silver (银两) per point"""
    timers: dict[str, float]
    """seconds per decision: discard, claim, decide, ready"""
    length: RoomLength
    """how long the session lasts"""
    spectators: bool
    """whether people with the code may watch"""
    status: RoomStatus
    """open, ended or dissolved"""
    hands_played: int = Field(ge=0)
    """hands (or 版) of the session played so far, in the length's unit"""
    seats: list[int | None] = Field(min_length=4, max_length=4)
    """account id per seat (null: empty; all null once the room is over)"""
    vote: RoomVote | None
    """a dissolve vote in progress"""
    scoreboard: Scoreboard | None
    """the session scoreboard: the hands so far while open, final once ended or dissolved"""
    rematch: RoomRematch | None = None
    """再来一局: once over, the room opened after it for the same players (null: none)"""
    bot_level: BotLevel = "standard"
    """who plays its house bots (the owner's choice; a rematch keeps it): beginner (新手),
    standard (普通) or expert (高手)"""


class RoomMessage(WireModel):
    """A private room changed: a hand of its session was stored, a dissolve vote was asked,
    answered or decided, or the session ended (then with its final scoreboard). Sent to
    every seat of the room's table and to its spectators (the same object)."""

    v: Literal[2] = 2
    """the protocol version, 2"""
    type: Literal["room"] = "room"
    room: RoomInfo
    """the room as it is now"""



