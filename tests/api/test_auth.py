"""Registration, login and tokens (注册 / 登录 / 令牌); the login limits are in
test_login_limits.py, usernames in test_usernames.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import jwt
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from sqlalchemy import select, update

from app.api.passwords import Passwords
from app.settings import Settings
from app.store.db import Database
from app.store.models import Account, LedgerEntry, RefreshToken
from tests.api.helpers import PASSWORD, assert_error, bearer, login, register


async def test_register_creates_a_player_with_the_signup_grant(
    client: httpx.AsyncClient, db: Database, settings: Settings
) -> None:
    body = await register(client, "阿明哥_01")
    assert body["username"] == "阿明哥_01" and body["role"] == "player"
    assert body["balance"] == settings.signup_grant == 10000 and body["title"] == "生手"
    assert body["banned"] is False and "password_hash" not in body
    async with db.sessions() as s:
        rows = (await s.execute(select(LedgerEntry))).scalars().all()
        stored = (await s.execute(select(Account.password_hash))).scalar_one()
    assert [(r.reason, r.delta, r.idempotency_key) for r in rows] == [
        ("signup_grant", 10000, f"signup:{body['id']}")
    ]
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


async def test_a_taken_username_is_refused(client: httpx.AsyncClient, db: Database) -> None:
    await register(client, "ann")
    again = await client.post(
        "/auth/register", json={"username": "ann", "password": "another password"}
    )
    assert_error(again, 409, "duplicate_username")
    async with db.sessions() as s:
        assert len((await s.execute(select(Account))).scalars().all()) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"username": "ab", "password": PASSWORD},  # too short
        {"username": "a" * 33, "password": PASSWORD},  # too long
        {"username": "ann bob", "password": PASSWORD},  # a space
        {"username": "ann-bob", "password": PASSWORD},  # a dash
        {"username": "ann😀", "password": PASSWORD},  # not CJK
        {"username": "阿明", "password": PASSWORD},  # two characters
        {"username": "ａｂ", "password": PASSWORD},  # two characters, fullwidth
        {"username": "ann－bob", "password": PASSWORD},  # a fullwidth dash
        {"username": "Ａ" * 33, "password": PASSWORD},  # 33 characters, fullwidth
        {"username": "㍿" * 9, "password": PASSWORD},  # 9 characters, 36 in NFKC (株式会社)
        {"username": "ann", "password": "short"},
        {"username": "ann", "password": "x" * 129},
        {"username": "ann"},
        {"username": 123, "password": PASSWORD},
    ],
)
async def test_invalid_registrations_answer_the_validation_shape(
    client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    error = assert_error(await client.post("/auth/register", json=body), 422, "validation_error")
    assert isinstance(error["details"], list) and error["details"][0]["loc"][0] == "body"


async def test_login_good_bad_and_unknown(client: httpx.AsyncClient, settings: Settings) -> None:
    account = await register(client, "ann")
    tokens = await login(client, "ann")
    assert tokens["token_type"] == "bearer"
    assert tokens["expires_in"] == settings.access_token_minutes * 60
    claims = jwt.decode(tokens["access_token"], settings.jwt_secret, algorithms=["HS256"])
    assert claims["sub"] == str(account["id"]) and claims["role"] == "player"
    assert claims["type"] == "access"
    wrong = await client.post("/auth/login", json={"username": "ann", "password": "wrong password"})
    unknown = await client.post("/auth/login", json={"username": "nobody", "password": PASSWORD})
    bad = assert_error(wrong, 401, "bad_credentials")
    assert assert_error(unknown, 401, "bad_credentials") == bad


async def test_unknown_users_and_wrong_passwords_do_the_same_work(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a timed assertion: both paths run exactly one Argon2 verify."""
    await register(client, "ann")
    calls: list[str] = []
    real_verify = PasswordHasher.verify

    def counting_verify(self: PasswordHasher, hash: str, password: str) -> bool:
        calls.append(hash)
        return real_verify(self, hash, password)

    monkeypatch.setattr(PasswordHasher, "verify", counting_verify)
    for username in ("ann", "nobody", "ann"):
        password = PASSWORD if len(calls) == 2 else "wrong password"
        await client.post("/auth/login", json={"username": username, "password": password})
    assert len(calls) == 3 and all(h.startswith("$argon2id$") for h in calls)
    assert calls[0] == calls[2] != calls[1]  # the unknown user is checked against the dummy


async def test_a_good_login_rehashes_an_old_hash(
    client: httpx.AsyncClient, app: FastAPI, db: Database, settings: Settings
) -> None:
    await register(client, "ann")
    app.state.passwords = Passwords.from_settings(
        settings.model_copy(update={"argon2_time_cost": 2})
    )
    await login(client, "ann")
    async with db.sessions() as s:
        stored = (await s.execute(select(Account.password_hash))).scalar_one()
    assert ",t=2," in stored
    await login(client, "ann")


async def test_the_default_limit_comes_from_settings(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    await register(client, "ann")
    for _ in range(settings.login_attempts):
        bad = await client.post(
            "/auth/login", json={"username": "ann", "password": "wrong password"}
        )
        assert_error(bad, 401, "bad_credentials")
    limited = await client.post("/auth/login", json={"username": "ann", "password": PASSWORD})
    assert_error(limited, 429, "rate_limited")


async def test_refresh_rotates_and_refuses_reuse(client: httpx.AsyncClient, db: Database) -> None:
    await register(client, "ann")
    first = await login(client, "ann")
    second = (
        await client.post("/auth/refresh", json={"refresh_token": first["refresh_token"]})
    ).json()
    assert second["refresh_token"] != first["refresh_token"]
    assert (await client.get("/me", headers=bearer(second))).status_code == 200
    reused = await client.post("/auth/refresh", json={"refresh_token": first["refresh_token"]})
    assert_error(reused, 401, "unauthorized")
    # the reuse revoked the whole family: the newer token is refused too
    assert_error(
        await client.post("/auth/refresh", json={"refresh_token": second["refresh_token"]}),
        401,
        "unauthorized",
    )
    async with db.sessions() as s:
        rows = (await s.execute(select(RefreshToken))).scalars().all()
    assert len(rows) == 2 and all(r.revoked_at is not None for r in rows)


@pytest.mark.parametrize("token", ["", "not-a-token"])
async def test_garbage_refresh_tokens_are_refused(client: httpx.AsyncClient, token: str) -> None:
    response = await client.post("/auth/refresh", json={"refresh_token": token})
    assert_error(
        response, 422 if not token else 401, "validation_error" if not token else "unauthorized"
    )


async def test_an_expired_refresh_token_is_refused(client: httpx.AsyncClient, db: Database) -> None:
    await register(client, "ann")
    tokens = await login(client, "ann")
    async with db.sessions() as s, s.begin():
        await s.execute(
            update(RefreshToken).values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    refused = await client.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    assert_error(refused, 401, "unauthorized")


async def test_an_access_token_is_not_a_refresh_token(client: httpx.AsyncClient) -> None:
    await register(client, "ann")
    tokens = await login(client, "ann")
    wrong = await client.post("/auth/refresh", json={"refresh_token": tokens["access_token"]})
    assert_error(wrong, 401, "unauthorized")
    as_access = await client.get(
        "/me", headers={"Authorization": f"Bearer {tokens['refresh_token']}"}
    )
    assert_error(as_access, 401, "unauthorized")


async def test_missing_bad_and_expired_access_tokens(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    account = await register(client, "ann")
    assert_error(await client.get("/me"), 401, "unauthorized")
    assert_error(
        await client.get("/me", headers={"Authorization": "Bearer nonsense"}), 401, "unauthorized"
    )
    claims = {"sub": str(account["id"]), "role": "player", "type": "access"}
    expired = jwt.encode(
        {**claims, "exp": datetime.now(UTC) - timedelta(minutes=1)},
        settings.jwt_secret,
        algorithm="HS256",
    )
    response = await client.get("/me", headers={"Authorization": f"Bearer {expired}"})
    assert_error(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"] == "Bearer"
    forged = jwt.encode(
        {**claims, "exp": datetime.now(UTC) + timedelta(minutes=1)},
        "another-secret-" + "y" * 32,
        algorithm="HS256",
    )
    assert_error(
        await client.get("/me", headers={"Authorization": f"Bearer {forged}"}), 401, "unauthorized"
    )
    fresh = jwt.encode(
        {**claims, "exp": datetime.now(UTC) + timedelta(minutes=1)},
        settings.jwt_secret,
        algorithm="HS256",
    )
    assert (
        await client.get("/me", headers={"Authorization": f"Bearer {fresh}"})
    ).status_code == 200


async def test_cjk_names_beyond_the_basic_block_are_welcome(client: httpx.AsyncClient) -> None:
    body = await register(client, "𠮷野家")
    assert body["username"] == "𠮷野家"
    await login(client, "𠮷野家")


async def test_two_registrations_of_one_name_at_once(
    client: httpx.AsyncClient, db: Database
) -> None:
    body = {"username": "ann", "password": PASSWORD}
    answers = await asyncio.gather(*(client.post("/auth/register", json=body) for _ in range(2)))
    assert sorted(r.status_code for r in answers) == [201, 409]
    assert_error(next(r for r in answers if r.status_code == 409), 409, "duplicate_username")
    async with db.sessions() as s:
        assert len((await s.execute(select(LedgerEntry))).scalars().all()) == 1


async def test_one_refresh_token_used_twice_at_once(client: httpx.AsyncClient) -> None:
    await register(client, "ann")
    token = (await login(client, "ann"))["refresh_token"]
    answers = await asyncio.gather(
        *(client.post("/auth/refresh", json={"refresh_token": token}) for _ in range(2))
    )
    assert sorted(r.status_code for r in answers) == [200, 401]
    assert_error(next(r for r in answers if r.status_code == 401), 401, "unauthorized")
