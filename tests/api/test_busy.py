"""A SQLite file locked past the busy timeout is a 503 `busy` with Retry-After, not a 500."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import assert_error


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
