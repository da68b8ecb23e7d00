"""The login limits against a real uvicorn (tests/live.py, the deployed configuration), with
client addresses given by X-Forwarded-For (loopback is a trusted proxy by default): an
address's guesses never lock the owner out from another, and a hundred concurrent guesses
for one name get no more verdicts than the limit allows."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.settings import Settings
from tests.api.helpers import PASSWORD, assert_error
from tests.live import live_server, sqlite_settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sqlite_settings(tmp_path / "edge.db")


@pytest.fixture
def server(settings: Settings) -> Iterator[str]:
    with live_server(settings) as (port, _):
        yield f"http://127.0.0.1:{port}"


def at(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


async def test_the_owner_logs_in_after_another_addresses_guesses(
    server: str, settings: Settings
) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        made = await http.post(
            "/auth/register", json={"username": "owner1", "password": PASSWORD},
            headers=at("198.51.100.7"),
        )
        assert made.status_code == 201, made.text
        for _ in range(2 * settings.login_attempts):
            await http.post(
                "/auth/login", json={"username": "owner1", "password": "a wrong guess"},
                headers=at("203.0.113.66"),
            )
        refused = await http.post(
            "/auth/login", json={"username": "owner1", "password": PASSWORD},
            headers=at("203.0.113.66"),
        )
        assert_error(refused, 429, "rate_limited")
        for address in ("198.51.100.7", "192.0.2.1"):  # the usual address and a new one
            answer = await http.post(
                "/auth/login", json={"username": "OWNER1", "password": PASSWORD},
                headers=at(address),
            )
            assert answer.status_code == 200, answer.text


async def test_a_hundred_concurrent_guesses_get_at_most_the_limits_verdicts(
    server: str, settings: Settings
) -> None:
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(base_url=server, timeout=60, limits=limits) as http:
        made = await http.post("/auth/register", json={"username": "target", "password": PASSWORD})
        assert made.status_code == 201, made.text
        answers = await asyncio.gather(
            *(
                http.post(
                    "/auth/login", json={"username": "target", "password": f"guess {i}"},
                    headers=at("203.0.113.9"),
                )
                for i in range(100)
            )
        )
    codes = Counter(answer.json()["error"]["code"] for answer in answers)
    verdicts = settings.login_attempts
    assert codes == {"bad_credentials": verdicts, "rate_limited": 100 - verdicts}
