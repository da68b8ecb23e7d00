"""Registrations and the signup grant (app/api/signups.py) as a farmer, a household and an
owner meet them: registrations are barred per address (an IPv6 /64) an hour and a day and
per IPv6 /48 a day, refused before a password is hashed and with nothing made; a taken
name costs nothing; the grant goes to a day's first few registrations of an address (and
of a /48), the others are made without silver and told so; no bar keeps an owner from
logging in; nodes sharing one Redis count together."""

from __future__ import annotations

import httpx
import limits.aio.storage.memory
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

import app.api.signups
from app.main import create_app
from app.settings import Settings
from app.store.db import Database
from app.store.models import Account, LedgerEntry
from tests.api.conftest import REDIS_URL, ClientFor
from tests.api.helpers import PASSWORD, assert_error, login, register

HOUR, DAY, NETWORK_DAY = 3, 5, 7  # registrations per address an hour and a day, per /48 a day
GRANTS, NETWORK_GRANTS = 2, 4  # signup grants per address a day, per /48 a day
GRANT = 10000


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The API tests' settings (tests/api/conftest.py) with this module's bars."""
    return settings.model_copy(update={
        "register_per_address_hour": HOUR, "register_per_address_day": DAY,
        "register_per_network_day": NETWORK_DAY, "signup_grants_per_address_day": GRANTS,
        "signup_grants_per_network_day": NETWORK_GRANTS,
    })


class Clock:
    """Wall-clock time for the limits' memory storage and the signups module."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits.aio.storage.memory, "time", fake)
    monkeypatch.setattr(app.api.signups, "time", fake)
    return fake


async def attempt(client: httpx.AsyncClient, username: str) -> httpx.Response:
    return await client.post("/auth/register", json={"username": username, "password": PASSWORD})


async def login_attempt(client: httpx.AsyncClient, username: str) -> httpx.Response:
    return await client.post("/auth/login", json={"username": username, "password": PASSWORD})


def assert_limited(response: httpx.Response) -> int:
    """A 429 rate_limited whose Retry-After and details agree; the seconds."""
    error = assert_error(response, 429, "rate_limited")
    retry_after = int(response.headers["Retry-After"])
    assert error["details"] == {"retry_after": retry_after} and retry_after >= 1
    return retry_after


async def accounts(db: Database) -> list[str]:
    async with db.sessions() as s:
        return sorted((await s.execute(select(Account.username))).scalars().all())


async def signup_rows(db: Database) -> dict[int, int]:
    """The signup grants in the ledger: account id -> silver."""
    async with db.sessions() as s:
        rows = (await s.execute(
            select(LedgerEntry).where(LedgerEntry.reason == "signup_grant")
        )).scalars().all()
    return {row.account_id: row.delta for row in rows}


async def assert_ledger_sums_to_balances(db: Database) -> None:
    async with db.sessions() as s:
        sums = {account: int(total) for account, total in (await s.execute(
            select(LedgerEntry.account_id, func.sum(LedgerEntry.delta))
            .group_by(LedgerEntry.account_id)
        )).all()}
        balances = {account: balance for account, balance in (await s.execute(
            select(Account.id, Account.balance)
        )).all()}
    assert balances == {account: sums.get(account, 0) for account in balances}


# -- the registration bars -------------------------------------------------------------------


async def test_an_address_over_its_hourly_bar_is_refused_before_any_hash_and_makes_nothing(
    client_for: ClientFor, app: FastAPI, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[str] = []
    real_hash = app.state.passwords.hash_async

    async def counting_hash(password: str) -> str:
        hashed.append(password)
        return str(await real_hash(password))

    monkeypatch.setattr(app.state.passwords, "hash_async", counting_hash)
    farm = client_for("203.0.113.7")
    for i in range(HOUR):
        await register(farm, f"farm{i}")
    assert assert_limited(await attempt(farm, "farm9")) <= 3600
    assert assert_limited(await attempt(client_for("::ffff:203.0.113.7"), "farm9"))  # mapped
    assert len(hashed) == HOUR
    assert await accounts(db) == ["farm0", "farm1", "farm2"]
    assert_error(await login_attempt(farm, "farm9"), 401, "bad_credentials")
    await register(client_for("203.0.113.8"), "neighbour")  # another address: its own bars


async def test_the_day_bar_outlasts_the_hour_and_frees_after_a_day(
    client_for: ClientFor, clock: Clock
) -> None:
    farm = client_for("203.0.113.7")
    for i in range(HOUR):
        await register(farm, f"farm{i}")
    assert assert_limited(await attempt(farm, "late")) == 3601  # the hour's oldest, +1 s
    clock.now += 3601
    for i in range(HOUR, DAY):
        await register(farm, f"farm{i}")
    # the hour has room again, the day has none until its first registration leaves it
    assert assert_limited(await attempt(farm, "late")) == 86400 - 3601 + 1
    clock.now += 86400 - 3600
    await register(farm, "late")


async def test_the_addresses_of_one_ipv6_64_share_its_bars(client_for: ClientFor) -> None:
    for i in range(HOUR):
        await register(client_for(f"2001:db8:0:1::{i + 1}"), f"host{i}")
    assert_limited(await attempt(client_for("2001:db8:0:1:ffff:ffff:ffff:ffff"), "host9"))
    await register(client_for("2001:db8:0:2::1"), "host9")  # another /64 of the same /48


async def test_an_ipv6_48_has_a_wider_day_bar(client_for: ClientFor) -> None:
    """A subscriber given a /48 holds 65,536 /64s: together they make at most
    `NETWORK_DAY` accounts a day."""
    for i in range(NETWORK_DAY):
        await register(client_for(f"2001:db8:0:{i + 1:x}::1"), f"site{i}")
    assert_limited(await attempt(client_for("2001:db8:0:ff00::1"), "site9"))
    await register(client_for("2001:db8:1::1"), "site9")  # another /48


async def test_a_taken_name_costs_the_address_nothing(client_for: ClientFor) -> None:
    await register(client_for("203.0.113.1"), "ann")
    clumsy = client_for("203.0.113.9")
    for form in ("ann", "ANN", "Ａｎｎ", "ann", "aNn"):
        assert_error(await attempt(clumsy, form), 409, "duplicate_username")
    for i in range(HOUR):
        await register(clumsy, f"clumsy{i}")
    assert_limited(await attempt(clumsy, "ann"))  # over the bar, a taken name is refused too


async def test_no_registration_bar_keeps_an_owner_from_logging_in(client_for: ClientFor) -> None:
    home = client_for("203.0.113.7")
    await register(home, "ann")
    for i in range(HOUR - 1):
        await register(home, f"kid{i}")
    assert_limited(await attempt(home, "more"))
    await login(home, "ann")  # the owner, at the address whose bar is full
    await login(client_for("2001:db8:0:1::1"), "ann")  # and elsewhere


# -- the signup grant ------------------------------------------------------------------------


async def test_the_grant_goes_to_an_addresses_first_registrations_of_the_day(
    client_for: ClientFor, db: Database, clock: Clock
) -> None:
    farm = client_for("203.0.113.7")
    made = [await register(farm, f"farm{i}") for i in range(HOUR)]
    assert [(a["balance"], a["signup_grant"]) for a in made] == (
        [(GRANT, GRANT)] * GRANTS + [(0, 0)] * (HOUR - GRANTS))
    assert made[-1]["title"] == "菜鸟"
    assert await signup_rows(db) == {a["id"]: GRANT for a in made[:GRANTS]}
    tokens = await login(farm, "farm2")  # the account works, without silver
    me = await farm.get("/me", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert me.status_code == 200 and me.json()["balance"] == 0
    clock.now += 86400 + 1  # a new day: grants again
    again = await register(farm, "nextday")
    assert again["balance"] == again["signup_grant"] == GRANT
    await assert_ledger_sums_to_balances(db)


async def test_an_ipv6_48_shares_a_day_of_grants(client_for: ClientFor, db: Database) -> None:
    made = [
        await register(client_for(f"2001:db8:0:{i + 1:x}::1"), f"site{i}")
        for i in range(NETWORK_GRANTS + 1)
    ]
    assert [a["signup_grant"] for a in made] == [GRANT] * NETWORK_GRANTS + [0]
    assert (await register(client_for("2001:db8:1::1"), "other"))["signup_grant"] == GRANT
    assert sum((await signup_rows(db)).values()) == (NETWORK_GRANTS + 1) * GRANT
    await assert_ledger_sums_to_balances(db)


async def test_no_grant_at_all_when_turned_off(settings: Settings, db: Database) -> None:
    off = create_app(settings.model_copy(update={"signup_grants_per_address_day": 0}))
    async with off.router.lifespan_context(off):
        transport = httpx.ASGITransport(app=off, client=("203.0.113.7", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            account = await register(http, "ann")
    assert account["balance"] == account["signup_grant"] == 0
    assert await signup_rows(db) == {}


async def test_a_failing_storage_refuses_the_registration(
    app: FastAPI, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bars fail closed: with their storage gone nothing is made (500)."""

    async def unreachable(*_: object, **__: object) -> bool:
        raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(app.state.signup_limits.window, "test", unreachable)
    transport = httpx.ASGITransport(
        app=app, client=("203.0.113.7", 40000), raise_app_exceptions=False
    )
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert_error(await attempt(http, "ann"), 500, "internal_error")
    assert await accounts(db) == []


# -- several nodes: one Redis ----------------------------------------------------------------


async def test_two_nodes_sharing_redis_count_registrations_and_grants_together(
    settings: Settings, redis_prefix: str
) -> None:
    assert REDIS_URL is not None
    shared = settings.model_copy(update={"redis_url": REDIS_URL, "redis_prefix": redis_prefix})
    nodes = [create_app(shared.model_copy(update={"node_id": name})) for name in "ab"]

    def client(node: FastAPI, address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=node, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url="http://test")

    async with (
        nodes[0].router.lifespan_context(nodes[0]),
        nodes[1].router.lifespan_context(nodes[1]),
    ):
        farms = [client(node, "2001:db8:0:1::1") for node in nodes]
        made = [await register(farms[i % 2], f"farm{i}") for i in range(HOUR)]
        assert [a["signup_grant"] for a in made] == [GRANT] * GRANTS + [0] * (HOUR - GRANTS)
        for farm in farms:
            assert_limited(await attempt(farm, "farm9"))
        for http in farms:
            await http.aclose()
