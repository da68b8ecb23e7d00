"""Rotating the token signing key (docs/operating.md, "Rotating the signing key"): every token
names its key by a key id; a token of the previous key still works over REST and in the
WebSocket hello while that key is in JWT_OLD_SECRETS, and stops working once it is removed;
new tokens, refreshed ones too, are signed with the new key; a token naming no key of ours,
or forging one, is refused like any bad token; tokens signed before key ids (no `kid`) keep
working through the upgrade. Each step is a real server on one database, as an operator
restarts one with new settings."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
import websockets
from jwt.warnings import InsecureKeyLengthWarning

from app.main import create_app
from app.ops.secret import key_id
from app.settings import Settings
from tests.api.helpers import assert_error
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

PASSWORD = "correct horse battery"
TOKENS = ("access_token", "refresh_token")


def _settings(database: Path, current: str, *old: str) -> Settings:
    return sqlite_settings(database).model_copy(
        update={"jwt_secret": current, "jwt_old_secrets": list(old)}
    )


@contextmanager
def _node(database: Path, current: str, *old: str) -> Iterator[str]:
    """A real server signing with `current` and also accepting `old`; its host:port."""
    with live_server(_settings(database, current, *old)) as (port, _):
        yield f"127.0.0.1:{port}"


@asynccontextmanager
async def _http(address: str) -> AsyncIterator[httpx.AsyncClient]:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
        yield http


async def _login(http: httpx.AsyncClient, name: str) -> dict[str, Any]:
    body = {"username": name, "password": PASSWORD}
    answer = await http.post("/auth/login", json=body)
    if answer.status_code == 401:  # not yet registered
        assert (await http.post("/auth/register", json=body)).status_code == 201
        answer = await http.post("/auth/login", json=body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _kid(token: str) -> str | None:
    kid = jwt.get_unverified_header(token).get("kid")
    return None if kid is None else str(kid)


async def _me(http: httpx.AsyncClient, access: str) -> httpx.Response:
    return await http.get("/me", headers={"Authorization": f"Bearer {access}"})


async def _accepted(http: httpx.AsyncClient, address: str, access: str) -> bool:
    """Whether this access token works over REST and in the WebSocket hello (the two must
    agree): REST answers 200, or the one error shape with `unauthorized`; a socket that said
    hello with it answers a ping, or is closed with 4401."""
    rest = await _me(http, access)
    if rest.status_code != 200:
        assert_error(rest, 401, "unauthorized")
        assert rest.headers["WWW-Authenticate"] == "Bearer"
    ws = await open_socket(address, access)
    try:
        await ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "k"}))
        hello_ok = json.loads(await ws.recv()) == {"v": 2, "type": "pong", "nonce": "k"}
    except websockets.ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 4401, closed
        hello_ok = False
    finally:
        await ws.close()
    assert hello_ok == (rest.status_code == 200), (rest.status_code, hello_ok)
    return hello_ok


async def _refresh(http: httpx.AsyncClient, refresh_token: str) -> httpx.Response:
    return await http.post("/auth/refresh", json={"refresh_token": refresh_token})


def _before_key_ids(token: str, secret: str) -> str:
    """`token` as the server signed it before key ids: the same claims, no `kid`."""
    claims = jwt.decode(token, options={"verify_signature": False})
    return jwt.encode(claims, secret, algorithm="HS256")


def _access_claims(account_id: int) -> dict[str, Any]:
    now = int(time.time())
    return {"sub": str(account_id), "role": "admin", "type": "access", "iat": now,
            "exp": now + 600}


def _hs512(claims: dict[str, Any], secret: str) -> str:
    """A token signed with `secret` under its key id, by HS512 (not the server's HS256)."""
    with warnings.catch_warnings():  # PyJWT: the key is short for HS512, which is no matter
        warnings.simplefilter("ignore", InsecureKeyLengthWarning)
        return jwt.encode(claims, secret, algorithm="HS512", headers={"kid": key_id(secret)})


def _new_secret() -> str:
    return secrets.token_urlsafe(32)


async def test_a_rotated_key_keeps_its_tokens_until_it_is_removed(tmp_path: Path) -> None:
    database = tmp_path / "rotation.db"
    key_a, key_b = _new_secret(), _new_secret()

    with _node(database, key_a) as address:  # before the rotation: A signs
        async with _http(address) as http:
            ann = await _login(http, "ann")
            spare = await _login(http, "ann")  # a second refresh token, never used under B
            ann_id = int((await _me(http, ann["access_token"])).json()["id"])
    assert _kid(ann["access_token"]) == _kid(ann["refresh_token"]) == key_id(key_a)

    with _node(database, key_b, key_a) as address:  # rotated: B signs, A is old
        async with _http(address) as http:
            assert await _accepted(http, address, ann["access_token"])
            bob = await _login(http, "bob")
            assert _kid(bob["access_token"]) == _kid(bob["refresh_token"]) == key_id(key_b)
            assert await _accepted(http, address, bob["access_token"])

            renewed = await _refresh(http, ann["refresh_token"])  # A's refresh token: B's pair
            assert renewed.status_code == 200, renewed.text
            ann = dict(renewed.json())
            assert _kid(ann["access_token"]) == _kid(ann["refresh_token"]) == key_id(key_b)
            assert await _accepted(http, address, ann["access_token"])

            # forgeries: an unknown id (signed with a stranger's key, or even with B),
            # another key under B's id, B's id with another algorithm
            stranger = _new_secret()
            claims = _access_claims(ann_id)
            forged = [
                jwt.encode(claims, stranger, headers={"kid": key_id(stranger)}),
                jwt.encode(claims, key_b, headers={"kid": "0123456789abcdef"}),
                jwt.encode(claims, key_b, headers={"kid": key_b}),
                jwt.encode(claims, stranger, headers={"kid": key_id(key_b)}),
                _hs512(claims, key_b),
                jwt.encode(claims, None, algorithm="none", headers={"kid": key_id(key_b)}),
            ]
            for token in forged:
                assert not await _accepted(http, address, token), jwt.get_unverified_header(token)
            forged_refresh = jwt.encode(
                {**jwt.decode(spare["refresh_token"], options={"verify_signature": False})},
                stranger, headers={"kid": key_id(stranger)},
            )
            assert_error(await _refresh(http, forged_refresh), 401, "unauthorized")

    with _node(database, key_b) as address:  # A removed: its tokens are refused
        async with _http(address) as http:
            assert not await _accepted(http, address, spare["access_token"])
            assert_error(await _refresh(http, spare["refresh_token"]), 401, "unauthorized")
            assert await _accepted(http, address, ann["access_token"])  # B's still work
            assert await _accepted(http, address, bob["access_token"])


async def test_tokens_signed_before_key_ids_work_through_the_upgrade(tmp_path: Path) -> None:
    """A token without `kid` (what the server signed before key ids) is checked with the
    current key, then the old ones; its refresh token trades for a pair with a key id."""
    database = tmp_path / "upgrade.db"
    key_a, key_b = _new_secret(), _new_secret()
    with _node(database, key_a) as address:
        async with _http(address) as http:
            issued = await _login(http, "ann")
    legacy = {name: _before_key_ids(issued[name], key_a) for name in TOKENS}
    spare = {name: _before_key_ids(token, key_a) for name, token in legacy.items()}
    assert _kid(legacy["access_token"]) is None

    with _node(database, key_a) as address:  # the upgrade itself: one key, old tokens
        async with _http(address) as http:
            assert await _accepted(http, address, legacy["access_token"])
            renewed = await _refresh(http, legacy["refresh_token"])
            assert renewed.status_code == 200, renewed.text
            assert _kid(renewed.json()["access_token"]) == key_id(key_a)

    with _node(database, key_b, key_a) as address:  # then a rotation: A is old
        async with _http(address) as http:
            assert await _accepted(http, address, spare["access_token"])
            stranger = _before_key_ids(issued["access_token"], _new_secret())
            assert not await _accepted(http, address, stranger)

    with _node(database, key_b) as address:  # A removed
        async with _http(address) as http:
            assert not await _accepted(http, address, spare["access_token"])


async def test_nodes_rolled_one_by_one_accept_each_others_tokens(tmp_path: Path) -> None:
    """A cluster rolled node by node learns the new key first as an old (accepted) one, so
    while some nodes sign with A and others with B every node accepts both."""
    database = tmp_path / "rolling.db"
    key_a, key_b = _new_secret(), _new_secret()
    with _node(database, key_a, key_b) as first, _node(database, key_b, key_a) as second:
        async with _http(first) as one, _http(second) as two:
            by_first = await _login(one, "ann")
            by_second = await _login(two, "bob")
            assert _kid(by_first["access_token"]) == key_id(key_a)
            assert _kid(by_second["access_token"]) == key_id(key_b)
            for http, address in ((one, first), (two, second)):
                assert await _accepted(http, address, by_first["access_token"])
                assert await _accepted(http, address, by_second["access_token"])
            renewed = await _refresh(one, by_second["refresh_token"])
            assert renewed.status_code == 200 and _kid(renewed.json()["access_token"]) == (
                key_id(key_a)
            )


def test_old_secrets_as_an_operator_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = _new_secret(), _new_secret()
    monkeypatch.setenv("JWT_OLD_SECRETS", f" {one} , {two},")
    assert Settings().jwt_old_secrets == [one, two]
    monkeypatch.setenv("JWT_OLD_SECRETS", json.dumps([one, "with,a comma " + two]))
    assert Settings().jwt_old_secrets == [one, "with,a comma " + two]
    monkeypatch.setenv("JWT_OLD_SECRETS", "")
    assert Settings().jwt_old_secrets == []
    monkeypatch.setenv("JWT_OLD_SECRETS", f"{one},too-short")
    with pytest.raises(ValueError, match="jwt_old_secrets"):
        Settings()


def test_a_key_id_names_its_key_without_telling_it() -> None:
    """The id is the same wherever the secret is (every node derives it alike), differs
    between secrets, and holds nothing of the secret."""
    key = _new_secret()
    kid = key_id(key)
    assert kid == key_id(key) and len(kid) == 16 and int(kid, 16) >= 0
    assert kid not in key and key[:8] not in kid
    assert len({key_id(_new_secret()) for _ in range(100)} | {kid}) == 101


def test_the_start_logs_the_key_ids_and_never_a_secret(caplog: pytest.LogCaptureFixture) -> None:
    """What an operator checks after a restart: which key signs, which old ones are still
    accepted, by id."""
    key_a, key_b = _new_secret(), _new_secret()
    with caplog.at_level(logging.INFO, logger="app.ops.secret"):
        create_app(Settings(database_url="sqlite://", jwt_secret=key_b, jwt_old_secrets=[key_a]))
    told = [r.getMessage() for r in caplog.records if r.name == "app.ops.secret"]
    expected = (
        f"tokens are signed with key id {key_id(key_b)}; old keys still accepted: {key_id(key_a)}"
    )
    assert told == [expected]
    assert key_a not in caplog.text and key_b not in caplog.text
