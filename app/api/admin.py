"""Administration (管理): for accounts with the admin role only (`forbidden` for players).

Rules:
- every action, reads included, writes one audit-log row (admin id, action, target account,
  details as JSON): in the same transaction as a ban or unban; right after the ledger's own
  transaction for an adjustment (whose ledger key names the admin too);
- a balance changes only through the ledger, with a non-empty reason (`ledger.adjust_once`,
  reason admin_adjustment), and never below 0 (`insufficient_balance`);
- an adjustment needs an `Idempotency-Key` header (1-64 visible ASCII characters, e.g. a
  UUID; missing: `validation_error`). The key is the administrator's: sent again with the
  same account, delta and reason it answers the first entry again (header
  `Idempotent-Replayed: true`) and writes nothing, audit log included; with anything else
  it is refused (`idempotency_conflict`, 409, naming the first entry). A refused adjustment
  (`insufficient_balance`) stores nothing, so its key may be used again;
- the house account (the bots' bank, app/store/house.py) is funded and drained the same way
  at `POST /admin/house/adjust`; `GET /admin/silver` is the silver supply: every balance,
  the house's included, and the signup grants, adjustments and house rewards that made it.
- a ban (封号) stops logins and every token of the account at once (its refresh tokens are
  revoked; access tokens are refused because each request reads the account) and reaches
  its live session on every node once committed: its socket closes with code 4004
  (`banned`) and its seat escapes during a hand (the escape penalty, as a kick) or is
  freed between hands (`app.tables.bans.ban`); an administrator cannot ban themselves, and
  nobody bans or unbans the house account (`forbidden`: it stays banned, which keeps it
  off the leaderboards); unbanning lets the account log in again.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors, tokens
from app.api.deps import SessionDep, commit_open
from app.api.errors import ApiError
from app.api.lobby import registry_of
from app.api.pages import Before, Limit, ledger_page_out
from app.api.params import AccountId, Offset
from app.api.profiles import account_out
from app.api.schemas import AccountOut, LedgerEntryOut, LedgerPage
from app.api.security import ADMIN_ERRORS, AdminAccount
from app.store import accounts, audit, house, ledger
from app.store.models import Account, LedgerEntry
from app.tables import bans
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


IdempotencyKey = Annotated[
    str,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=ledger.ADJUSTMENT_KEY_LENGTH,
        pattern=r"^[\x21-\x7e]+$",
        description="required: a key of the administrator's choosing (e.g. a UUID); sent "
        "again, the first entry is answered and nothing is written",
    ),
]
REPLAYED = "Idempotent-Replayed"


class SilverOut(BaseModel):
    """The silver supply (银两), in whole units."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "total": 2_530_000, "house": 480_000, "players": 2_010_000, "bots": 20_000,
                "events": 20_000,
                "grants": 2_010_000, "adjustments": 500_000, "rewards": 20_000,
                "unexplained": 0, "bot_accounts": 12,
            }
        }
    )

    total: int = Field(description="every balance, the house's included: house + players + "
                       "bots + events")
    house: int = Field(description="the house account: the bots' bank")
    players: int
    bots: int = Field(description="held by the house's bot accounts")
    events: int = Field(
        description="held by the tournaments' accounts: fees waiting for prizes or refunds"
    )
    grants: int = Field(description="signup grants ever made")
    adjustments: int = Field(description="admin adjustments, the house's funding included")
    rewards: int = Field(description="house rewards (湖州) paid to seats")
    unexplained: int = Field(description="total - grants - adjustments - rewards: always 0")
    bot_accounts: int


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
    q: Annotated[str, Query(max_length=32, description="a username prefix (any case or form)")] = "",
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Offset = 0,
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
    account_id: AccountId,
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


ADJUST_ERRORS = (
    "validation_error", "not_found", "insufficient_balance", "idempotency_conflict", *ADMIN_ERRORS
)


@router.post("/accounts/{account_id}/adjust", responses=errors.responses(*ADJUST_ERRORS))
async def adjust(
    account_id: AccountId,
    body: AdjustIn,
    admin: AdminAccount,
    session: SessionDep,
    key: IdempotencyKey,
    response: Response,
) -> AdjustOut:
    """Add or take silver, with a reason, as a ledger entry; retry-safe by its key."""
    async with session.begin():
        await _target(session, account_id)
    return await _adjust(session, admin, account_id, body, key, response)


@router.post("/house/adjust", responses=errors.responses(*ADJUST_ERRORS))
async def adjust_house(
    body: AdjustIn,
    admin: AdminAccount,
    session: SessionDep,
    key: IdempotencyKey,
    response: Response,
) -> AdjustOut:
    """Fund the house account (or take from it): the silver bots are seated with. An
    adjustment like any other, on the house's account."""
    async with session.begin():
        house_id = await house.account_id(session)
    return await _adjust(session, admin, house_id, body, key, response)


async def _adjust(
    session: AsyncSession,
    admin: Account,
    account_id: int,
    body: AdjustIn,
    key: str,
    response: Response,
) -> AdjustOut:
    """The adjustment under `key`: posted and audited once; a replay answered as first."""
    reason = body.reason
    try:
        posted = await ledger.adjust_once(session, account_id, body.delta, reason, admin.id, key)
    except ledger.LedgerError as exc:
        if session.in_transaction():
            await session.rollback()
        raise ApiError(exc.code, str(exc)) from exc
    await commit_open(session)
    entry = posted.entry
    if not posted.created:
        _same_request(entry, account_id, body.delta, reason)
        response.headers[REPLAYED] = "true"
        return AdjustOut(entry=LedgerEntryOut.model_validate(entry), balance=entry.balance_after)
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
                "idempotency_key": key,
            },
        )
    return AdjustOut(entry=LedgerEntryOut.model_validate(entry), balance=entry.balance_after)


def _same_request(entry: LedgerEntry, account_id: int, delta: int, reason: str) -> None:
    """A replayed key must carry the first request again (`idempotency_conflict`)."""
    if (entry.account_id, entry.delta, entry.note) != (account_id, delta, reason):
        raise ApiError(
            "idempotency_conflict",
            "this Idempotency-Key was used for another adjustment; use a new key",
            {"entry_id": entry.id},
        )


@router.get("/silver", responses=errors.responses(*ADMIN_ERRORS))
async def silver_supply(admin: AdminAccount, session: SessionDep) -> SilverOut:
    """The silver supply: where every silver is, and the grants, adjustments and rewards
    that made it (`total` == `grants` + `adjustments` + `rewards`; `unexplained` is 0)."""
    async with session.begin():
        found = await house.supply(session)
        await audit.record(session, admin.id, "view_silver", None, {"total": found.total})
    return SilverOut(**asdict(found))


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
        if target.role == house.HOUSE_ROLE:  # banned for good: it never logs in or ranks
            raise ApiError("forbidden", "the house account is not a player's to ban or unban")
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
        await bans.ban(registry, account_id)
    return account_out(target)


@router.post(
    "/accounts/{account_id}/ban",
    responses=errors.responses("validation_error", "not_found", *ADMIN_ERRORS),
)
async def ban(
    account_id: AccountId,
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
    account_id: AccountId, admin: AdminAccount, session: SessionDep, body: BanIn | None = None
) -> AccountOut:
    """Lift a ban."""
    return await _set_banned(session, admin, account_id, False, body.reason if body else None)
