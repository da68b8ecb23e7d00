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
- a seated player may fill the empty seats with the house's bots: accounts named `bot-<n>`
  (a name no player can register) with no usable password, played by the greedy bot (托管)
  inside the table. They are a bounded pool (`bot_pool_size`) of house players, not new
  money: a bot gets no signup grant; when seated it is brought to exactly the table's
  minimum from the house account (`ledger.level_bots`, reason `house_funding`), its surplus
  going back. Idle bots are reused; new ones are made only while the pool is below its
  bound; when every bot is seated, tables where only bots sit are closed and theirs reused.
  Refused: `house_funds_low` (503) when the house cannot fund them, `no_bots_free` (503)
  when no bot is free, and nothing is seated then;
- limits per account: at most `max_open_tables` open tables it opened with a player at
  them (`too_many_tables`, 409; at the limit, its tables where no player sits are closed
  first to make room), and at most `bot_seats_per_hour` bot seats called in the last hour
  on this node (`too_many_bots`, 429 with Retry-After).
Playing happens over the WebSocket (app/api/ws.py).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Collection
from typing import Annotated, Any, Literal
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.params import VARIANT_NAMES
from app.api.ratelimit import MemoryQuota
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.rules.variants import VARIANTS
from app.settings import Settings
from app.store import accounts, house, ledger, ranks
from app.store.house import BOT_PREFIX, NO_PASSWORD
from app.store.models import Account
from app.tables import admin as table_admin
from app.tables.errors import RemoteRefused, TableError
from app.tables.registry import MIN_BALANCE_PER_STAKE, LiveTable, TableRegistry
from app.tables.timers import Timers

router = APIRouter(tags=["lobby"])

NO_BOTS_RETRY_SECONDS = 30
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
    )


def _found(registry: TableRegistry, table_id: str) -> LiveTable:
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
                  if not summary.get("room")]
    else:  # a private room's table is not listed: it is found by its code
        tables = [table_out(live) for live in registry_of(request).all() if live.room is None]
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
        "validation_error", "insufficient_balance", "too_many_tables", *AUTH_ERRORS
    ),
)
async def create_table(body: CreateTableIn, account: CurrentAccount, request: Request) -> TableOut:
    """Open a table; nobody sits yet (the creator sits with POST /tables/{id}/sit). Refused
    before anything is made: `insufficient_balance` when the creator holds less than the
    table's minimum (100 x the stake: they could not sit at it), `too_many_tables`."""
    if body.variant not in VARIANTS:
        raise ApiError(
            "validation_error", f"unknown variant {body.variant!r}", {"known": list(VARIANTS)}
        )
    can_afford(account, body.stake)
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else None
    await may_open_table(request, account)
    live = registry_of(request).create(body.variant, body.stake, timers=timers)
    live.creator = account.id
    await registry_of(request).network.directory.opened(live)
    return table_out(live)


@router.post(
    "/tables/{table_id}/sit",
    responses=errors.responses(
        "validation_error", "insufficient_balance", "seat_taken", "table_full",
        "already_seated", "seated_elsewhere", "not_found", "table_unavailable", *AUTH_ERRORS,
    ),
)
async def sit(
    table_id: str, account: CurrentAccount, request: Request, body: SitIn | None = None
) -> SeatOut:
    """Sit down (at `seat`, or the first empty one). Refused: `insufficient_balance` below
    100 x the stake, `seat_taken`, `table_full`, `already_seated`, `seated_elsewhere`
    (details: the `table_id` the account sits at)."""
    registry = registry_of(request)
    live = registry.get(table_id)
    private = live.room is not None if live is not None else bool(
        ((await registry.network.tables.summary(table_id)) or {}).get("room"))
    if private:  # a private room's table: seated only with its code (POST /rooms/{code}/join)
        raise ApiError("not_found", f"no table {table_id!r}")
    return await seat_at(registry, table_id, account, body.seat if body is not None else None)


async def seat_at(
    registry: TableRegistry, table_id: str, account: Account, seat: int | None
) -> SeatOut:
    """Seat the account at `table_id` (on this node or the one that owns it), its silver
    checked against the table's minimum."""
    if registry.get(table_id) is None and registry.network.remote:
        return await _elsewhere(registry, "sit", table_id, account, SitIn(seat=seat))
    live = _found(registry, table_id)
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
    live = _found(registry, table_id)
    try:
        await registry.leave(table_id, account.id)
    except TableError as refused:
        raise ApiError(refused.code, refused.message) from None
    return table_out(live)


FILL_ERRORS = (
    "not_found", "wrong_table", "too_many_bots", "house_funds_low", "no_bots_free", *AUTH_ERRORS
)


@router.post("/tables/{table_id}/fill-bots", responses=errors.responses(*FILL_ERRORS))
async def fill_bots(
    table_id: str,
    account: CurrentAccount,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
) -> TableOut:
    """Fill every empty seat with a bot of the house, funded by the house to the table's
    minimum. Refused: `wrong_table` unless the caller sits there, `too_many_bots` past the
    hourly bot seats, `house_funds_low`, `no_bots_free`; a refusal seats nothing."""
    registry = registry_of(request)
    caller = account.id  # read now: a rollback of the session below would expire `account`
    async with filling_lock(registry):  # one fill at a time on this node: a bot, one table
        if registry.get(table_id) is None and registry.network.remote:
            return await _bots_elsewhere(request, session, settings, table_id, caller)
        live = _found(registry, table_id)
        if live.seat_of(caller) is None:
            raise ApiError("wrong_table", "only a player at the table may call bots to it")
        if live.room is not None and live.creator != caller:
            raise ApiError("forbidden", "only the room's owner may call bots to it")
        empty = sum(a is None for a in live.accounts())
        if empty == 0:
            return table_out(live)
        _within_bot_quota(request, settings, caller, empty)
        needed = MIN_BALANCE_PER_STAKE * live.stake
        seated = 0
        for bot in await house_bots(session, settings, registry, empty, needed, table_id):
            if live.seat_of(bot) is not None or None not in live.accounts():
                continue
            try:  # claimed like any seat: another node may have just seated the same bot
                await registry.take_seat(table_id, bot, bot=True)
            except TableError as refused:
                if refused.code != "seated_elsewhere":
                    raise ApiError(refused.code, refused.message) from None
                continue  # its seat stays empty; calling bots again fills it
            seated += 1
        _bot_quota(request).spend(str(caller), seated)
        return table_out(live)


async def _bots_elsewhere(
    request: Request,
    session: AsyncSession,
    settings: Settings,
    table_id: str,
    caller: int,
) -> TableOut:
    """`fill_bots` at a table another node owns: bots chosen here, seated by the owner."""
    registry = registry_of(request)
    summary = await registry.network.tables.summary(table_id)
    if summary is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    if caller not in summary["seats"]:
        raise ApiError("wrong_table", "only a player at the table may call bots to it")
    if summary.get("room") and summary.get("creator") != caller:
        raise ApiError("forbidden", "only the room's owner may call bots to it")
    empty = sum(a is None for a in summary["seats"])
    if empty == 0:
        return TableOut.model_validate(summary)
    _within_bot_quota(request, settings, caller, empty)
    needed = MIN_BALANCE_PER_STAKE * int(summary["stake"])
    table = summary
    seated = 0
    try:
        for bot in await house_bots(session, settings, registry, empty, needed, table_id):
            try:
                table, _ = await registry.network.tables.call("sit", table_id, bot, None, bot=True)
                seated += 1
            except RemoteRefused as refused:
                if refused.code != "table_full":
                    raise ApiError(refused.code, refused.message) from None
    finally:
        _bot_quota(request).spend(str(caller), seated)
    return TableOut.model_validate(table)


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


# --- the house's bots and the limits per account ---------------------------------------------

_FILLING: WeakKeyDictionary[TableRegistry, asyncio.Lock] = WeakKeyDictionary()


def filling_lock(registry: TableRegistry) -> asyncio.Lock:
    return _FILLING.setdefault(registry, asyncio.Lock())


def _bot_quota(request: Request) -> MemoryQuota:
    quota: MemoryQuota = request.app.state.bot_quota
    return quota


def _within_bot_quota(request: Request, settings: Settings, caller: int, seats: int) -> None:
    """`seats` more bot seats fit the account's hour (`too_many_bots` otherwise)."""
    wait = _bot_quota(request).retry_after(str(caller), seats)
    if wait is not None:
        limit = settings.bot_seats_per_hour
        raise ApiError(
            "too_many_bots",
            f"at most {limit} bot seats an hour; try again in {wait} s",
            {"limit": limit, "retry_after": wait},
            headers={"Retry-After": str(wait)},
        )


async def _every_table(registry: TableRegistry) -> list[dict[str, Any]]:
    """Every table of the cluster as the lobby lists it, with `creator`: this node's as they
    are now, the others' from the cluster's directory."""
    here = [table_out(live).model_dump() | {"creator": live.creator} for live in registry.all()]
    ids = {table["id"] for table in here}
    return here + [t for t in await registry.network.tables.tables() or [] if t["id"] not in ids]


async def _close_abandoned(registry: TableRegistry, table_id: str) -> bool:
    """Close (dissolve) a table where no player sits and no hand is in play, as its owner
    finds it (`app.tables.admin.abandoned`); False when it is not abandoned or not found."""
    try:
        done = await table_admin.run_anywhere(registry, "close_abandoned", table_id)
    except (TableError, RemoteRefused, TimeoutError):
        return False
    return bool(done.get("closed"))


async def may_open_table(request: Request, account: Account) -> None:
    """The account may open one more table: it has fewer than `max_open_tables` open
    tables it opened, on any node (`too_many_tables` otherwise). At the limit its tables
    where no player sits (nobody, or bots only) are closed first to make room."""
    registry = registry_of(request)
    settings: Settings = request.app.state.settings
    limit = settings.max_open_tables
    mine = [t for t in await _every_table(registry) if t.get("creator") == account.id]
    closed: set[str] = set()
    if len(mine) >= limit:
        for table in mine:
            if table["status"] == "waiting" and await _close_abandoned(registry, table["id"]):
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


async def _seated_anywhere(registry: TableRegistry, closed: Collection[str] = ()) -> set[int]:
    """Every account seated on any node (`closed`: tables just closed that the cluster's
    directory may still list)."""
    return registry.seated_accounts() | {
        a
        for table in await registry.network.tables.tables() or []
        if table["id"] not in closed
        for a in table["seats"]
        if a
    }


async def _reap_bots(registry: TableRegistry, bot_ids: set[int]) -> set[str]:
    """Close the tables where only bots sit (their players left) so that their bots go back
    to the pool; the tables closed."""
    closed: set[str] = set()
    for table in await _every_table(registry):
        sitting = [a for a in table["seats"] if a is not None]
        only_bots = bool(sitting) and set(sitting) <= bot_ids and table["status"] == "waiting"
        if only_bots and await _close_abandoned(registry, table["id"]):
            closed.add(table["id"])
    return closed


async def house_bots(
    session: AsyncSession,
    settings: Settings,
    registry: TableRegistry,
    needed: int,
    min_balance: int,
    table_id: str,
) -> list[int]:
    """`needed` bots of the house's pool sitting nowhere, each brought to exactly
    `min_balance` silver through the house account. Idle bots first; new accounts
    (`bot-<n>`, 0 silver) only while the pool is below `bot_pool_size`; when that is not
    enough, tables where only bots sit are closed and their bots taken. Bots beyond the
    bound (a lowered setting) are retired: their silver goes back to the house.
    `no_bots_free` or `house_funds_low`: nothing is created or moved."""
    bound = settings.bot_pool_size
    async with session.begin():
        pool = await house.bots(session)
    seated = await _seated_anywhere(registry)

    def idle() -> list[house.Bot]:
        return [b for b in pool[:bound] if b.id not in seated and not b.banned]

    free = idle()
    if len(free) + max(0, bound - len(pool)) < needed:
        closed = await _reap_bots(registry, {b.id for b in pool})
        if closed:
            seated = await _seated_anywhere(registry, closed)
            free = idle()
    chosen = free[:needed]
    new = min(needed - len(chosen), max(0, bound - len(pool)))
    if len(chosen) + new < needed:
        raise ApiError(
            "no_bots_free",
            "every bot of the house is seated; try again later",
            headers={"Retry-After": str(NO_BOTS_RETRY_SECONDS)},
        )
    retired = {b.id: b.balance for b in pool[bound:] if b.id not in seated and b.balance > 0}
    async with session.begin():
        house_id = await house.account_id(session)
        funds = await session.get(Account, house_id, populate_existing=True)
        house_balance = funds.balance if funds is not None else 0
    deficit = sum(max(0, min_balance - b.balance) for b in chosen) + new * min_balance
    surplus = sum(max(0, b.balance - min_balance) for b in chosen) + sum(retired.values())
    if house_balance + surplus < deficit:
        raise ApiError(
            "house_funds_low",
            "the house cannot fund bots for this table now; an operator must fund it",
            {"needed": deficit - surplus, "house": house_balance},
        )
    ids = [b.id for b in chosen] + [await _new_bot(session, len(pool)) for _ in range(new)]
    targets = {bot: min_balance for bot in ids} | dict.fromkeys(retired, 0)
    try:
        await ledger.level_bots(
            session, house_id, targets, f"bots:{secrets.token_hex(8)}", note=f"table {table_id}"
        )
    except ledger.LedgerError as refused:
        raise ApiError(refused.code, str(refused), refused.details) from None
    return ids


async def _new_bot(session: AsyncSession, known: int) -> int:
    """A new bot account (`bot-<n>`, the first free n after `known`), with 0 silver."""
    number = known
    while True:
        number += 1
        try:
            async with session.begin():
                bot = await accounts.create(session, f"{BOT_PREFIX}{number}", NO_PASSWORD)
                return bot.id
        except accounts.DuplicateUsername:
            continue  # made by a concurrent request, or a gap: take the next number
