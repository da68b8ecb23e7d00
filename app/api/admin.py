"""Administration (管理): for accounts with the admin role only (`forbidden` for players).

Rules:
- every action, reads included, writes one audit-log row (admin id, action, target account,
  details as JSON): in the same transaction as a ban or unban; right after the ledger's own
  transaction for an adjustment (whose ledger key names the admin too);
- a balance changes only through the ledger, with a non-empty reason (`ledger.adjust`,
  reason admin_adjustment), and never below 0 (`insufficient_balance`);
- a ban (封号) stops logins and every token of the account at once (its refresh tokens are
  revoked; access tokens are refused because each request reads the account) and reaches
  its live session on every node once committed: its socket closes with code 4004
  (`banned`) and its seat escapes during a hand (the escape penalty, as a kick) or is
  freed between hands (`TableRegistry.ban`); an administrator cannot ban themselves;
  unbanning lets the account log in again.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors, tokens
from app.api.deps import SessionDep, commit_open
from app.api.errors import ApiError
from app.api.lobby import registry_of
from app.api.pages import Before, Limit, ledger_page_out
from app.api.profiles import account_out
from app.api.schemas import AccountOut, LedgerEntryOut, LedgerPage
from app.api.security import ADMIN_ERRORS, AdminAccount
from app.store import accounts, audit, ledger
from app.store.models import Account
from app.tables.registry import TableRegistry

router = APIRouter(prefix="/admin", tags=["admin"])

MAX_ADJUSTMENT = 10**12  # silver in one adjustment, either way (far inside a BIGINT)


class AdjustIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"example": {"delta": -500, "reason": "refund of a duplicated grant"}}
    )

    delta: StrictInt = Field(
        ge=-MAX_ADJUSTMENT,
        le=MAX_ADJUSTMENT,
        description="silver to add (negative: to take), not 0",
    )
    reason: str = Field(min_length=1, max_length=500, description="why; required")

    @field_validator("delta")
    @classmethod
    def _not_zero(cls, delta: int) -> int:
        if delta == 0:
            raise ValueError("the delta must not be 0")
        return delta

    @field_validator("reason")
    @classmethod
    def _not_blank(cls, reason: str) -> str:
        if not reason.strip():
            raise ValueError("a reason is required")
        return reason.strip()


class AdjustOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "entry": {
                    "id": 88,
                    "delta": -500,
                    "balance_after": 9500,
                    "reason": "admin_adjustment",
                    "hand_id": None,
                    "note": "refund of a duplicated grant",
                    "created_at": "2026-11-29T12:00:00Z",
                },
                "balance": 9500,
            }
        }
    )

    entry: LedgerEntryOut
    balance: int


class BanIn(BaseModel):
    model_config = ConfigDict(json_schema_extra={"example": {"reason": "collusion at table 12"}})

    reason: str | None = Field(default=None, max_length=500)


async def _target(session: AsyncSession, account_id: int) -> Account:
    found = await accounts.by_id(session, account_id)
    if found is None:
        raise ApiError("not_found", f"no account {account_id}")
    return found


@router.get("/accounts", responses=errors.responses("validation_error", *ADMIN_ERRORS))
async def search_accounts(
    admin: AdminAccount,
    session: SessionDep,
    q: Annotated[str, Query(max_length=32, description="a username prefix (any case)")] = "",
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[AccountOut]:
    """Accounts whose username starts with `q`, by username."""
    async with session.begin():
        found = await accounts.search(session, q, limit=limit, offset=offset)
        await audit.record(
            session,
            admin.id,
            "search_accounts",
            None,
            {"q": q, "limit": limit, "offset": offset, "found": len(found)},
        )
    return [account_out(a) for a in found]


@router.get(
    "/accounts/{account_id}/ledger",
    responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS),
)
async def account_ledger(
    account_id: int,
    admin: AdminAccount,
    session: SessionDep,
    limit: Limit = 20,
    before: Before = None,
) -> LedgerPage:
    """An account's silver changes, newest first."""
    async with session.begin():
        await _target(session, account_id)
        await audit.record(
            session, admin.id, "view_ledger", account_id, {"limit": limit, "before": before}
        )
    return await ledger_page_out(session, account_id, limit, before)


@router.post(
    "/accounts/{account_id}/adjust",
    responses=errors.responses(
        "validation_error", "not_found", "insufficient_balance", *ADMIN_ERRORS
    ),
)
async def adjust(
    account_id: int, body: AdjustIn, admin: AdminAccount, session: SessionDep
) -> AdjustOut:
    """Add or take silver, with a reason, as a ledger entry."""
    reason = body.reason
    async with session.begin():
        await _target(session, account_id)
    try:
        entry = await ledger.adjust(session, account_id, body.delta, reason, admin.id)
    except ledger.LedgerError as exc:
        if session.in_transaction():
            await session.rollback()
        raise ApiError(exc.code, str(exc)) from exc
    await commit_open(session)
    async with session.begin():
        await audit.record(
            session,
            admin.id,
            "adjust",
            account_id,
            {
                "delta": body.delta,
                "reason": reason,
                "ledger_id": entry.id,
                "balance_after": entry.balance_after,
            },
        )
    return AdjustOut(entry=LedgerEntryOut.model_validate(entry), balance=entry.balance_after)


async def _set_banned(
    session: AsyncSession,
    admin: Account,
    account_id: int,
    banned: bool,
    reason: str | None,
    registry: TableRegistry | None = None,
) -> AccountOut:
    if banned and account_id == admin.id:
        raise ApiError("forbidden", "an administrator cannot ban themselves")
    async with session.begin():
        target = await _target(session, account_id)
        was = target.banned
        target.banned = banned
        revoked = await tokens.revoke_all(session, account_id) if banned else 0
        await audit.record(
            session,
            admin.id,
            "ban" if banned else "unban",
            account_id,
            {"reason": reason, "was_banned": was, "revoked_tokens": revoked},
        )
    if banned and registry is not None:  # committed: the live session ends now
        await registry.ban(account_id)
    return account_out(target)


@router.post(
    "/accounts/{account_id}/ban",
    responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS),
)
async def ban(
    account_id: int,
    admin: AdminAccount,
    session: SessionDep,
    request: Request,
    body: BanIn | None = None,
) -> AccountOut:
    """Ban an account: no login, no token works, no seat at a table. Its open socket closes
    at once (code 4004) and its seat is given up (an escape during a hand)."""
    return await _set_banned(
        session, admin, account_id, True, body.reason if body else None, registry_of(request)
    )


@router.post(
    "/accounts/{account_id}/unban",
    responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS),
)
async def unban(
    account_id: int, admin: AdminAccount, session: SessionDep, body: BanIn | None = None
) -> AccountOut:
    """Lift a ban."""
    return await _set_banned(session, admin, account_id, False, body.reason if body else None)
