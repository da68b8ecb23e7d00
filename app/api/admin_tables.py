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
from app.api.params import VARIANT_NAMES
from app.api.security import ADMIN_ERRORS, AdminAccount
from app.rules import scenario
from app.rules.context import TableContext
from app.rules.variants import VARIANTS, get_ruleset
from app.store import audit
from app.store.models import Account
from app.tables import admin as table_admin
from app.tables.errors import UNAVAILABLE, RemoteRefused, TableError
from app.tables.remote import AdminOp
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
    """A test-mode table whose first hand is arranged: the deal, the draws and the wild are
    as given (`app.rules.scenario.arrange`). The wall is built in drawing order: the deal
    (the variant's usual order), then `draws` from the front, and `replacements` from the
    tail (the first listed is the wall's last tile); the indicator sits where the variant
    turns it. Every tile not listed fills the middle of the wall in tile order (1m-9m,
    1p-9p, 1s-9s, 1z-7z, 1f-8f), so a hand that outlasts the listed draws goes on with
    those. The later hands of the table are shuffled as usual."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "example": {
                "variant": "lishui",
                "stake": 1,
                "hands": [
                    "147m258p369s12345z",  # the dealer's 14 tiles
                    "123456789m1234p",
                    "123456789s5678p",
                    "5789m999p888s667z",
                ],
                "draws": "9p",
                "dealer": 0,
            }
        },
    )

    variant: str = Field(description="a rule set", json_schema_extra=VARIANT_NAMES)
    stake: int = Field(ge=1, le=1_000_000, strict=True, description="silver per point")
    hands: list[Annotated[str, Field(max_length=64)]] = Field(
        min_length=4, max_length=4,
        description="each seat's dealt tiles in tile notation: digits before their suit "
        "letter, m 万 p 筒 s 条 z 东南西北白发中 (1z-7z) f 春夏秋冬梅兰竹菊 (1f-8f), e.g. "
        "'123m456p789s11z'; the variant's hand size each, the dealer's one more",
    )
    draws: str = Field(
        default="", max_length=256,
        description="the tiles drawn from the front after the deal, in order (notation); "
        "after them the wall goes on with the unlisted tiles in tile order",
    )
    replacements: str = Field(
        default="", max_length=256,
        description="the tiles drawn from the tail (杠 and 补花 replacements), in order; in "
        "福州 the deal's 补花 draws these first",
    )
    indicator: str | None = Field(
        default=None, max_length=4,
        description="the wild indicator the variant turns (丽水, 温州: from the tail by "
        "wild_dice; 湖州: the first front tile after the deal; 福州: the tail after the "
        "deal's 补花); refused by a variant with none (上海)",
    )
    dice: tuple[Die, Die] = Field(default=(1, 1), description="the hand's first roll")
    wild_dice: tuple[Die, Die] = Field(
        default=(1, 1), description="the roll that places the indicator (丽水, 温州)"
    )
    dealer: int = Field(default=0, ge=0, le=3, description="the first hand's dealer (庄家)")
    timers: TimersIn | None = Field(default=None, description="the table's timers (default: the server's)")


async def _command(
    request: Request,
    op: AdminOp,
    table_id: str = "",
    *,
    seat: int | None = None,
    reveal: bool = False,
) -> dict[str, Any]:
    """Run a command on the table's node: this one, or its owner over the cluster's bus
    (the same `app.tables.admin.run` there); `list` gathers every node's tables."""
    registry = registry_of(request)
    try:
        if op != "list":
            return await table_admin.run_anywhere(registry, op, table_id, seat=seat, reveal=reveal)
        result = await table_admin.run(registry, op)
        if registry.network.remote:  # every node's, in one order everywhere
            result["tables"] += (await registry.network.tables.admin("list"))["tables"]
            result["tables"].sort(key=lambda table: str(table["id"]))
        return result
    except (TableError, RemoteRefused) as refused:
        raise ApiError(refused.code, refused.message) from refused


async def _names(session: AsyncSession, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = await session.execute(select(Account.id, Account.username).where(Account.id.in_(ids)))
    return {account_id: name for account_id, name in rows.all()}


def _out(table: dict[str, Any], names: dict[int, str]) -> AdminTableOut:
    """A table (`app.tables.admin.snapshot`) with its players' names."""
    seats = [
        AdminSeatOut(
            seat=seat, account_id=account, username=None if account is None else names.get(account)
        )
        for seat, account in enumerate(table["accounts"])
    ]
    return AdminTableOut(
        id=table["id"],
        variant=table["variant"],
        stake=table["stake"],
        seats=seats,
        status=table["status"],
        hand_id=table["hand_id"],
        paused=table["paused"],
    )


async def _audited_out(
    session: AsyncSession,
    admin: Account,
    action: str,
    table: dict[str, Any],
    details: dict[str, Any],
    target: int | None = None,
) -> AdminTableOut:
    """The table as an admin sees it, after writing the action's audit row."""
    async with session.begin():
        names = await _names(session, [a for a in table["accounts"] if a is not None])
        await audit.record(session, admin.id, action, target, {"table_id": table["id"], **details})
    return _out(table, names)


@router.get("", responses=errors.responses(UNAVAILABLE, *ADMIN_ERRORS))
async def admin_list_tables(admin: AdminAccount, session: SessionDep, request: Request) -> list[AdminTableOut]:
    """Every live table (of every node): variant, stake, who sits where, status, the hand
    in play, paused."""
    tables = (await _command(request, "list"))["tables"]
    async with session.begin():
        ids = [a for table in tables for a in table["accounts"] if a is not None]
        names = await _names(session, ids)
        await audit.record(session, admin.id, "list_tables", None, {"count": len(tables)})
    return [_out(table, names) for table in tables]


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
    draws `replacements`, and the wild indicator `indicator` (`app.rules.scenario`). Every
    other tile of the variant's set fills the rest of the wall in tile order."""
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
        session, admin, "create_test_table", table_admin.snapshot(live),
        body.model_dump(mode="json"),
    )


@router.get("/{table_id}", responses=errors.responses("validation_error", "not_found", UNAVAILABLE, *ADMIN_ERRORS))
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
    inspected = await _command(
        request, "inspect", table_id, reveal=reveal and bool(reason.strip())
    )  # a missing table is `not_found` before a missing reason
    if reveal and not reason.strip():
        raise ApiError("validation_error", "revealing the hands needs a reason")
    details: dict[str, Any] = {"reveal": reveal}
    if reveal:
        details["reason"] = reason.strip()
        details["hand_id"] = inspected["table"]["hand_id"]
    table = await _audited_out(
        session, admin, "reveal_table" if reveal else "inspect_table", inspected["table"], details
    )
    return AdminTableDetailOut(**table.model_dump(), revealed=reveal, view=inspected["view"])


@router.post("/{table_id}/pause", responses=errors.responses("not_found", UNAVAILABLE, *ADMIN_ERRORS))
async def pause(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> AdminTableOut:
    """Freeze the table: every deadline keeps its remaining time; actions are refused."""
    paused = await _command(request, "pause", table_id)
    return await _audited_out(session, admin, "pause_table", paused["table"], {})


@router.post("/{table_id}/resume", responses=errors.responses("not_found", UNAVAILABLE, *ADMIN_ERRORS))
async def resume(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> AdminTableOut:
    """Unfreeze the table: deadlines run again from the time they had left."""
    resumed = await _command(request, "resume", table_id)
    return await _audited_out(session, admin, "resume_table", resumed["table"], {})


@router.post(
    "/{table_id}/kick",
    responses=errors.responses("validation_error", "not_found", UNAVAILABLE, *ADMIN_ERRORS),
)
async def kick(
    table_id: str, body: KickIn, admin: AdminAccount, session: SessionDep, request: Request
) -> KickOut:
    """Remove the player at `seat`. During a hand this is that player's escape (逃跑) and is
    settled as one (RULES.md 1); then the seat is freed."""
    kicked = await _command(request, "kick", table_id, seat=body.seat)
    account = int(kicked["account"])
    table = await _audited_out(
        session, admin, "kick", kicked["table"], {"seat": body.seat, "escape": kicked["escape"]},
        target=account,
    )
    return KickOut(table=table, kicked_account_id=account)


@router.post("/{table_id}/dissolve", responses=errors.responses("not_found", UNAVAILABLE, *ADMIN_ERRORS))
async def dissolve(
    table_id: str, admin: AdminAccount, session: SessionDep, request: Request
) -> DissolveOut:
    """Dissolve the table (解散). The money rule: the hand in play is voided, as if it had
    never been dealt: no silver moves for it (no escape penalty, no settlement), and a
    voided hand record (with its action log, for the audit) is stored. Every seat is freed
    and the table stops; nobody is charged."""
    dissolved = await _command(request, "dissolve", table_id)
    seats, voided = dissolved["seats"], dissolved["voided_hand_id"]
    async with session.begin():
        await audit.record(
            session,
            admin.id,
            "dissolve_table",
            None,
            {"table_id": table_id, "voided_hand_id": voided, "seats": seats},
        )
    return DissolveOut(table_id=table_id, voided_hand_id=voided)
