"""The lobby (REST): list tables, open one, sit down, get up.

Rules:
- a table plays one variant at a stake in silver (银两) per point; to sit a player needs at
  least `MIN_BALANCE_PER_STAKE` (100) x the stake, so that one hand rarely empties a wallet
  (`insufficient_balance` otherwise); opening a table takes the same (a table its creator
  cannot sit at is refused before it is made, with the same error);
- the list names who sits at each table (`players`: name, title, bot), besides the
  account ids of `seats`;
- a banned account is refused (`banned`, by the bearer check itself);
- a seat holds one player and a player holds one seat per table (`seat_taken`,
  `table_full`, `already_seated`);
- an account sits at one table at a time, on any node of a cluster: sitting while seated
  at another table answers 409 `seated_elsewhere` with `{"table_id": ...}` of that table
  (after the balance check); two concurrent sits of one account never both succeed
  (`TableRegistry.take_seat`). The seat is the account's until it is freed: leaving
  between hands, the end of a hand it escaped, a kick, a ban, or being away when a hand
  is dealt;
- leaving between hands frees the seat; leaving during a hand is an escape (逃跑) and the
  seat is freed when that hand ends;
- a seated player may fill the empty seats with the house's bots (POST
  /tables/{id}/fill-bots, app/api/house_bots.py: the pool, its funding, `too_many_bots`);
- limit per account: at most `max_open_tables` open tables it opened with a player at
  them (`too_many_tables`, 409; at the limit, its tables where no player sits are closed
  first to make room).
Playing happens over the WebSocket (app/api/ws.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.params import VARIANT_NAMES
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.rules.variants import VARIANTS
from app.settings import Settings
from app.store import house, ranks
from app.store.models import Account
from app.tables import admin as table_admin
from app.tables.errors import RemoteRefused, TableError
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel, bot_level
from app.tables.registry import MIN_BALANCE_PER_STAKE, LiveTable, TableRegistry
from app.tables.timers import Timers
from app.tournaments import events

router = APIRouter(tags=["lobby"])

Seconds = Annotated[float, Field(ge=1, le=300)]
_HOUSE = Timers()


class TimersIn(BaseModel):
    """Seconds per decision (RULES.md 1); each one defaults to the house timer."""

    model_config = ConfigDict(extra="forbid")

    discard: Seconds = _HOUSE.discard
    claim: Seconds = _HOUSE.claim
    decide: Seconds = _HOUSE.decide
    ready: Seconds = _HOUSE.ready


class CreateTableIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variant: str = Field(description="a rule set", json_schema_extra=VARIANT_NAMES)
    stake: int = Field(
        ge=1, le=1_000_000, strict=True, description="silver per point: a whole number"
    )
    timers: TimersIn | None = None
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays the table's house bots: beginner (新手), standard (普通, the "
        "greedy bot, the default) or expert (高手); a player's seat on 托管 is never a level",
    )


class SitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int | None = Field(default=None, ge=0, le=3)


class TableOut(BaseModel):
    id: str
    variant: str
    stake: int = Field(description="silver (银两) per point")
    min_balance: int = Field(description="the silver a player needs to sit: 100 x the stake")
    seats: list[int | None] = Field(description="account id per seat, null: empty")
    seats_taken: int
    status: Literal["waiting", "playing"]
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays its house bots: beginner (新手), standard (普通), expert (高手)",
    )


class SeatPlayerOut(BaseModel):
    """Who sits at one seat of a listed table."""

    seat: int = Field(ge=0, le=3)
    account_id: int | None = Field(description="null: the seat is empty")
    name: str | None = Field(description="the player's name; null: the seat is empty")
    title: str | None = Field(description="the title by silver (the 丽水 ladder); null: empty")
    bot: bool = Field(description="a bot of the house (the server plays it), not a person")


class LobbyTableOut(TableOut):
    """A table as the lobby lists it: `TableOut` and, per seat, who sits there."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "id": "9f3a0c1d2e4b", "variant": "lishui", "stake": 10, "min_balance": 1000,
                "seats": [7, None, 31, None], "seats_taken": 2, "status": "waiting",
                "bot_level": "standard",
                "players": [
                    {"seat": 0, "account_id": 7, "name": "阿明哥", "title": "赌客", "bot": False},
                    {"seat": 1, "account_id": None, "name": None, "title": None, "bot": False},
                    {"seat": 2, "account_id": 31, "name": "bot-3", "title": "小赌", "bot": True},
                    {"seat": 3, "account_id": None, "name": None, "title": None, "bot": False},
                ],
            }
        }
    )

    players: list[SeatPlayerOut] = Field(
        description="per seat, who sits there: name, title and whether a bot plays it"
    )


class SeatOut(BaseModel):
    table: TableOut
    seat: int


def registry_of(request: Request) -> TableRegistry:
    registry: TableRegistry = request.app.state.tables
    return registry


def table_out(live: LiveTable) -> TableOut:
    seats = live.accounts()
    return TableOut(
        id=live.table_id,
        variant=live.variant,
        stake=live.stake,
        min_balance=MIN_BALANCE_PER_STAKE * live.stake,
        seats=seats,
        seats_taken=sum(a is not None for a in seats),
        status=live.status,
        bot_level=bot_level(live.bot_level),
    )


def found_table(registry: TableRegistry, table_id: str) -> LiveTable:
    live = registry.get(table_id)
    if live is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    return live


@router.get("/tables", responses=errors.responses(*AUTH_ERRORS))
async def list_tables(
    account: CurrentAccount, request: Request, session: SessionDep
) -> list[LobbyTableOut]:
    """Every table of the server: variant, stake, status and who sits at each seat (name,
    title, bot or person; `seats` keeps the bare account ids)."""
    listed = await registry_of(request).network.tables.tables()
    if listed is not None:  # every node's tables, from the cluster's directory
        tables = [TableOut.model_validate(summary) for summary in listed
                  if not summary.get("room") and summary.get("stake") != 0]
    else:  # a private room's table is not listed: it is found by its code; nor a practice
        # table (stake 0, app/api/practice.py): it is its learner's own
        tables = [table_out(live) for live in registry_of(request).all()
                  if live.room is None and live.stake != 0]
    profiles = await _profiles(session, {a for t in tables for a in t.seats if a is not None})
    return [
        LobbyTableOut(**t.model_dump(), players=_players(t.seats, profiles)) for t in tables
    ]


async def _profiles(session: AsyncSession, ids: set[int]) -> dict[int, tuple[str, int]]:
    """Each account's name and silver, in one read."""
    if not ids:
        return {}
    async with session.begin():
        rows = await session.execute(
            select(Account.id, Account.username, Account.balance).where(Account.id.in_(ids))
        )
        return {row.id: (row.username, row.balance) for row in rows}


def _players(seats: list[int | None], profiles: dict[int, tuple[str, int]]
             ) -> list[SeatPlayerOut]:
    out = []
    for seat, account_id in enumerate(seats):
        found = None if account_id is None else profiles.get(account_id)
        name, balance = found if found is not None else (None, None)
        out.append(SeatPlayerOut(
            seat=seat,
            account_id=account_id,
            name=name,
            title=None if balance is None else ranks.title_of(balance),
            bot=name is not None and house.is_bot_name(name),
        ))
    return out


def can_afford(account: Account, stake: int) -> None:
    """The account holds the silver a seat at this stake needs (`insufficient_balance`)."""
    needed = MIN_BALANCE_PER_STAKE * stake
    if account.balance < needed:
        raise ApiError(
            "insufficient_balance", f"this table needs {needed} silver to sit", {"needed": needed}
        )


@router.post(
    "/tables",
    status_code=201,
    responses=errors.responses(
        "validation_error", "insufficient_balance", "too_many_tables", "busy", *AUTH_ERRORS
    ),
)
async def create_table(body: CreateTableIn, account: CurrentAccount, request: Request) -> TableOut:
    """Open a table; nobody sits yet (the creator sits with POST /tables/{id}/sit). Refused
    before anything is made: `insufficient_balance` when the creator holds less than the
    table's minimum (100 x the stake: they could not sit at it), `too_many_tables`, `busy`
    (this node sheds new work: Retry-After)."""
    if body.variant not in VARIANTS:
        raise ApiError(
            "validation_error", f"unknown variant {body.variant!r}", {"known": list(VARIANTS)}
        )
    can_afford(account, body.stake)
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else None
    not_busy(registry_of(request), "table")
    await may_open_table(request, account)
    live = registry_of(request).create(
        body.variant, body.stake, timers=timers, bot_level=body.bot_level
    )
    live.creator = account.id
    await registry_of(request).network.directory.opened(live)
    return table_out(live)


@router.post(
    "/tables/{table_id}/sit",
    responses=errors.responses(
        "validation_error", "insufficient_balance", "seat_taken", "table_full",
        "already_seated", "seated_elsewhere", "in_tournament", "not_found",
        "table_unavailable", "busy", *AUTH_ERRORS,
    ),
)
async def sit(
    table_id: str, account: CurrentAccount, request: Request, session: SessionDep,
    body: SitIn | None = None,
) -> SeatOut:
    """Sit down (at `seat`, or the first empty one). Refused: `insufficient_balance` below
    100 x the stake, `seat_taken`, `table_full`, `already_seated`, `seated_elsewhere`
    (details: the `table_id` the account sits at), `in_tournament` (the caller's tournament
    is running), `busy` (this node sheds new work)."""
    await not_in_tournament(session, account.id)
    registry = registry_of(request)
    live = registry.get(table_id)
    private = live.room is not None if live is not None else bool(
        ((await registry.network.tables.summary(table_id)) or {}).get("room"))
    if private:  # a private room's table: seated only with its code (POST /rooms/{code}/join)
        raise ApiError("not_found", f"no table {table_id!r}")
    return await seat_at(registry, table_id, account, body.seat if body is not None else None)


async def not_in_tournament(session: AsyncSession, account_id: int) -> None:
    """A player whose tournament is running sits only where the event seats them:
    `in_tournament` (details: its `tournament_id`)."""
    async with session.begin():
        event = await events.playing_in(session, account_id)
    if event is not None:
        raise ApiError("in_tournament", f"tournament {event} is running: it seats you at each "
                       "round's table until it ends", {"tournament_id": event})


async def seat_at(
    registry: TableRegistry, table_id: str, account: Account, seat: int | None
) -> SeatOut:
    """Seat the account at `table_id` (on this node or the one that owns it), its silver
    checked against the table's minimum."""
    if registry.get(table_id) is None and registry.network.remote:
        return await _elsewhere(registry, "sit", table_id, account, SitIn(seat=seat))
    live = found_table(registry, table_id)
    can_afford(account, live.stake)
    try:
        taken = await registry.take_seat(table_id, account.id, seat)
    except TableError as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None
    return SeatOut(table=table_out(live), seat=taken)


@router.post(
    "/tables/{table_id}/leave",
    responses=errors.responses("not_found", "wrong_table", "table_unavailable", *AUTH_ERRORS),
)
async def leave(table_id: str, account: CurrentAccount, request: Request) -> TableOut:
    """Get up: free between hands, an escape (逃跑) during one (`wrong_table`: not seated)."""
    registry = registry_of(request)
    if registry.get(table_id) is None and registry.network.remote:
        return (await _elsewhere(registry, "leave", table_id, account, None)).table
    live = found_table(registry, table_id)
    try:
        await registry.require(table_id).leave(account.id)
    except TableError as refused:
        raise ApiError(refused.code, refused.message) from None
    return table_out(live)


async def _elsewhere(
    registry: TableRegistry, op: str, table_id: str, account: Account, body: SitIn | None
) -> SeatOut:
    """Sit or leave at a table another node of the cluster owns: the owner decides."""
    summary = await registry.network.tables.summary(table_id)
    if summary is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    if op == "sit":
        can_afford(account, int(summary["stake"]))
    try:
        table, seat = await registry.network.tables.call(
            op, table_id, account.id, body.seat if body is not None else None
        )
    except RemoteRefused as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None
    return SeatOut(table=TableOut.model_validate(table), seat=seat if seat is not None else -1)


# --- the open tables per account -------------------------------------------------------------


async def every_table(registry: TableRegistry) -> list[dict[str, Any]]:
    """Every table of the cluster as the lobby lists it, with `creator`: this node's as they
    are now, the others' from the cluster's directory."""
    here = [table_out(live).model_dump() | {"creator": live.creator} for live in registry.all()]
    ids = {table["id"] for table in here}
    return here + [t for t in await registry.network.tables.tables() or [] if t["id"] not in ids]


async def close_abandoned(registry: TableRegistry, table_id: str) -> bool:
    """Close (dissolve) a table where no player sits and no hand is in play, as its owner
    finds it (`app.tables.admin.abandoned`); False when it is not abandoned or not found."""
    try:
        done = await table_admin.run_anywhere(registry, "close_abandoned", table_id)
    except (TableError, RemoteRefused, TimeoutError):
        return False
    return bool(done.get("closed"))


def not_busy(registry: TableRegistry, what: str) -> None:
    """503 `busy` (with Retry-After) while this node sheds new work (app/ops/pressure.py)."""
    try:
        registry.refuse_if_busy(what)
    except TableError as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None


async def may_open_table(request: Request, account: Account) -> None:
    """The account may open one more table: it has fewer than `max_open_tables` open
    tables it opened, on any node (`too_many_tables` otherwise). At the limit its tables
    where no player sits (nobody, or bots only) are closed first to make room."""
    registry = registry_of(request)
    settings: Settings = request.app.state.settings
    limit = settings.max_open_tables
    mine = [t for t in await every_table(registry) if t.get("creator") == account.id]
    closed: set[str] = set()
    if len(mine) >= limit:
        for table in mine:
            if table["status"] == "waiting" and await close_abandoned(registry, table["id"]):
                closed.add(table["id"])
    elsewhere = [
        t for t in await registry.network.tables.tables() or []
        if t.get("creator") == account.id and t["id"] not in closed
        and registry.get(t["id"]) is None
    ]
    # this node's tables counted last, with no await before the caller creates the table
    here = [live for live in registry.all() if live.creator == account.id]
    if len(here) + len(elsewhere) >= limit:
        raise ApiError(
            "too_many_tables",
            f"you have {limit} open tables with players at them; play or leave one first",
            {"limit": limit},
        )
