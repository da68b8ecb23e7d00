"""Quick match (快速开始, REST): queue for a variant at a level and be seated at a new table
with three others, or with house bots after a wait.

Rules (docs/architecture.md, "Quick match"; the queues: app/tables/matching.py; forming
tables: app/api/matcher.py):
- the levels (初级场 / 中级场 / 高级场) are data (`GET /quick-match/levels`, anyone; an
  administrator changes them, app/api/admin_levels.py): a level's stake and the silver a
  player needs to queue (`min_balance`);
- `POST /quick-match` queues the caller (202): refused with `not_found` (no open level of
  that key), `insufficient_balance` (details `needed`: the level's minimum),
  `seated_elsewhere` (details `table_id`: the caller sits at a table, on any node) and
  `match_forming` (a table is being formed for the caller right now). A player waits in
  one queue at a time: queueing for another variant or level moves them to the end of that
  queue; queueing again for the same one keeps their place (a retry is harmless);
- `DELETE /quick-match` leaves the queue (200, `idle`; not queued: the same answer);
  `match_forming` while a table is being formed (a moment later the player is seated,
  and leaves the table instead, or back in the queue);
- `GET /quick-match` says where the caller stands: queued (place, how many wait, seconds
  waited, seconds until bots fill the queue's first table, and why bots could not be had
  if they could not), matching, seated (the table), or idle (and why the server took them
  out of the queue, if it did lately);
- the seat found is announced over the WebSocket as the lobby's sit is: `seated` then
  `table_state`, to whichever node holds the player's socket. Only players with a table
  socket open are seated; a queued player without one keeps their place for
  `quick_match_grace_seconds` (a page reload), then leaves the queue (`disconnected`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.lobby import not_busy, not_in_tournament, registry_of
from app.api.matcher import Matcher
from app.api.params import VARIANT_NAMES
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.protocol.vocabulary import Meanings, Variant
from app.rules.variants import VARIANTS
from app.store import levels as store_levels
from app.store.levels import KEY_PATTERN, Level
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel, bot_level
from app.tables.matching import (
    QUEUE_REASONS,
    QUEUE_STATES,
    Forming,
    QueueReason,
    QueueState,
    Standing,
    bots_due,
    queue_name,
    split_name,
)
from app.tables.registry import TableRegistry

router = APIRouter(tags=["quick match"])

LevelKey = Annotated[str, Field(
    min_length=1, max_length=16, pattern=KEY_PATTERN,
    description="a level's key (`beginner`, `intermediate`, `advanced` by default)",
)]
State = Annotated[QueueState, Meanings(QueueState, QUEUE_STATES)]
Reason = Annotated[QueueReason, Meanings(QueueReason, QUEUE_REASONS)]


class QuickMatchIn(BaseModel):
    """Queue for a table of this variant at this level."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"example": {"variant": "lishui", "level": "beginner"}}
    )

    variant: str = Field(description="a rule set", json_schema_extra=VARIANT_NAMES)
    level: LevelKey


class MatchLevelOut(BaseModel):
    """A quick-match level (场次)."""

    model_config = ConfigDict(json_schema_extra={"example": {
        "key": "intermediate", "name_zh": "中级场", "name_en": "Intermediate", "stake": 10,
        "min_balance": 2000, "position": 1, "enabled": True, "bot_level": "standard",
    }})

    key: LevelKey
    name_zh: str = Field(description="its name in Chinese (中级场)")
    name_en: str = Field(description="its name in English")
    stake: int = Field(description="silver (银两) per point at the tables it forms")
    min_balance: int = Field(
        description="the silver a player needs to queue and to be seated (at least 100 x "
        "the stake, a table's own minimum)"
    )
    position: int = Field(description="where it is listed: lower first")
    enabled: bool = Field(description="open: players may queue (the public list shows only "
                                      "open levels)")
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays the house bots that fill its tables: beginner (新手), standard "
        "(普通) or expert (高手); the operator's choice",
    )


class MatchLevelListedOut(MatchLevelOut):
    """An open level as players see it, with how many wait in each variant's queue."""

    model_config = ConfigDict(json_schema_extra={"example": {
        "key": "beginner", "name_zh": "初级场", "name_en": "Beginner", "stake": 1,
        "min_balance": 100, "position": 0, "enabled": True, "bot_level": "standard",
        "waiting": {"lishui": 2, "wenzhou": 0, "huzhou": 0, "fuzhou": 1, "shanghai": 0},
    }})

    waiting: dict[str, int] = Field(
        description="players waiting now in this level's queue, per variant (every variant "
        "named, 0 included)"
    )


class MatchLevelsOut(BaseModel):
    """The open quick-match levels, in order."""

    fill_after_seconds: float = Field(
        description="how long a queue's first player waits before house bots fill the table "
        "(QUICK_MATCH_FILL_SECONDS)"
    )
    levels: list[MatchLevelListedOut] = Field(description="the open levels, in order")


class QuickMatchOut(BaseModel):
    """Where the player stands in quick match."""

    model_config = ConfigDict(json_schema_extra={"example": {
        "state": "queued", "variant": "lishui", "level": "beginner", "position": 2,
        "waiting": 3, "waited_seconds": 4.2, "bots_in_seconds": 13.1, "reason": None,
        "table_id": None,
    }})

    state: State = Field(description="idle, queued, matching or seated")
    variant: Variant | None = Field(
        description="the queue's variant (queued, matching), or the last one's (seated, idle)"
    )
    level: str | None = Field(description="the queue's level key, as `variant`")
    position: int | None = Field(
        description="queued: the player's place (1: the next table is theirs); else null"
    )
    waiting: int = Field(description="players in that queue now, the player included")
    waited_seconds: float | None = Field(
        description="queued or matching: seconds since the player joined the queue"
    )
    bots_in_seconds: float | None = Field(
        description="queued: seconds until house bots fill the queue's first table unless "
        "four players are there first (0: due now, or waiting for bots: see `reason`)"
    )
    reason: Reason | None = Field(
        description="queued: why bots could not be had yet; idle: why the server took the "
        "player out of the queue (kept a few minutes); else null"
    )
    table_id: str | None = Field(description="seated: the table quick match seated them at")


def matcher_of(request: Request) -> Matcher:
    matcher: Matcher = request.app.state.matcher
    return matcher


def standing_out(standing: Standing, fill_after_ms: int) -> QuickMatchOut:
    variant, level = split_name(standing.queue) if standing.queue else (None, None)
    waiting = standing.state in ("queued", "matching") and standing.since is not None
    due = bots_due(standing.first_since, standing.now, fill_after_ms)
    return QuickMatchOut(
        state=standing.state,
        variant=variant,  # type: ignore[arg-type]  # a queue's variant was validated on joining
        level=level,
        position=standing.position,
        waiting=standing.waiting,
        waited_seconds=(standing.now - standing.since) / 1000
        if waiting and standing.since is not None else None,
        bots_in_seconds=due / 1000 if standing.state == "queued" and due is not None else None,
        reason=standing.reason,  # type: ignore[arg-type]  # always a QueueReason
        table_id=standing.table_id if standing.state == "seated" else None,
    )


def level_out(level: Level) -> MatchLevelOut:
    return MatchLevelOut(key=level.key, name_zh=level.name_zh, name_en=level.name_en,
                    stake=level.stake, min_balance=level.min_balance, position=level.position,
                    enabled=level.enabled, bot_level=bot_level(level.bot_level))


async def seated_at(registry: TableRegistry, account_id: int) -> str | None:
    """The table the account sits at, on this node or (the cluster's directory) another."""
    for live in registry.all():
        if live.seat_of(account_id) is not None:
            return live.table_id
    for table in await registry.network.tables.tables() or []:
        if account_id in table["seats"]:
            return str(table["id"])
    return None


@router.get("/quick-match/levels", responses=errors.responses())
async def quick_match_levels(request: Request, session: SessionDep) -> MatchLevelsOut:
    """The open levels (初级场, 中级场, 高级场 ...) in order: the stake of the tables each
    forms, the silver a player needs to queue, and how many players wait in each variant's
    queue. No sign-in needed."""
    matcher = matcher_of(request)
    async with session.begin():
        found = await store_levels.open_levels(session)
    counts = await matcher.queue.counts()
    return MatchLevelsOut(
        fill_after_seconds=matcher.fill_after_ms / 1000,
        levels=[
            MatchLevelListedOut(
                **level_out(level).model_dump(),
                waiting={v: counts.get(queue_name(v, level.key), 0) for v in VARIANTS},
            )
            for level in found
        ],
    )


JOIN_ERRORS = (
    "validation_error", "not_found", "insufficient_balance", "seated_elsewhere", "match_forming",
    "in_tournament", "busy", *AUTH_ERRORS,
)


@router.post("/quick-match", status_code=202, responses=errors.responses(*JOIN_ERRORS))
async def join_quick_match(
    body: QuickMatchIn, account: CurrentAccount, request: Request, session: SessionDep
) -> QuickMatchOut:
    """Queue for a table of `variant` at `level` (202: queued; the seat comes later, over the
    WebSocket as `seated`, and in `GET /quick-match`). Four players with a table socket open
    are seated together at once; after the level's wait (`fill_after_seconds`) the first
    players are seated with house bots. Queueing for another variant or level moves the
    player to the end of that queue; for the same one, keeps their place. Refused:
    `not_found` (no open level of that key), `insufficient_balance` (details `needed`),
    `seated_elsewhere` (details `table_id`), `match_forming`, `in_tournament` (the caller's
    tournament is running), `busy` (this node sheds new
    work: Retry-After; its matcher forms no table meanwhile, another node's does)."""
    if body.variant not in VARIANTS:
        raise ApiError(
            "validation_error", f"unknown variant {body.variant!r}", {"known": list(VARIANTS)}
        )
    caller, balance = account.id, account.balance
    await not_in_tournament(session, caller)
    async with session.begin():
        level = next(
            (lv for lv in await store_levels.open_levels(session) if lv.key == body.level), None
        )
    if level is None:
        raise ApiError("not_found", f"no open quick-match level {body.level!r}")
    if balance < level.min_balance:
        raise ApiError(
            "insufficient_balance",
            f"the {level.name_en} level needs {level.min_balance} silver",
            {"needed": level.min_balance},
        )
    not_busy(registry_of(request), "quick_match")
    elsewhere = await seated_at(registry_of(request), caller)
    if elsewhere is not None:
        raise ApiError(
            "seated_elsewhere", f"you already sit at table {elsewhere}", {"table_id": elsewhere}
        )
    matcher = matcher_of(request)
    try:
        standing = await matcher.queue.join(caller, queue_name(body.variant, level.key))
    except Forming:
        raise _forming() from None
    matcher.wake()
    return standing_out(standing, matcher.fill_after_ms)


def _forming() -> ApiError:
    return ApiError(
        "match_forming", "a table is being formed for you right now; try again in a moment"
    )


@router.delete("/quick-match", responses=errors.responses("match_forming", *AUTH_ERRORS))
async def leave_quick_match(account: CurrentAccount, request: Request) -> QuickMatchOut:
    """Leave the queue (not queued: nothing changes). Refused with `match_forming` while a
    table is being formed for the player: a moment later they sit there (and leave the
    table instead) or are back in the queue."""
    matcher = matcher_of(request)
    try:
        await matcher.queue.leave(account.id)
    except Forming:
        raise _forming() from None
    return standing_out(await matcher.queue.standing(account.id), matcher.fill_after_ms)


@router.get("/quick-match", responses=errors.responses(*AUTH_ERRORS))
async def quick_match_status(account: CurrentAccount, request: Request) -> QuickMatchOut:
    """Where the caller stands: queued (place, players waiting, seconds waited, seconds until
    bots fill), matching, seated (the table) or idle (and why, if the server took them out
    of the queue lately)."""
    matcher = matcher_of(request)
    return standing_out(await matcher.queue.standing(account.id), matcher.fill_after_ms)
