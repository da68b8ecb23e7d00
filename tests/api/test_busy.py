"""A SQLite file locked past the busy timeout, or a database pool with no connection free in
time, is a 503 `busy` with Retry-After, not a 500, as the document says of every route that
reads the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Self

import httpx
from fastapi import FastAPI
from sqlalchemy import create_engine, text
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import create_async_engine

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import assert_error, player


async def test_a_locked_database_answers_busy(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the file

    app = create_app(Settings(database_url=f"sqlite:///{path}", jwt_secret="s" * 40))

    @app.post("/_write")
    def write() -> None:
        engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})
        try:
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO t VALUES (1)"))
        finally:
            engine.dispose()

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await http.post("/_write")
    holder.close()
    assert_error(response, 503, "busy")
    assert response.headers["retry-after"] == "1"


async def test_a_pool_with_no_free_connection_answers_busy(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}", jwt_secret="s" * 40))
    engine = create_async_engine(
        f"sqlite+aiosqlite:///{tmp_path / 'b.db'}", pool_size=1, max_overflow=0, pool_timeout=0.05
    )

    @app.post("/_read")
    async def read() -> None:
        async with engine.connect(), engine.connect():  # the second waits for the first
            pass

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await http.post("/_read")
    await engine.dispose()
    assert_error(response, 503, "busy")
    assert response.headers["retry-after"] == "1"


class _NoConnection:
    """A session factory whose sessions find no connection free (as a full pool would)."""

    def __call__(self) -> _NoConnection:
        return self

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        return None

    def begin(self) -> _NoConnection:
        raise PoolTimeout("QueuePool limit reached")


async def test_routes_that_read_the_database_answer_busy_as_documented(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    """Public and signed-in routes alike: the document lists the 503 they answer."""
    _, headers = await player(client, "ann")
    document = (await client.get("/openapi.json")).json()["paths"]
    app.state.db.sessions = _NoConnection()
    for path, route, params in (
        ("/me", "/me", {}),
        ("/accounts/ann", "/accounts/{username}", {}),
        ("/leaderboards/silver", "/leaderboards/silver", {"limit": 5}),
        ("/tables", "/tables", {}),
    ):
        answer = await client.get(path, params=params, headers=headers)
        assert_error(answer, 503, "busy")
        assert "busy" in document[route]["get"]["responses"]["503"]["description"], route
    assert (await client.get("/health")).status_code == 200  # nothing to read there
