"""Table management for administrators (牌桌管理): admins only (`forbidden` for players), and
every call, reads included, writes one audit-log row (target account: the kicked player, or
none).

Rules:
- listing and inspecting show no concealed tile (`seat_view(state, None)`); `reveal=true`
  shows every seat's hand and needs a non-empty `reason`, which goes into the audit row;
- pause/resume freeze and unfreeze the table's timers; a paused table refuses actions;
- kick: during a hand the seat escapes (逃跑, RULES.md 1: settled as an escape), then the
  seat is freed;
- dissolve (解散): see `dissolve`;
- test mode (`TEST_MODE=true` only, otherwise `not_found`): a table whose first hand is
  dealt from an arranged wall (`app.rules.scenario.arrange`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.lobby import TimersIn, registry_of
from app.api.security import ADMIN_ERRORS, AdminAccount
from app.rules import scenario
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.variants.base import TableContext
from app.rules.views import seat_view
from app.store import audit
from app.store.models import Account
from app.tables.registry import LiveTable, TableError, TableRegistry
from app.tables.timers import Timers

router = APIRouter(prefix="/admin/tables", tags=["admin"])

Die = Annotated[int, Field(ge=1, le=6)]


class AdminSeatOut(BaseModel):
    seat: int
    account_id: int | None
    username: str | None


class AdminTableOut(BaseModel):
    id: str
    variant: str
    stake: int
    seats: list[AdminSeatOut]
    status: Literal["waiting", "playing"]
    hand_id: str | None  # the hand in play
    paused: bool


class AdminTableDetailOut(AdminTableOut):
    revealed: bool
    view: dict[str, Any] | None  # the hand in play; concealed tiles only when revealed


class KickIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int = Field(ge=0, le=3)


class KickOut(BaseModel):
    table: AdminTableOut
    kicked_account_id: int


class DissolveOut(BaseModel):
    table_id: str
    voided_hand_id: str | None


class TestTableIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "example": {
                "variant": "lishui",
                "stake": 1,
                "hands": ["123456789m1234p5p", "...", "...", "..."],
                "draws": "5p",
                "dealer": 0,
            }
        },
    )

    variant: str
    stake: int = Field(ge=1, le=1_000_000)
    hands: list[str] = Field(min_length=4, max_length=4, description="tile notation per seat")
    draws: str = ""
    replacements: str = ""
    indicator: str | None = None
    dice: tuple[Die, Die] = (1, 1)
    wild_dice: tuple[Die, Die] = (1, 1)
    dealer: int = Field(default=0, ge=0, le=3)
    timers: TimersIn | None = None


def _live(registry: TableRegistry, table_id: str) -> LiveTable:
    live = registry.get(table_id)
    if live is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    return live


async def _names(session: AsyncSession, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = await session.execute(select(Account.id, Account.username).where(Account.id.in_(ids)))
    return {account_id: name for account_id, name in rows.all()}


def _out(live: LiveTable, names: dict[int, str]) -> AdminTableOut:
    seats = [
        AdminSeatOut(
            seat=seat, account_id=account, username=None if account is None else names.get(account)
        )
        for seat, account in enumerate(live.accounts())
    ]
    return AdminTableOut(
        id=live.table_id,
        variant=live.variant,
        stake=live.stake,
        seats=seats,
        status=live.status,
        hand_id=live.table.hand_id if live.table.hand is not None else None,
        paused=live.table.paused,
    )


async def _audited_out(
    session: AsyncSession,
    admin: Account,
    action: str,
    live: LiveTable,
    details: dict[str, Any],
    target: int | None = None,
) -> AdminTableOut:
    """The table as an admin sees it, after writing the action's audit row."""
    async with session.begin():
        names = await _names(session, [a for a in live.accounts() if a is not None])
        await audit.record(session, admin.id, action, target, {"table_id": live.table_id, **details})
    return _out(live, names)


@router.get("", responses=errors.responses(*ADMIN_ERRORS))
async def list_tables(admin: AdminAccount, session: SessionDep, request: Request) -> list[AdminTableOut]:
    """Every live table: variant, stake, who sits where, status, the hand in play, paused."""
    tables = registry_of(request).all()
    async with session.begin():
        ids = [a for live in tables for a in live.accounts() if a is not None]
        names = await _names(session, ids)
        await audit.record(session, admin.id, "list_tables", None, {"count": len(tables)})
    return [_out(live, names) for live in tables]


@router.post(
    "/test",
    status_code=201,
    responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS),
)
async def create_test_table(
    body: TestTableIn,
    admin: AdminAccount,
    session: SessionDep,
    settings: SettingsDep,
    request: Request,
) -> AdminTableOut:
    """Test mode only (TEST_MODE=true; otherwise `not_found`): a table whose first hand
    deals exactly `hands` (the dealer's holds one tile more), then `draws` in order, tail
    draws `replacements`, and the wild indicator `indicator` (`app.rules.scenario`)."""
    if not settings.test_mode:
        raise ApiError("not_found", "test mode is off")
    if body.variant not in VARIANTS:
        raise ApiError("validation_error", f"unknown variant {body.variant!r}")
    try:
        preset = scenario.arrange(
            get_ruleset(body.variant),
            dealer=body.dealer,
            hands=body.hands,
            draws=body.draws,
            replacements=body.replacements,
            indicator=body.indicator,
            dice=body.dice,
            wild_dice=body.wild_dice,
        )
    except (ValueError, KeyError) as exc:
        raise ApiError("validation_error", f"the scenario cannot be dealt: {exc}") from exc
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else None
    live = registry_of(request).create(
        body.variant,
        body.stake,
        timers=timers,
        preset=preset,
        ctx=TableContext(dealer=body.dealer),
    )
    return await _audited_out(
        session, admin, "create_test_table", live, body.model_dump(mode="json")
    )


@router.get("/{table_id}", responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS))
async def inspect_table(
    table_id: str,
    admin: AdminAccount,
    session: SessionDep,
    request: Request,
    reveal: bool = False,
    reason: Annotated[str, Query(max_length=500)] = "",
) -> AdminTableDetailOut:
    """One table and the public view of its hand in play. `reveal=true` (with a non-empty
    `reason`, kept in the audit log) shows every seat's concealed tiles."""
    live = _live(registry_of(request), table_id)
    if reveal and not reason.strip():
        raise ApiError("validation_error", "revealing the hands needs a reason")
    state = live.table.hand
    view: dict[str, Any] | None = None
    if state is not None:
        view = seat_view(state, None)
        if reveal:
            for seat, shown in enumerate(view["seats"]):
                shown["hand"] = seat_view(state, seat)["seats"][seat]["hand"]
    details: dict[str, Any] = {"reveal": reveal}
    if reveal:
        details["reason"] = reason.strip()
        details["hand_id"] = live.table.hand_id if state is not None else None
    table = await _audited_out(
        session, admin, "reveal_table" if reveal else "inspect_table", live, details
    )
    return AdminTableDetailOut(**table.model_dump(), revealed=reveal, view=view)


@router.post("/{table_id}/pause", responses=errors.responses("not_found", *ADMIN_ERRORS))
async def pause(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> AdminTableOut:
    """Freeze the table: every deadline keeps its remaining time; actions are refused."""
    registry = registry_of(request)
    live = _live(registry, table_id)
    await registry.pause(table_id)
    return await _audited_out(session, admin, "pause_table", live, {})


@router.post("/{table_id}/resume", responses=errors.responses("not_found", *ADMIN_ERRORS))
async def resume(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> AdminTableOut:
    """Unfreeze the table: deadlines run again from the time they had left."""
    registry = registry_of(request)
    live = _live(registry, table_id)
    await registry.resume(table_id)
    return await _audited_out(session, admin, "resume_table", live, {})


@router.post(
    "/{table_id}/kick", responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS)
)
async def kick(
    table_id: str, body: KickIn, admin: AdminAccount, session: SessionDep, request: Request
) -> KickOut:
    """Remove the player at `seat`. During a hand this is that player's escape (逃跑) and is
    settled as one (RULES.md 1); then the seat is freed."""
    registry = registry_of(request)
    live = _live(registry, table_id)
    in_hand = live.table.hand is not None
    try:
        account = await registry.kick(table_id, body.seat)
    except TableError as exc:
        raise ApiError(exc.code, exc.message) from exc
    assert account is not None
    table = await _audited_out(
        session, admin, "kick", live, {"seat": body.seat, "escape": in_hand}, target=account
    )
    return KickOut(table=table, kicked_account_id=account)


@router.post("/{table_id}/dissolve", responses=errors.responses("not_found", *ADMIN_ERRORS))
async def dissolve(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> DissolveOut:
    """Dissolve the table (解散). The money rule: the hand in play is voided, as if it had
    never been dealt: no silver moves for it (no escape penalty, no settlement), and a
    voided hand record (with its action log, for the audit) is stored. Every seat is freed
    and the table stops; nobody is charged."""
    registry = registry_of(request)
    live = _live(registry, table_id)
    seats = live.accounts()
    voided = await registry.dissolve(table_id)
    async with session.begin():
        await audit.record(
            session,
            admin.id,
            "dissolve_table",
            None,
            {"table_id": table_id, "voided_hand_id": voided, "seats": seats},
        )
    return DissolveOut(table_id=table_id, voided_hand_id=voided)
