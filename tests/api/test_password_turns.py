"""At most settings.password_hashes_at_once Argon2 runs at once in a process, whatever the
number of logins and registrations; one that waits too long for a turn answers 503 busy
(app/api/passwords.py). Observed by wrapping the hasher, not by timing."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI

from app.settings import Settings
from tests.api.conftest import ClientFor
from tests.api.helpers import PASSWORD, assert_error, register


class WatchedHasher(PasswordHasher):
    """Counts the hashes and verifies running at once; each lasts until `release` is set
    (or briefly, so that concurrent ones overlap)."""

    def __init__(self, hold: float = 0.05) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.hold = hold
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def _watch(self) -> None:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.release.wait(self.hold)

    def _done(self) -> None:
        with self.lock:
            self.running -= 1

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self._watch()
        try:
            return super().hash(password, salt=salt)
        finally:
            self._done()

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self._watch()
        try:
            return super().verify(hash, password)
        finally:
            self._done()


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The API tests' settings (tests/api/conftest.py) with this module's limits."""
    return settings.model_copy(update={"password_hashes_at_once": 2, "password_wait_seconds": 30})


async def test_hashes_in_flight_never_exceed_the_setting(
    app: FastAPI, client_for: ClientFor, settings: Settings
) -> None:
    watched = WatchedHasher()
    app.state.passwords.hasher = watched
    client = client_for("10.0.0.1")
    registrations = [
        client.post("/auth/register", json={"username": f"user{i}", "password": PASSWORD})
        for i in range(10)
    ]
    assert {r.status_code for r in await asyncio.gather(*registrations)} == {201}
    logins = [
        client_for(f"10.0.1.{i}").post(
            "/auth/login", json={"username": f"user{i % 10}", "password": PASSWORD}
        )
        for i in range(20)
    ]
    assert {r.status_code for r in await asyncio.gather(*logins)} == {200}
    assert watched.most == settings.password_hashes_at_once


async def test_no_turn_in_time_answers_busy(
    app: FastAPI, client: httpx.AsyncClient, settings: Settings
) -> None:
    await register(client, "ann")
    watched = WatchedHasher(hold=30)  # the hashes hold their turns until released
    app.state.passwords.hasher = watched
    app.state.passwords.wait_seconds = 0.2
    holders = [
        asyncio.create_task(
            client.post("/auth/login", json={"username": "ann", "password": PASSWORD})
        )
        for _ in range(settings.password_hashes_at_once)
    ]
    while watched.running < settings.password_hashes_at_once:
        await asyncio.sleep(0.01)
    for late in (
        await client.post("/auth/login", json={"username": "ann", "password": PASSWORD}),
        await client.post("/auth/register", json={"username": "bob", "password": PASSWORD}),
    ):
        assert_error(late, 503, "busy")
        assert late.headers["Retry-After"] == "1"
    watched.release.set()
    assert [r.status_code for r in await asyncio.gather(*holders)] == [200, 200]
    assert watched.most == settings.password_hashes_at_once
