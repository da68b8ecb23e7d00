"""Who is calling: the bearer access token, checked against the account as it is now.

Rules:
- no token, a bad signature, a wrong type or an expired token: `unauthorized`;
- the account is read on every request, so a ban (封号) takes effect at once: a banned
  account's tokens answer `banned`, and a deleted account's `unauthorized`;
- the role comes from the account, not the token: `admin_account` refuses players with
  `forbidden`, and a demotion takes effect at once.
`account_for_token` does the same for callers that are not endpoints (the table WebSocket).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import tokens
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.settings import Settings
from app.store import accounts
from app.store.models import Account

bearer = HTTPBearer(auto_error=False, description="the access token from /auth/login")


async def account_for_token(session: AsyncSession, token: str, settings: Settings) -> Account:
    """The live, unbanned account an access token speaks for (in its own transaction)."""
    account_id = tokens.account_id_of(token, settings)
    async with session.begin():
        account = await accounts.by_id(session, account_id)
    if account is None:
        raise ApiError(
            "unauthorized", "the account no longer exists", headers={"WWW-Authenticate": "Bearer"}
        )
    if account.banned:
        raise ApiError("banned", "this account is banned")
    return account


async def current_account(
    session: SessionDep,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Account:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise ApiError(
            "unauthorized",
            "a bearer access token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return await account_for_token(session, credentials.credentials, settings)


CurrentAccount = Annotated[Account, Depends(current_account)]


async def admin_account(account: CurrentAccount) -> Account:
    if account.role != "admin":
        raise ApiError("forbidden", "this needs an administrator")
    return account


AdminAccount = Annotated[Account, Depends(admin_account)]

AUTH_ERRORS = ("unauthorized", "banned")
ADMIN_ERRORS = ("unauthorized", "banned", "forbidden")
