"""Registration, login and token refresh (注册 / 登录).

Rules:
- registering creates a player account and grants settings.signup_grant silver through the
  ledger (`ledger.grant_signup`, key `signup:{id}`) in the same request, unless the
  client's address (an IPv4 address, an IPv6 /64) or its IPv6 /48 has had its day's grants
  (app/api/signups.py): the account is then made with no silver, and the answer's
  `signup_grant` (the silver granted) is 0; a username is valid
  when its NFKC form is (app/api/schemas.py), is kept as typed, and is taken when another
  has the same key (`accounts.username_key`: case and compatibility forms aside), which is
  `duplicate_username`;
- registrations are limited per address an hour and a day and per IPv6 /48 a day
  (app/api/signups.py): over a bar, `rate_limited` (429) with Retry-After and
  `details.retry_after`, before the password is hashed and with nothing made; a
  registration refused for a taken name counts against no bar;
- a login finds the account by the key of the name given, so any case or form of it works;
- a login with an unknown username and one with a wrong password answer the same
  `bad_credentials` after the same work (one Argon2 verify each);
- every login attempt takes its slots in the login limits before its password is checked
  (app/api/ratelimit.py: per username and address; for a username the address has not
  logged in to lately, also per address and per username), and one that finds a limit full
  gets `rate_limited` (429) with Retry-After and `details.retry_after`, the seconds until
  that limit has room; a good login clears its username and address's count, and it and
  a registration make the pair known, so another address's guesses never lock the owner
  out of a usual address;
- hashing and checking passwords wait for one of a few turns per process, and answer 503
  `busy` with Retry-After when none comes free in time (app/api/passwords.py);
- the password is checked before the ban, so only the owner learns of a ban (`banned`);
- a good login replaces a hash made with old Argon2 parameters;
- refreshing rotates the refresh token; a reused one is refused and revokes them all.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request, status
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from app.api import errors, tokens
from app.api.deps import (
    LoginLimitsDep,
    PasswordsDep,
    SessionDep,
    SettingsDep,
    SignupLimitsDep,
    commit_open,
)
from app.api.errors import ApiError
from app.api.profiles import account_out
from app.api.ratelimit import client_address, client_host
from app.api.schemas import (
    ACCOUNT_EXAMPLE,
    USERNAME_RULE,
    AccountOut,
    TokenPairOut,
    valid_username,
)
from app.ops import metrics
from app.ops.addresses import address_key, network_key
from app.store import accounts, ledger

router = APIRouter(prefix="/auth", tags=["auth"])

Username = Annotated[
    str,
    Field(min_length=3, max_length=32, description=USERNAME_RULE),
    AfterValidator(valid_username),
]


class RegisterIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"example": {"username": "阿明哥", "password": "correct horse battery"}}
    )

    username: Username
    password: str = Field(min_length=8, max_length=128)


class RegisteredOut(AccountOut):
    """The new account, and the silver its registration was granted."""

    model_config = ConfigDict(
        json_schema_extra={"example": {**ACCOUNT_EXAMPLE, "signup_grant": 10000}},
    )

    signup_grant: int = Field(
        description="silver (银两) granted with this registration: the signup grant (10000), "
        "or 0 when the address (an IPv4 address or an IPv6 /64) or its IPv6 /48 has had "
        "its day's signup grants (SIGNUP_GRANTS_PER_ADDRESS_DAY, "
        "SIGNUP_GRANTS_PER_NETWORK_DAY): the account is then made without silver"
    )


class LoginIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"example": {"username": "阿明哥", "password": "correct horse battery"}}
    )

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=128)


class RefreshIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"example": {"refresh_token": "eyJhbGciOiJIUzI1NiIs..."}}
    )

    refresh_token: str = Field(min_length=1, max_length=2048)


def _pair_out(pair: tokens.TokenPair) -> TokenPairOut:
    return TokenPairOut(
        access_token=pair.access_token, refresh_token=pair.refresh_token, expires_in=pair.expires_in
    )


def _too_many_registrations(retry_after: int) -> ApiError:
    return ApiError(
        "rate_limited",
        f"too many registrations from this address; try again in {retry_after} s",
        details={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


@router.post(
    "/register",
    status_code=status.HTTP_201_CREATED,
    responses=errors.responses("validation_error", "duplicate_username", "rate_limited", "busy"),
)
async def register(
    body: RegisterIn,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    passwords: PasswordsDep,
    limits: LoginLimitsDep,
    signups: SignupLimitsDep,
) -> RegisteredOut:
    """Create a player account with the signup grant of silver.

    Registrations are limited per client address (an IPv4 address, an IPv6 /64: by default
    3 an hour and 10 a day) and per IPv6 /48 (30 a day): over a bar the answer is 429
    `rate_limited` with `Retry-After`, and nothing is made; a name already taken (409)
    counts against no bar. The signup grant (10000 silver) is paid to at most 3
    registrations a day per address and 10 per IPv6 /48; the others make their account
    without silver, which `signup_grant: 0` says (an operator may grant it by an
    adjustment). See docs/architecture.md, "Registrations and the signup grant"."""
    host = client_host(request)
    address, network = address_key(host), network_key(host)
    retry_after = await signups.wait(address, network)
    if retry_after is not None:
        raise _too_many_registrations(retry_after)
    async with session.begin():
        taken = await accounts.by_username(session, body.username) is not None
    if taken:  # before the bars are taken: a taken name costs the address nothing
        raise ApiError("duplicate_username", f"the username {body.username!r} is taken")
    retry_after = await signups.take(address, network)
    if retry_after is not None:
        raise _too_many_registrations(retry_after)
    password_hash = await passwords.hash_async(body.password)
    try:
        async with session.begin():
            account = await accounts.create(session, body.username, password_hash)
    except accounts.DuplicateUsername as exc:
        raise ApiError("duplicate_username", f"the username {body.username!r} is taken") from exc
    granted = await signups.grant(address, network)
    if granted:
        await ledger.grant_signup(session, account.id, settings.signup_grant)
        await commit_open(session)
    await limits.succeeded(account.username_key, address)
    async with session.begin():
        await session.refresh(account)
    return RegisteredOut(
        **account_out(account).model_dump(),
        signup_grant=settings.signup_grant if granted else 0,
    )


@router.post(
    "/login",
    responses=errors.responses(
        "validation_error", "bad_credentials", "banned", "rate_limited", "busy"
    ),
)
async def login(
    body: LoginIn,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    passwords: PasswordsDep,
    limits: LoginLimitsDep,
) -> TokenPairOut:
    """Exchange a username and password for an access token and a refresh token."""
    name, address = accounts.username_key(body.username), client_address(request)
    retry_after = await limits.attempt(name, address)
    if retry_after is not None:
        raise ApiError(
            "rate_limited",
            f"too many logins; try again in {retry_after} s",
            details={"retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )
    async with session.begin():
        account = await accounts.by_username(session, body.username)
    stored = account.password_hash if account is not None else None
    good = await passwords.check_async(stored, body.password)  # also for an unknown user
    if account is None or not good:
        metrics.login_failed("bad_credentials")
        raise ApiError("bad_credentials", "the username or the password is wrong")
    await limits.succeeded(name, address)
    if account.banned:
        metrics.login_failed("banned")
        raise ApiError("banned", "this account is banned")
    new_hash = (
        await passwords.hash_async(body.password)
        if passwords.needs_rehash(account.password_hash)
        else None
    )
    async with session.begin():
        if new_hash is not None:
            account.password_hash = new_hash
        pair = await tokens.issue(session, account, settings)
    return _pair_out(pair)


@router.post(
    "/refresh",
    responses=errors.responses("validation_error", "unauthorized", "banned"),
)
async def refresh(body: RefreshIn, session: SessionDep, settings: SettingsDep) -> TokenPairOut:
    """Trade a refresh token (once) for a new access token and refresh token."""
    try:
        async with session.begin():
            account_id = await tokens.redeem(session, body.refresh_token, settings)
            account = await accounts.by_id(session, account_id)
            if account is None:
                raise ApiError("unauthorized", "the account no longer exists")
            if account.banned:
                raise ApiError("banned", "this account is banned")
            pair = await tokens.issue(session, account, settings)
    except tokens.TokenReused as reused:
        async with session.begin():
            await tokens.revoke_all(session, reused.account_id)
        raise tokens.refused_reuse() from reused
    return _pair_out(pair)
