"""What the endpoints take from the application: settings, a database session, the password
hasher, the login limits and the registration bars (all made once in `create_app` and kept
on `app.state`).

The session opens no transaction by itself: every use is wrapped in `session.begin()` (or
goes through `ledger.post`, which opens its own), so each request commits what it changes.

Every dependency here is `async def`, even those that only read `app.state`: FastAPI runs a
plain `def` dependency in its thread pool, a hop to a worker thread and back (and a turn
of the GIL) on every request that uses it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.passwords import Passwords
from app.api.ratelimit import LoginLimits
from app.api.signups import SignupLimits
from app.settings import Settings


async def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def session_of(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.db.sessions() as session:
        yield session


async def passwords_of(request: Request) -> Passwords:
    passwords: Passwords = request.app.state.passwords
    return passwords


async def login_limits_of(request: Request) -> LoginLimits:
    limits: LoginLimits = request.app.state.login_limits
    return limits


async def signup_limits_of(request: Request) -> SignupLimits:
    limits: SignupLimits = request.app.state.signup_limits
    return limits


SettingsDep = Annotated[Settings, Depends(settings_of)]
SessionDep = Annotated[AsyncSession, Depends(session_of)]
PasswordsDep = Annotated[Passwords, Depends(passwords_of)]
LoginLimitsDep = Annotated[LoginLimits, Depends(login_limits_of)]
SignupLimitsDep = Annotated[SignupLimits, Depends(signup_limits_of)]


async def commit_open(session: AsyncSession) -> None:
    """Commit a transaction a store function left open (one that works inside the caller's
    transaction rather than its own); nothing to do when it committed by itself."""
    if session.in_transaction():
        await session.commit()
