"""The Alembic migrations, on every backend: empty -> head -> base -> head, and the schema at
head is the one the models describe."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from app.store import accounts, migrate
from app.store.db import Database, async_url
from app.store.models import Base
from tests.conftest import empty_database_url

TABLES = {
    "accounts", "ledger", "variant_stats", "refresh_tokens", "audit_log", "hand_records",
    "disconnects",
}


def _inspect(url: str) -> tuple[set[str], list[Any]]:
    """The database's tables (without Alembic's own) and its differences from the models."""

    def look(connection: Any) -> tuple[set[str], list[Any]]:
        tables = set(inspect(connection).get_table_names()) - {"alembic_version"}
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        return tables, diff

    async def run() -> tuple[set[str], list[Any]]:
        engine = create_async_engine(async_url(url))
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(look)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def test_upgrade_downgrade_and_upgrade_again(backend: str, tmp_path: Path) -> None:
    url = empty_database_url(backend, tmp_path)
    assert _inspect(url)[0] == set()

    migrate.upgrade(url)
    tables, diff = _inspect(url)
    assert TABLES <= tables
    assert tables == set(Base.metadata.tables)
    assert diff == [], f"the models and the migrations differ: {diff}"

    migrate.downgrade(url)
    assert _inspect(url)[0] == set()

    migrate.upgrade(url)
    tables, diff = _inspect(url)
    assert tables == set(Base.metadata.tables) and diff == []


def _rows(url: str, *statements: str) -> list[Any]:
    """Run `statements` (the last one a query) in one transaction; the query's rows."""

    async def run() -> list[Any]:
        engine = create_async_engine(async_url(url))
        try:
            async with engine.begin() as connection:
                for statement in statements[:-1]:
                    await connection.execute(text(statement))
                return list((await connection.execute(text(statements[-1]))).all())
        finally:
            await engine.dispose()

    return asyncio.run(run())


def test_usernames_that_differ_in_case_or_form_all_survive_the_key(
    backend: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """0004: names made before the key that are one name now (the old rules let `ACC1_X`
    in after `acc1_x`) keep their accounts; the oldest keeps the key, and each later one
    can log in as NAME#ID."""
    url = empty_database_url(backend, tmp_path)
    migrate.upgrade(url, "0003")
    names = ["acc1_x", "ACC1_X", "bob", "ａｃｃ１＿ｘ", "阿明哥"]
    values = ", ".join(f"('{name}', 'x', 'player', false, 0)" for name in names)
    _rows(
        url,
        f"INSERT INTO accounts (username, password_hash, role, banned, balance) VALUES {values}",
        "SELECT 1",
    )

    with caplog.at_level(logging.WARNING, logger="migrations"):
        migrate.upgrade(url)
    told = [r.getMessage() for r in caplog.records if r.name.startswith("migrations")]
    assert len(told) == 2 and "'ACC1_X#2'" in told[0] and "'ａｃｃ１＿ｘ#4'" in told[1]
    rows = _rows(url, "SELECT id, username, username_key FROM accounts ORDER BY id")
    assert [tuple(r) for r in rows] == [
        (1, "acc1_x", "acc1_x"),
        (2, "ACC1_X", "acc1_x#2"),
        (3, "bob", "bob"),
        (4, "ａｃｃ１＿ｘ", "acc1_x#4"),
        (5, "阿明哥", "阿明哥"),
    ]
    assert _inspect(url)[1] == []

    async def look_up(name: str) -> int | None:
        db = Database.connect(url)
        try:
            async with db.sessions() as session, session.begin():
                found = await accounts.by_username(session, name)
                return None if found is None else found.id
        finally:
            await db.close()

    assert [asyncio.run(look_up(n)) for n in ("ACC1_X", "ACC1_X#2", "Ａｃｃ１＿ｘ#4", "BOB")] == [
        1, 2, 4, 3
    ]
    with pytest.raises(IntegrityError):
        _rows(
            url,
            "INSERT INTO accounts (username, username_key, password_hash, role, banned, balance)"
            " VALUES ('Bob', 'bob', 'x', 'player', false, 0)",
            "SELECT 1",
        )


def test_hand_seeds_stored_as_ints_become_their_8_byte_hex_and_replay_alike(
    backend: str, tmp_path: Path
) -> None:
    """0006: a hand stored when seeds were 63-bit ints keeps its seed as the hex of its
    8-byte form, which seeds the same RNG (the hand replays as it did); down again, the
    int comes back, and a 32-byte seed refuses the downgrade."""
    url = empty_database_url(backend, tmp_path)
    migrate.upgrade(url, "0004")
    seeds = {"t-1": 1, "t-2": 2**63 - 1, "t-3": 80}
    values = ", ".join(
        f"('{hand}', 't', 'lishui', {seed}, '[]', '{{}}', NULL, '[]', '{{}}', false)"
        for hand, seed in seeds.items()
    )
    insert = (
        "INSERT INTO hand_records (id, table_id, variant, seed, seats, ctx, preset, actions,"
        f" result, voided) VALUES {values}"
    )
    _rows(url, insert, "SELECT 1")

    migrate.upgrade(url)
    rows = dict(_rows(url, "SELECT id, seed FROM hand_records"))
    assert rows == {hand: seed.to_bytes(8, "big").hex() for hand, seed in seeds.items()}
    assert all(int.from_bytes(bytes.fromhex(rows[h]), "big") == s for h, s in seeds.items())
    assert _inspect(url)[1] == []

    migrate.downgrade(url, "0004")
    assert dict(_rows(url, "SELECT id, seed FROM hand_records")) == seeds
    migrate.upgrade(url)
    _rows(url, "INSERT INTO hand_records (id, table_id, variant, seed, seats, ctx, preset, "
          f"actions, result, voided) VALUES ('t-4', 't', 'lishui', '{'ab' * 32}', '[]', '{{}}', "
          "NULL, '[]', '{}', false)", "SELECT 1")
    with pytest.raises(RuntimeError, match="wider than a BIGINT"):
        migrate.downgrade(url, "0004")
