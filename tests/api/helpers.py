"""Helpers for the API tests: the error shape, registering, logging in, making an admin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from sqlalchemy import update

from app.main import create_app
from app.settings import Settings
from app.store import house, ledger
from app.store.db import Database
from app.store.models import Account, VariantStats
from tests.api.refusals import RESPONSE_HOOKS, assert_documented

PASSWORD = "correct horse battery"


@asynccontextmanager
async def app_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app of `settings` served in this process, its lifespan started for the
    block (the database connected, the tables' registry running). Every refusal it gets is
    checked against its route's OpenAPI responses (tests/api/refusals.py)."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://test", event_hooks=RESPONSE_HOOKS
        ) as http:
            yield http


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is the one error shape with this status and code, and a code its
    route's OpenAPI responses list (tests/api/refusals.py); its `error` body."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert_documented(response)
    return dict(body["error"])


async def register(
    client: httpx.AsyncClient, username: str, password: str = PASSWORD
) -> dict[str, Any]:
    response = await client.post(
        "/auth/register", json={"username": username, "password": password}
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


async def login(
    client: httpx.AsyncClient, username: str, password: str = PASSWORD
) -> dict[str, Any]:
    response = await client.post("/auth/login", json={"username": username, "password": password})
    assert response.status_code == 200, response.text
    return dict(response.json())


def bearer(tokens: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens['access_token']}"}


async def player(client: httpx.AsyncClient, username: str) -> tuple[int, dict[str, str]]:
    """Register and log in: the account id and the auth header."""
    account = await register(client, username)
    return int(account["id"]), bearer(await login(client, username))


async def make_admin(db: Database, account_id: int) -> None:
    async with db.sessions() as s, s.begin():
        await s.execute(update(Account).where(Account.id == account_id).values(role="admin"))


async def admin(
    client: httpx.AsyncClient, db: Database, username: str = "boss"
) -> tuple[int, dict[str, str]]:
    account_id, headers = await player(client, username)
    await make_admin(db, account_id)
    return account_id, headers


async def set_stats(db: Database, account_id: int, variant: str, **counts: int) -> None:
    """Put one account's record in one variant straight into the table."""
    async with db.sessions() as s, s.begin():
        s.add(VariantStats(account_id=account_id, variant=variant, **counts))


HOUSE_FLOAT = 1_000_000


async def fund_house(db: Database, amount: int = HOUSE_FLOAT) -> None:
    """Fund the house account as an operator does (an admin adjustment with a reason), so
    that bots can be seated; the adjustment is made by the house account itself."""
    async with db.sessions() as s:
        async with s.begin():
            house_id = await house.account_id(s)
        await ledger.adjust(s, house_id, amount, "the house's float for the tests' bots",
                            admin_id=house_id)
