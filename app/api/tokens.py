"""Access and refresh tokens (令牌), as PyJWT HS256 tokens signed with settings.jwt_secret.

Keys:
- every token names the key that signed it in its header (`kid`, app/ops/secret.py
  `key_id`); it is checked with that key alone, found by its id among JWT_SECRET and
  JWT_OLD_SECRETS (a PyJWT key set). An id that names no key is refused like any bad token;
- a token without `kid` (signed before key ids) is checked with JWT_SECRET, then with each
  old secret, so that the upgrade to key ids logs nobody out;
- the algorithm is ours (HS256, fixed on every key): a token's header never chooses it.

Rules:
- an access token carries `sub` (the account id, as a string), `role`, `type: "access"`,
  `iat` and `exp` (settings.access_token_minutes); it is not stored;
- a refresh token carries `sub`, `type: "refresh"`, `jti` and `exp`
  (settings.refresh_token_days); its `jti` is a row of `refresh_tokens`;
- refreshing rotates: the presented token's row is revoked (one atomic UPDATE, so two
  concurrent uses cannot both succeed) and a new pair is issued;
- a refresh token that is unknown, expired or already revoked is refused (`unauthorized`);
  presenting a revoked one (a reuse: it may have been stolen) raises `TokenReused`, and the
  caller then revokes every live refresh token of that account (`revoke_all`);
- banning an account revokes all its refresh tokens (`revoke_all`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import jwt
from jwt import PyJWK, PyJWKSet
from jwt.utils import base64url_encode
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.errors import ApiError
from app.ops.secret import token_keys
from app.settings import Settings
from app.store.models import Account, RefreshToken

ALGORITHM = "HS256"
ACCESS = "access"
REFRESH = "refresh"


class TokenReused(Exception):
    """A refresh token was presented again after its rotation (or after a revocation)."""

    def __init__(self, account_id: int) -> None:
        super().__init__(f"refresh token of account {account_id} reused")
        self.account_id = account_id


def refused_reuse() -> ApiError:
    return _unauthorized("the refresh token was already used or revoked")


@dataclass(frozen=True)
class TokenPair:
    access_token: str
    refresh_token: str
    expires_in: int  # seconds the access token lives


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _unauthorized(message: str = "the token is missing, invalid or expired") -> ApiError:
    return ApiError("unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def encode(claims: dict[str, Any], settings: Settings) -> str:
    key = _keys(settings).keys[0]  # the signing key
    return jwt.encode(claims, key.key, algorithm=ALGORITHM, headers={"kid": key.key_id})


def _keys(settings: Settings) -> PyJWKSet:
    """The keys that check tokens, the signing key (JWT_SECRET) first; never empty
    (`create_app` resolves the secret: app/ops/secret.py)."""
    if not settings.jwt_secret:
        raise RuntimeError("no token secret: build the app with create_app")
    return _key_set(settings.jwt_secret, tuple(settings.jwt_old_secrets))


@lru_cache(maxsize=16)
def _key_set(current: str, old: tuple[str, ...]) -> PyJWKSet:
    keys = [
        {"kty": "oct", "alg": ALGORITHM, "kid": kid, "k": base64url_encode(secret.encode()).decode()}
        for kid, secret in token_keys(current, list(old)).items()
    ]
    key_set = PyJWKSet(keys)
    if len(key_set.keys) != len(keys):  # PyJWT skips a key it cannot use
        raise RuntimeError("a token secret is not a usable HS256 key")
    return key_set


def _candidates(token: str, key_set: PyJWKSet) -> list[PyJWK]:
    """The keys that may have signed `token`: the one its `kid` names (none if it names no
    key of ours), or every key for a token signed before key ids."""
    kid = jwt.get_unverified_header(token).get("kid")
    if kid is None:
        return list(key_set)
    try:
        return [key_set[kid]]
    except KeyError:
        return []


def decode(token: str, kind: str, settings: Settings) -> dict[str, Any]:
    """The claims of a valid, unexpired token of `kind`; `unauthorized` otherwise."""
    try:
        for key in _candidates(token, _keys(settings)):
            try:
                claims: dict[str, Any] = jwt.decode(
                    token, key.key, algorithms=[ALGORITHM],
                    options={"require": ["exp", "sub", "type"]},
                )
            except jwt.InvalidSignatureError:
                continue  # a token without `kid`: perhaps an older key's
            if claims.get("type") != kind or not str(claims["sub"]).isdigit():
                raise _unauthorized()
            return claims
    except jwt.PyJWTError as exc:
        raise _unauthorized() from exc
    raise _unauthorized()


def access_token(account: Account, settings: Settings) -> str:
    now = _now()
    return encode(
        {
            "sub": str(account.id),
            "role": account.role,
            "type": ACCESS,
            "iat": now,
            "exp": now + timedelta(minutes=settings.access_token_minutes),
        },
        settings,
    )


def account_id_of(token: str, settings: Settings) -> int:
    """The account id an access token speaks for (`unauthorized` if it is not valid)."""
    return int(decode(token, ACCESS, settings)["sub"])


async def issue(session: AsyncSession, account: Account, settings: Settings) -> TokenPair:
    """A new access token and a new stored refresh token, inside the caller's transaction."""
    now = _now()
    jti = secrets.token_urlsafe(32)
    expires_at = now + timedelta(days=settings.refresh_token_days)
    session.add(RefreshToken(id=jti, account_id=account.id, expires_at=expires_at))
    await session.flush()
    refresh = encode(
        {"sub": str(account.id), "type": REFRESH, "jti": jti, "iat": now, "exp": expires_at},
        settings,
    )
    return TokenPair(
        access_token=access_token(account, settings),
        refresh_token=refresh,
        expires_in=settings.access_token_minutes * 60,
    )


async def revoke_all(session: AsyncSession, account_id: int) -> int:
    """Revoke every live refresh token of an account; the number revoked."""
    result = await session.execute(
        update(RefreshToken)
        .where(RefreshToken.account_id == account_id, RefreshToken.revoked_at.is_(None))
        .values(revoked_at=_now())
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def redeem(session: AsyncSession, token: str, settings: Settings) -> int:
    """Revoke a refresh token for its rotation and return its account id, inside the caller's
    transaction; `unauthorized` if it is not a refresh token we issued or it has expired,
    `TokenReused` if it was revoked already."""
    claims = decode(token, REFRESH, settings)
    jti = claims.get("jti")
    if not isinstance(jti, str):
        raise _unauthorized()
    row = (
        await session.execute(select(RefreshToken).where(RefreshToken.id == jti))
    ).scalar_one_or_none()
    if row is None or str(row.account_id) != str(claims["sub"]):
        raise _unauthorized()
    if _aware(row.expires_at) <= _now():
        raise _unauthorized("the refresh token has expired")
    used = await session.execute(
        update(RefreshToken)
        .where(RefreshToken.id == jti, RefreshToken.revoked_at.is_(None))
        .values(revoked_at=_now())
    )
    if (used.rowcount or 0) != 1:  # type: ignore[attr-defined]
        raise TokenReused(row.account_id)
    return row.account_id
