"""The login limits (app/api/ratelimit.py) as attackers and owners meet them: guesses lock
out only the guessing address, an address trying many names and many addresses trying one
name are stopped, the owner at a usual address never is, and nodes sharing one Redis count
together. (Against a real uvicorn: test_login_edge.py.)"""

from __future__ import annotations

import httpx
import limits.aio.storage.memory
import pytest
from fastapi import FastAPI

import app.api.ratelimit
from app.main import create_app
from app.settings import Settings
from tests.api.conftest import REDIS_URL, ClientFor
from tests.api.helpers import PASSWORD, assert_error, login, register

PAIR, ADDRESS, ACCOUNT = 3, 4, 6  # attempts per name and address, per address, per name


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The API tests' settings (tests/api/conftest.py) with this module's limits."""
    return settings.model_copy(update={
        "login_attempts": PAIR, "login_address_attempts": ADDRESS,
        "login_account_attempts": ACCOUNT,
    })


class Clock:
    """Wall-clock time for the limits' memory storage and the limits module."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits.aio.storage.memory, "time", fake)
    monkeypatch.setattr(app.api.ratelimit, "time", fake)
    return fake


async def guess(client: httpx.AsyncClient, username: str) -> httpx.Response:
    return await client.post("/auth/login", json={"username": username, "password": "wrong!!"})


async def try_login(client: httpx.AsyncClient, username: str) -> httpx.Response:
    return await client.post("/auth/login", json={"username": username, "password": PASSWORD})


def assert_limited(response: httpx.Response) -> int:
    """A 429 rate_limited whose Retry-After and details agree; the seconds."""
    error = assert_error(response, 429, "rate_limited")
    retry_after = int(response.headers["Retry-After"])
    assert error["details"] == {"retry_after": retry_after} and retry_after >= 1
    return retry_after


async def test_guesses_lock_out_only_the_guessing_address(client_for: ClientFor) -> None:
    owner, guesser = client_for("10.0.0.1"), client_for("10.0.0.2")
    await register(owner, "ann")
    for _ in range(PAIR):
        assert_error(await guess(guesser, "ann"), 401, "bad_credentials")
    assert assert_limited(await try_login(guesser, "ann")) <= 300  # even the right password
    await login(owner, "ann")  # the owner, where the account was made
    await login(client_for("10.0.0.3"), "ann")  # and from an address never seen


async def test_a_slot_frees_when_the_oldest_attempt_leaves_the_window(
    client_for: ClientFor, clock: Clock
) -> None:
    await register(client_for("10.0.0.1"), "ann")
    guesser = client_for("10.0.0.2")
    for _ in range(PAIR):
        assert_error(await guess(guesser, "ann"), 401, "bad_credentials")
        clock.now += 10
    # the oldest attempt leaves the window 270 s from now: the answer is the next second
    assert assert_limited(await guess(guesser, "ann")) == 271
    clock.now += 269.5
    assert assert_limited(await guess(guesser, "ann")) == 1  # refusals took no slot
    clock.now += 1
    assert_error(await guess(guesser, "ann"), 401, "bad_credentials")
    assert assert_limited(await guess(guesser, "ann")) == 10  # the next oldest: 9.x s


async def test_a_good_login_forgives_its_addresses_mistakes(client_for: ClientFor) -> None:
    owner = client_for("10.0.0.1")
    await register(owner, "ann")
    for _ in range(PAIR - 1):
        assert_error(await guess(owner, "ann"), 401, "bad_credentials")
    await login(owner, "ann")
    for _ in range(PAIR):
        assert_error(await guess(owner, "ann"), 401, "bad_credentials")
    assert_limited(await try_login(owner, "ann"))


async def test_every_form_of_a_name_counts_as_one(client_for: ClientFor) -> None:
    await register(client_for("10.0.0.1"), "ann")
    guesser = client_for("10.0.0.2")
    for form in ("ann", "ANN", "Ａｎｎ"):
        assert_error(await guess(guesser, form), 401, "bad_credentials")
    assert_limited(await guess(guesser, "aNn"))


async def test_an_address_trying_many_names_is_stopped(client_for: ClientFor) -> None:
    owner, sprayer = client_for("10.0.0.1"), client_for("10.0.0.9")
    await register(owner, "ann")
    await register(sprayer, "mallory")
    for i in range(ADDRESS):  # names that exist or not, one guess each
        assert_error(await guess(sprayer, f"user{i}"), 401, "bad_credentials")
    assert_limited(await guess(sprayer, "nobody"))
    assert_limited(await try_login(sprayer, "ann"))
    await login(sprayer, "mallory")  # its own account, known at this address
    await login(owner, "ann")
    await login(client_for("10.0.0.10"), "ann")


async def test_many_addresses_trying_one_name_meet_a_bar_the_owner_never_does(
    client_for: ClientFor,
) -> None:
    owner = client_for("10.0.0.1")
    await register(owner, "ann")
    for i in range(ACCOUNT):
        assert_error(await guess(client_for(f"10.1.0.{i}"), "ann"), 401, "bad_credentials")
    assert_limited(await try_login(client_for("10.2.0.1"), "ann"))  # a new address waits
    for _ in range(2):
        await login(owner, "ann")  # the owner's usual address does not


async def test_an_address_stays_known_for_the_known_days_after_its_last_good_login(
    client_for: ClientFor, clock: Clock, settings: Settings
) -> None:
    owner, days = client_for("10.0.0.1"), settings.login_known_days * 86400

    async def fill_the_per_username_bar(subnet: int) -> None:
        for i in range(ACCOUNT):
            guesser = client_for(f"10.{subnet}.0.{i}")
            assert_error(await guess(guesser, "ann"), 401, "bad_credentials")

    await register(owner, "ann")
    clock.now += days - 60
    await login(owner, "ann")  # known for the days from now on
    clock.now += days - 60  # the registration's days are over, the login's are not
    await fill_the_per_username_bar(1)
    await login(owner, "ann")
    clock.now += days + 60
    await fill_the_per_username_bar(2)
    assert_limited(await try_login(owner, "ann"))


async def test_an_ipv6_subscriber_counts_as_its_64(client_for: ClientFor) -> None:
    for i in range(ADDRESS):
        response = await guess(client_for(f"2001:db8:0:1::{i + 1}"), f"user{i}")
        assert_error(response, 401, "bad_credentials")
    assert_limited(await guess(client_for("2001:db8:0:1:ffff:ffff:ffff:ffff"), "other"))
    assert_error(await guess(client_for("2001:db8:0:2::1"), "other"), 401, "bad_credentials")


# -- several nodes: one Redis --------------------------------------------------------------


async def test_two_nodes_sharing_redis_count_together(
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
        owner = client(nodes[0], "10.0.0.1")
        guessers = [client(node, "10.0.0.2") for node in nodes]
        await register(owner, "ann")
        answers = [(await guess(guessers[i % 2], "ann")).status_code for i in range(2 * PAIR)]
        assert answers == [401] * PAIR + [429] * PAIR
        await login(client(nodes[1], "10.0.0.1"), "ann")
        for http in (owner, *guessers):
            await http.aclose()
