"""A SQLite database holds the accounts' password hashes: the file, and the -wal and -shm
files beside it, are readable and writable by their owner only (0600), however the server
first makes it: migrating a new database, or opening one."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from app.store import migrate
from app.store.db import Database


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most machines give a service (022): what SQLite made was then 0644."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _modes(folder: Path) -> dict[str, int]:
    return {path.name: stat.S_IMODE(path.stat().st_mode) for path in folder.iterdir()}


async def _write(url: str) -> Database:
    """The database opened as the server opens it, with a write (its WAL in use)."""
    db = Database.connect(url)
    async with db.sessions() as session, session.begin():
        await session.execute(text("CREATE TABLE IF NOT EXISTS probe (n INTEGER)"))
        await session.execute(text("INSERT INTO probe VALUES (1)"))
    return db


@pytest.mark.usefixtures("usual_umask")
def test_a_new_database_migrated_then_served_is_its_owners_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mahjong.db'}"
    migrate.upgrade(url)  # as a server's first start does (its own event loop)

    async def served() -> dict[str, int]:
        db = await _write(url)
        try:
            return _modes(tmp_path)
        finally:
            await db.close()

    modes = asyncio.run(served())
    assert {"mahjong.db", "mahjong.db-wal", "mahjong.db-shm"} <= modes.keys(), modes
    assert set(modes.values()) == {0o600}, {name: oct(mode) for name, mode in modes.items()}


@pytest.mark.usefixtures("usual_umask")
async def test_a_new_database_opened_without_migrating_is_its_owners_alone(
    tmp_path: Path,
) -> None:
    db = await _write(f"sqlite:///{tmp_path / 'bare.db'}")
    try:
        modes = _modes(tmp_path)
        assert "bare.db-wal" in modes, modes
        assert set(modes.values()) == {0o600}, {name: oct(mode) for name, mode in modes.items()}
    finally:
        await db.close()


@pytest.mark.usefixtures("usual_umask")
async def test_an_existing_database_keeps_the_mode_its_operator_gave_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "shared.db"
    path.touch(mode=0o640)  # a backup group may read it: the operator's choice
    os.chmod(path, 0o640)
    db = await _write(f"sqlite:///{path}")
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
        assert "can be read by other users" in caplog.text
    finally:
        await db.close()
