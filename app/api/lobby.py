"""The lobby (REST): list tables, open one, sit down, get up.

Rules:
- a table plays one variant at a stake in silver (银两) per point; to sit a player needs at
  least `MIN_BALANCE_PER_STAKE` (100) x the stake, so that one hand rarely empties a wallet
  (`insufficient_balance` otherwise);
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
- a seated player may fill the empty seats with bots: accounts named `bot-<n>` (a name no
  player can register) with the signup grant and no usable password, played by the greedy
  bot (托管) inside the table; idle bots with enough silver are reused first.
Playing happens over the WebSocket (app/api/ws.py).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep, SettingsDep, commit_open
from app.api.errors import ApiError
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.cluster.base import RemoteRefused
from app.rules.variants import VARIANTS
from app.settings import Settings
from app.store import accounts, ledger
from app.store.models import Account
from app.tables.registry import MIN_BALANCE_PER_STAKE, LiveTable, TableError, TableRegistry
from app.tables.timers import Timers

router = APIRouter(tags=["lobby"])

BOT_PREFIX = "bot-"
NO_PASSWORD = "!"  # not an Argon2 hash: no password ever matches it
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

    variant: str
    stake: int = Field(ge=1, le=1_000_000, description="silver per point")
    timers: TimersIn | None = None


class SitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int | None = Field(default=None, ge=0, le=3)


class TableOut(BaseModel):
    id: str
    variant: str
    stake: int
    min_balance: int
    seats: list[int | None]  # account id per seat, null: empty
    seats_taken: int
    status: Literal["waiting", "playing"]


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
async def list_tables(account: CurrentAccount, request: Request) -> list[TableOut]:
    """Every table of this server: variant, stake, seats taken and status."""
    listed = await registry_of(request).network.tables()
    if listed is not None:  # every node's tables, from the cluster's directory
        return [TableOut.model_validate(summary) for summary in listed]
    return [table_out(live) for live in registry_of(request).all()]


@router.post(
    "/tables", status_code=201, responses=errors.responses("validation_error", *AUTH_ERRORS)
)
async def create_table(body: CreateTableIn, account: CurrentAccount, request: Request) -> TableOut:
    """Open a table; nobody sits yet (the creator sits with POST /tables/{id}/sit)."""
    if body.variant not in VARIANTS:
        raise ApiError(
            "validation_error", f"unknown variant {body.variant!r}", {"known": list(VARIANTS)}
        )
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else None
    live = registry_of(request).create(body.variant, body.stake, timers=timers)
    await registry_of(request).network.opened(live)
    return table_out(live)


@router.post(
    "/tables/{table_id}/sit",
    responses=errors.responses(
        "insufficient_balance", "seated_elsewhere", "not_found", "table_unavailable",
        *AUTH_ERRORS,
    ),
)
async def sit(
    table_id: str, account: CurrentAccount, request: Request, body: SitIn | None = None
) -> SeatOut:
    """Sit down (at `seat`, or the first empty one). Refused: `insufficient_balance` below
    100 x the stake, `seat_taken`, `table_full`, `already_seated`, `seated_elsewhere`
    (details: the `table_id` the account sits at)."""
    registry = registry_of(request)
    if registry.get(table_id) is None and registry.network.remote:
        return await _elsewhere(registry, "sit", table_id, account, body)
    live = _found(registry, table_id)
    needed = MIN_BALANCE_PER_STAKE * live.stake
    if account.balance < needed:
        raise ApiError(
            "insufficient_balance", f"this table needs {needed} silver to sit", {"needed": needed}
        )
    try:
        seat = await registry.take_seat(
            table_id, account.id, body.seat if body is not None else None
        )
    except TableError as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None
    return SeatOut(table=table_out(live), seat=seat)


@router.post(
    "/tables/{table_id}/leave", responses=errors.responses("not_found", *AUTH_ERRORS)
)
async def leave(table_id: str, account: CurrentAccount, request: Request) -> TableOut:
    """Get up: free between hands, an escape (逃跑) during one (`wrong_table`: not seated)."""
    registry = registry_of(request)
    if registry.get(table_id) is None and registry.network.remote:
        return (await _elsewhere(registry, "leave", table_id, account, None)).table
    live = _found(registry, table_id)
    try:
        registry.leave(table_id, account.id)
    except TableError as refused:
        raise ApiError(refused.code, refused.message) from None
    return table_out(live)


@router.post(
    "/tables/{table_id}/fill-bots", responses=errors.responses("not_found", *AUTH_ERRORS)
)
async def fill_bots(
    table_id: str,
    account: CurrentAccount,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
) -> TableOut:
    """Fill every empty seat with a bot (`wrong_table` unless the caller sits there)."""
    registry = registry_of(request)
    if registry.get(table_id) is None and registry.network.remote:
        return await _bots_elsewhere(registry, session, settings, table_id, account)
    live = _found(registry, table_id)
    if live.seat_of(account.id) is None:
        raise ApiError("wrong_table", "only a player at the table may call bots to it")
    empty = [s for s, a in enumerate(live.accounts()) if a is None]
    bots = await _bots(session, settings, registry, len(empty), MIN_BALANCE_PER_STAKE * live.stake)
    for bot in bots:
        if live.seat_of(bot) is None and None in live.accounts():
            registry.sit(table_id, bot, bot=True)
    return table_out(live)


async def _bots_elsewhere(
    registry: TableRegistry,
    session: AsyncSession,
    settings: Settings,
    table_id: str,
    account: Account,
) -> TableOut:
    """`fill_bots` at a table another node owns: bots chosen here, seated by the owner."""
    summary = await registry.network.summary(table_id)
    if summary is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    if account.id not in summary["seats"]:
        raise ApiError("wrong_table", "only a player at the table may call bots to it")
    empty = sum(a is None for a in summary["seats"])
    needed = MIN_BALANCE_PER_STAKE * int(summary["stake"])
    table = summary
    for bot in await _bots(session, settings, registry, empty, needed):
        try:
            table, _ = await registry.network.call("sit", table_id, bot, None, bot=True)
        except RemoteRefused as refused:
            if refused.code != "table_full":
                raise ApiError(refused.code, refused.message) from None
    return TableOut.model_validate(table)


async def _elsewhere(
    registry: TableRegistry, op: str, table_id: str, account: Account, body: SitIn | None
) -> SeatOut:
    """Sit or leave at a table another node of the cluster owns: the owner decides."""
    summary = await registry.network.summary(table_id)
    if summary is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    needed = MIN_BALANCE_PER_STAKE * int(summary["stake"])
    if op == "sit" and account.balance < needed:
        raise ApiError(
            "insufficient_balance", f"this table needs {needed} silver to sit", {"needed": needed}
        )
    try:
        table, seat = await registry.network.call(
            op, table_id, account.id, body.seat if body is not None else None
        )
    except RemoteRefused as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None
    return SeatOut(table=TableOut.model_validate(table), seat=seat if seat is not None else -1)


async def _bots(
    session: AsyncSession,
    settings: Settings,
    registry: TableRegistry,
    needed: int,
    min_balance: int,
) -> list[int]:
    """`needed` bot accounts sitting nowhere with at least `min_balance`: idle ones first,
    then new ones (`bot-<n>`, with the signup grant)."""
    async with session.begin():
        known = list((await session.execute(
            select(Account).where(Account.username.startswith(BOT_PREFIX)).order_by(Account.id)
        )).scalars())
    seated = registry.seated_accounts() | {  # and at the cluster's other nodes
        a for table in await registry.network.tables() or [] for a in table["seats"] if a
    }
    chosen = [
        a.id for a in known if a.id not in seated and not a.banned and a.balance >= min_balance
    ][:needed]
    number = len(known)
    while len(chosen) < needed:
        number += 1
        try:
            async with session.begin():
                bot = await accounts.create(session, f"{BOT_PREFIX}{number}", NO_PASSWORD)
        except accounts.DuplicateUsername:
            continue  # made by a concurrent request: take the next number
        await ledger.grant_signup(session, bot.id, settings.signup_grant)
        await commit_open(session)
        chosen.append(bot.id)
    return chosen
