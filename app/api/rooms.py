"""Private rooms (好友房) over REST: open one with house rules and a session length, find
it by its code, join, call bots (the owner, POST /tables/{id}/fill-bots), dissolve or vote
to dissolve, read the session scoreboard (大结算). docs/rooms.md.

A room's table is not in the lobby's list and POST /tables/{id}/sit does not seat anyone
there: its code is the way in. Codes are six digits, unique among open rooms; guessing
one is bounded by the edge's request limits (docs/architecture.md, "The edge")."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.lobby import (
    SeatOut,
    TimersIn,
    can_afford,
    may_open_table,
    not_busy,
    not_in_tournament,
    registry_of,
    seat_at,
)
from app.api.params import VARIANT_NAMES
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.protocol.rooms import RoomInfo, RoomLength
from app.rooms import store
from app.rooms.rematch import rematch
from app.rooms.service import Rooms
from app.rules.variants import VARIANTS
from app.rules.variants.options import OptionError, changed_options, option_specs, parse_options
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel
from app.tables.timers import Timers

router = APIRouter(tags=["rooms"])

# options a room may not change: the players' shuffle check (app/rules/verify.py and
# verify.js) recomputes the wild's indicator with the default (温州: 2 x the low die)
FIXED = {"wenzhou": frozenset({"indicator_die_factor"})}
MAX_HANDS = 64
MAX_QUAN = 16
MAX_BAN = 4
Code = Annotated[str, Field(pattern=r"^[0-9]{6}$", description="the room's six-digit code")]


class RoomLengthIn(BaseModel):
    """How long the session lasts: 1-64 hands, 1-16 圈, or 1-4 版 (four 圈 each)."""

    model_config = ConfigDict(extra="forbid")

    unit: Literal["hands", "quan", "ban"] = "hands"
    count: int = Field(ge=1, le=MAX_HANDS, strict=True)

    @model_validator(mode="after")
    def _bounded(self) -> RoomLengthIn:
        if self.unit == "ban" and self.count > MAX_BAN:
            raise ValueError(f"at most {MAX_BAN} 版")
        if self.unit == "quan" and self.count > MAX_QUAN:
            raise ValueError(f"at most {MAX_QUAN} 圈")
        return self


class CreateRoomIn(BaseModel):
    """A private room: the variant and its house rules, the stake, the timers, the session's
    length and whether people with the code may watch."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "example": {
                "variant": "lishui", "options": {"follow_penalty": False}, "stake": 10,
                "timers": {"discard": 20, "claim": 10, "decide": 10, "ready": 15},
                "length": {"unit": "hands", "count": 8}, "spectators": True,
            }
        },
    )

    variant: str = Field(description="a rule set", json_schema_extra=VARIANT_NAMES)
    options: dict[str, bool | int | str | None] = Field(
        default_factory=dict,
        description="house rules: any of the variant's options (GET /rooms/options) with its "
        "value; the others keep their defaults",
    )
    stake: int = Field(ge=1, le=1_000_000, strict=True, description="silver per point")
    timers: TimersIn | None = None
    length: RoomLengthIn
    spectators: bool = Field(default=False, strict=True, description="people with the code may watch")
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays the house bots that fill its seats: beginner (新手), standard "
        "(普通, the default) or expert (高手); a rematch keeps it",
    )


class OptionOut(BaseModel):
    """One option of a variant's rules, as a room may set it."""

    name: str
    kind: Literal["bool", "int", "choice"]
    default: bool | int | str | None
    minimum: int | None
    maximum: int | None
    nullable: bool = Field(description="null is allowed (no cap)")
    choices: list[str]
    zh: str = Field(description="what it means, in Chinese")
    en: str = Field(description="what it means, in English")
    rules: str = Field(description="where the rule book decides it")


class VariantOptionsOut(BaseModel):
    variant: str
    options: list[OptionOut]


class JoinOut(BaseModel):
    room: RoomInfo
    seat: int = Field(ge=0, le=3)


class VoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": {"agree": True}})

    agree: bool = Field(strict=True, description="true: dissolve; false: play on")


def house_rules(variant: str, options: dict[str, bool | int | str | None]) -> dict[str, object]:
    """A room's (or a tournament's) house rules: the options that differ from the variant's
    defaults. `validation_error`: an unknown variant or option, a value out of its bounds or
    an option fixed in rooms (details name the option)."""
    if variant not in VARIANTS:
        raise ApiError("validation_error", f"unknown variant {variant!r}", {"known": list(VARIANTS)})
    try:
        for name in options:
            if name in FIXED.get(variant, ()):
                raise OptionError(name, f"{name} is fixed in rooms: the shuffle check uses it")
        return changed_options(variant, parse_options(variant, options))
    except OptionError as bad:
        raise ApiError("validation_error", bad.message, {"option": bad.name}) from None


def rooms_of(request: Request) -> Rooms:
    rooms: Rooms = request.app.state.rooms
    return rooms


@router.get("/rooms/options")
def room_options() -> list[VariantOptionsOut]:
    """Every variant's options a room may change: kind, default, bounds and meaning."""
    return [
        VariantOptionsOut(variant=name, options=[
            OptionOut(name=o.name, kind=o.kind, default=o.default, minimum=o.minimum,
                      maximum=o.maximum, nullable=o.nullable, choices=list(o.choices),
                      zh=o.zh, en=o.en, rules=o.rules)
            for o in option_specs(name) if o.name not in FIXED.get(name, ())
        ])
        for name in VARIANTS
    ]


@router.post(
    "/rooms",
    status_code=201,
    responses=errors.responses(
        "validation_error", "insufficient_balance", "too_many_tables", "busy", *AUTH_ERRORS
    ),
)
async def create_room(
    body: CreateRoomIn, account: CurrentAccount, request: Request, session: SessionDep
) -> RoomInfo:
    """Open a private room: its table is made at once, not listed in the lobby; the answer
    carries its `code`. The owner joins like anyone (POST /rooms/{code}/join). Refused
    before anything is made: an unknown variant or option, a value out of its bounds
    (`validation_error`, details name the option), `insufficient_balance` (the owner could
    not sit), `too_many_tables`, `busy` (this node sheds new work: Retry-After)."""
    options = house_rules(body.variant, body.options)
    can_afford(account, body.stake)
    not_busy(registry_of(request), "room")
    await may_open_table(request, account)
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else Timers()
    rooms = rooms_of(request)
    room = await rooms.create(
        account.id, body.variant, options, body.stake, timers,
        RoomLength(unit=body.length.unit, count=body.length.count), body.spectators,
        body.bot_level,
    )
    async with session.begin():
        found = await store.open_room(session, room.code)
        assert found is not None
        return await rooms.info(session, found)


@router.get(
    "/rooms/{code}", responses=errors.responses("not_found", "table_unavailable", *AUTH_ERRORS)
)
async def get_room(
    code: Code, account: CurrentAccount, request: Request, session: SessionDep
) -> RoomInfo:
    """The open room with this code; or, once over, the last room with it that the caller
    owned or played in, with its final scoreboard (`not_found` otherwise)."""
    async with session.begin():
        room = await store.open_room(session, code)
        if room is None:
            room = await store.closed_room_of(session, code, account.id)
        if room is None:
            raise ApiError("not_found", f"no room {code!r}")
        return await rooms_of(request).info(session, room)


@router.post(
    "/rooms/{code}/join",
    responses=errors.responses(
        "not_found", "forbidden", "insufficient_balance", "seat_taken", "table_full",
        "already_seated", "seated_elsewhere", "in_tournament", "table_unavailable", "busy",
        *AUTH_ERRORS,
    ),
)
async def join_room(
    code: Code, account: CurrentAccount, request: Request, session: SessionDep
) -> JoinOut:
    """Sit at the room's table, at its first empty seat (as POST /tables/{id}/sit does, with
    the same refusals); `not_found`: no open room has this code."""
    await not_in_tournament(session, account.id)
    async with session.begin():
        room = await store.open_room(session, code)
        if room is None:
            raise ApiError("not_found", f"no open room {code!r}")
        if room.tournament_id is not None:
            raise ApiError("forbidden", "a tournament seats its own tables")
        table_id = room.table_id
    seated: SeatOut = await seat_at(registry_of(request), table_id, account, None)
    async with session.begin():
        found = await store.open_room(session, code)
        if found is None:
            raise ApiError("not_found", f"no open room {code!r}")
        return JoinOut(room=await rooms_of(request).info(session, found), seat=seated.seat)


@router.post(
    "/rooms/{code}/dissolve",
    responses=errors.responses(
        "not_found", "wrong_table", "forbidden", "vote_open", "table_unavailable", *AUTH_ERRORS
    ),
)
async def dissolve_room(code: Code, account: CurrentAccount, request: Request) -> RoomInfo:
    """Before the first hand, the owner dissolves the room at once (`forbidden` for anyone
    else: leave instead). After it, a player seated asks for a dissolve vote (解散投票):
    every person seated must agree within the vote's time (`room_vote_seconds`, 60 s); the
    asker agrees. With nobody else to ask, it is dissolved at once. Dissolving voids the
    hand in play (no silver moves) and ends the room with the scoreboard of the hands
    played. `vote_open`: a vote is already running."""
    return await rooms_of(request).dissolve(code, account.id)


@router.post(
    "/rooms/{code}/vote",
    responses=errors.responses(
        "not_found", "no_vote", "already_voted", "forbidden", "table_unavailable", *AUTH_ERRORS
    ),
)
async def vote_room(
    code: Code, body: VoteIn, account: CurrentAccount, request: Request
) -> RoomInfo:
    """Answer the dissolve vote: `agree: false` ends it and play goes on; the last
    `agree: true` dissolves the room. `forbidden`: the caller is not one of its voters."""
    return await rooms_of(request).vote(code, account.id, body.agree)


@router.post(
    "/rooms/{code}/rematch",
    responses=errors.responses(
        "not_found", "forbidden", "room_open", "too_many_tables", "busy", "table_unavailable",
        *AUTH_ERRORS,
    ),
)
async def rematch_room(
    code: Code, account: CurrentAccount, request: Request, response: Response
) -> RoomInfo:
    """再来一局: once the room is over, a new room with the same rules, length, stake and
    owner; every player of the old room is sent the old room as a `room` message whose
    `rematch` names the new one (they join it by its code; nobody is seated by this call).
    Any player of the old room may ask; a second call, by anyone, answers the same new room
    (200; 201 when this call made it). `not_found`: no room had this code; `forbidden`: the
    caller neither owned nor played in it; `room_open`: its session still runs."""
    not_busy(registry_of(request), "room")
    made, new = await rematch(rooms_of(request), code, account.id)
    response.status_code = 201 if new else 200
    return made


@router.get("/me/rooms", responses=errors.responses("table_unavailable", *AUTH_ERRORS))
async def my_rooms(
    account: CurrentAccount,
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=50)] = 20,
) -> list[RoomInfo]:
    """The rooms the caller opened or played in, newest first, each with its scoreboard."""
    async with session.begin():
        rooms = rooms_of(request)
        return [await rooms.info(session, room) for room in await store.rooms_of(
            session, account.id, limit)]
