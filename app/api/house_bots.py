"""The house's bots (REST): fill a table's empty seats with the house's bot accounts; who
may call them, the bot seats each account may call an hour, and reaping the bots of tables
only bots sit at so that they can be seated again.

Rules:
- a seated player may fill the empty seats with the house's bots: accounts named `bot-<n>`
  (a name no player can register) with no usable password, played by the greedy bot (托管)
  inside the table. They are a bounded pool (`bot_pool_size`) of house players, not new
  money: a bot gets no signup grant; when seated it is brought to exactly the table's
  minimum from the house account (`ledger.level_bots`, reason `house_funding`), its surplus
  going back. Idle bots are reused; new ones are made only while the pool is below its
  bound; when every bot is seated, tables where only bots sit are closed and theirs reused.
  A fill costs about the seats it fills, not the size of the pool or of the cluster: it
  reads a page of the pool (from a random row) and looks up only those bots' seats (this
  node's seating and their seat claims), and reads the whole pool and every table only
  when no bot is free; with room below the bound, a page without enough idle bots is
  made up with new ones.
  Refused: `house_funds_low` (503) when the house cannot fund them, `no_bots_free` (503)
  when no bot is free, and nothing is seated then;
- limit per account: at most `bot_seats_per_hour` bot seats called in the last hour on this
  node (`too_many_bots`, 429 with Retry-After).
The lobby itself (list, open, sit, leave, the open tables per account) is app/api/lobby.py.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.lobby import (
    TableOut,
    close_abandoned,
    every_table,
    found_table,
    registry_of,
    table_out,
)
from app.api.ratelimit import MemoryQuota
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.settings import Settings
from app.store import house, ledger
from app.store.models import Account
from app.tables.errors import RemoteRefused, TableError
from app.tables.registry import MIN_BALANCE_PER_STAKE, TableRegistry

router = APIRouter(tags=["lobby"])

NO_BOTS_RETRY_SECONDS = 30
POOL_PAGE = 32  # pool rows a fill reads at a time (at least 4 x the seats it fills)

FILL_ERRORS = (
    "not_found", "wrong_table", "forbidden", "too_many_bots", "house_funds_low", "no_bots_free",
    "busy", *AUTH_ERRORS,
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
        live = found_table(registry, table_id)
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
                    raise ApiError(refused.code, refused.message, refused.details) from None
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
                    raise ApiError(refused.code, refused.message, refused.details) from None
    finally:
        _bot_quota(request).spend(str(caller), seated)
    return TableOut.model_validate(table)


# --- the house's bots and the bot seats per account ------------------------------------------

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



async def _seated(registry: TableRegistry, bots: Sequence[house.Bot]) -> set[int]:
    """Which of the bots sit anywhere (this node's seating, then their seat claims): a cost
    of the bots asked about, not of the cluster's tables."""
    try:
        return await registry.seating.seated_anywhere([b.id for b in bots])
    except TableError as refused:
        raise ApiError(refused.code, refused.message, refused.details) from None


async def _idle_bots(
    session: AsyncSession, registry: TableRegistry, within: int, needed: int, room: int
) -> list[house.Bot]:
    """Idle bots (sitting nowhere, not banned) among the first `within` of the pool, read
    `POOL_PAGE` rows (at least 4 x `needed`) at a time from a random row on (the first
    one if a page holds them all), until `needed` are found, or, when `room` new bots may
    be made, after one page (the new ones make up the rest); every page when too few are
    found, so that reaping and `no_bots_free` still mean that no bot is free."""
    page = max(POOL_PAGE, 4 * needed)
    start = 0 if within <= page else secrets.randbelow(within)
    free: list[house.Bot] = []
    read = 0
    while read < within and len(free) < needed:
        offset = (start + read) % within
        async with session.begin():
            rows = await house.bots(session, offset, min(page, within - read, within - offset))
        if not rows:
            break
        read += len(rows)
        async with session.begin():
            entered = await house.in_running_events(session, [b.id for b in rows])
        candidates = [b for b in rows if not b.banned and b.id not in entered]
        seated = await _seated(registry, candidates)
        free += [b for b in candidates if b.id not in seated]
        if room and len(free) + room >= needed:
            break
    return free


async def _reap_bots(registry: TableRegistry, bot_ids: set[int]) -> set[int]:
    """Close the tables where only bots sit (their players left) so that their bots go back
    to the pool; the bots of the tables closed."""
    freed: set[int] = set()
    for table in await every_table(registry):
        sitting = [a for a in table["seats"] if a is not None]
        only_bots = bool(sitting) and set(sitting) <= bot_ids and table["status"] == "waiting"
        if only_bots and await close_abandoned(registry, table["id"]):
            freed.update(sitting)
    return freed


async def _reaped(
    session: AsyncSession, registry: TableRegistry, bound: int
) -> list[house.Bot]:
    """No bot is free and the pool is full: close the tables only bots sit at; the idle
    bots of the pool afterwards (its whole pool and every table read: only then)."""
    async with session.begin():
        pool = await house.bots(session)
        entered = await house.in_running_events(session, [b.id for b in pool])
    freed = await _reap_bots(registry, {b.id for b in pool})
    if not freed:
        return []
    # a closed table's claims may not be given back yet: its bots are free all the same
    candidates = [b for b in pool[:bound] if not b.banned and b.id not in entered]
    seated = await _seated(registry, [b for b in candidates if b.id not in freed])
    return [b for b in candidates if b.id in freed or b.id not in seated]


async def house_bots(
    session: AsyncSession,
    settings: Settings,
    registry: TableRegistry,
    needed: int,
    min_balance: int,
    table_id: str,
) -> list[int]:
    """`needed` bots of the house's pool sitting nowhere, each brought to exactly
    `min_balance` silver through the house account. Idle bots first (`_idle_bots`: a page
    of the pool, not all of it, and only their own seats looked up, not every table); new
    accounts (`bot-<n>`, 0 silver) only while the pool is below `bot_pool_size`; when that
    is not enough, tables where only bots sit are closed and their bots taken. Bots beyond
    the bound (a lowered setting) are retired: their silver goes back to the house.
    `no_bots_free` or `house_funds_low`: nothing is created or moved."""
    bound = settings.bot_pool_size
    async with session.begin():
        size = await house.bot_count(session)
        beyond = await house.bots(session, bound) if size > bound else []
    room = max(0, bound - size)
    free = await _idle_bots(session, registry, min(size, bound), needed, room)
    if len(free) + room < needed:
        free = await _reaped(session, registry, bound) or free
    chosen = free[:needed]
    new = min(needed - len(chosen), room)
    if len(chosen) + new < needed:
        raise ApiError(
            "no_bots_free",
            "every bot of the house is seated; try again later",
            headers={"Retry-After": str(NO_BOTS_RETRY_SECONDS)},
        )
    seated = await _seated(registry, [b for b in beyond if b.balance > 0])
    retired = {b.id: b.balance for b in beyond if b.id not in seated and b.balance > 0}
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
    ids = [b.id for b in chosen] + [await house.new_bot(session, size) for _ in range(new)]
    targets = {bot: min_balance for bot in ids} | dict.fromkeys(retired, 0)
    try:
        await ledger.level_bots(
            session, house_id, targets, f"bots:{secrets.token_hex(8)}", note=f"table {table_id}"
        )
    except ledger.LedgerError as refused:
        raise ApiError(refused.code, str(refused), refused.details) from None
    return ids
