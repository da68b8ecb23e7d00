"""Every migration renders as SQL (`alembic upgrade head --sql`, `python -m app.store.migrate
upgrade head --sql`) for PostgreSQL and SQLite with no database, and that SQL does what the
migrations do online: applied to a fresh database (PostgreSQL with psql) it leaves the same
schema and rows as the online upgrade, its downgrade the same as the online downgrade, and
its data steps (0004's username keys, 0006's seeds both ways) turn the same rows into the
same values, or refuse as the online step does."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import make_url

from app.store import migrate
from tests.conftest import POSTGRES_URL

DIALECTS = {"postgresql": "postgresql://", "sqlite": "sqlite://"}
REVISIONS = [
    script.revision
    for script in reversed(list(ScriptDirectory.from_config(Config(
        str(migrate.ROOT / "alembic.ini"))).walk_revisions()))
]
# 0004's test names (tests/store/test_migrations.py): case forms, a fullwidth form, CJK
NAMES = ["acc1_x", "ACC1_X", "bob", "ａｃｃ１＿ｘ", "阿明哥"]
KEYS = ["acc1_x", "acc1_x#2", "bob", "acc1_x#4", "阿明哥"]
SEEDS = {"t-1": 1, "t-2": 2**63 - 1, "t-3": 80}


def _render(dialect: str, action: str, revision: str) -> str:
    return migrate.sql(DIALECTS[dialect], action, revision)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_migration_renders_as_sql_both_ways(dialect: str) -> None:
    up = _render(dialect, "upgrade", "head")
    down = _render(dialect, "downgrade", "head:base")
    steps = list(zip([""] + REVISIONS, REVISIONS, strict=False))
    assert re.findall(r"^-- Running upgrade (\S*) ?-> (\S+)$", up, re.MULTILINE) == steps
    assert re.findall(r"^-- Running downgrade (\S+) -> (\S*)$", down, re.MULTILINE) == [
        (new, old) for old, new in reversed(steps)
    ]
    for script in (up, down):  # one transaction, as the online upgrade is
        assert script.lstrip().startswith("BEGIN;") and script.rstrip().endswith("COMMIT;")


def test_the_command_prints_the_sql_and_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    def run(*words: str) -> subprocess.CompletedProcess[str]:
        env = os.environ | {"DATABASE_URL": f"sqlite:///{tmp_path / 'never.db'}"}
        command = [sys.executable, "-m", "app.store.migrate", *words]
        return subprocess.run(command, cwd=migrate.ROOT, env=env, capture_output=True,
                              text=True, check=False)

    printed = run("upgrade", "head", "--sql")
    assert printed.returncode == 0 and printed.stdout == _render("sqlite", "upgrade", "head")
    without_from = run("downgrade", "0003", "--sql")
    assert without_from.returncode == 1 and "<fromrev>:<torev>" in without_from.stderr
    assert run("upgarde").returncode == 2  # a typo is no downgrade
    assert not (tmp_path / "never.db").exists()  # no database was made or read


# --- SQLite -----------------------------------------------------------------------------


def _sqlite_dump(path: Path) -> list[str]:
    """The whole database as SQL, each statement's whitespace made one space."""
    with closing(sqlite3.connect(path)) as connection:
        return [re.sub(r"\s+", " ", line) for line in connection.iterdump()]


def _sqlite_apply(path: Path, script: str) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.executescript(script)


def test_sqlite_sql_makes_the_schema_the_online_migrations_make(tmp_path: Path) -> None:
    """At every revision, up from nothing and down from head."""
    for revision in REVISIONS:
        online, offline = tmp_path / f"on-{revision}.db", tmp_path / f"off-{revision}.db"
        migrate.upgrade(f"sqlite:///{online}", revision)
        _sqlite_apply(offline, _render("sqlite", "upgrade", revision))
        assert _sqlite_dump(offline) == _sqlite_dump(online), f"upgrade to {revision}"
    for revision in [*REVISIONS[:-1], "base"]:
        online, offline = tmp_path / f"down-on-{revision}.db", tmp_path / f"down-off-{revision}.db"
        for path in (online, offline):
            migrate.upgrade(f"sqlite:///{path}")
        migrate.downgrade(f"sqlite:///{online}", revision)
        _sqlite_apply(offline, _render("sqlite", "downgrade", f"head:{revision}"))
        assert _sqlite_dump(offline) == _sqlite_dump(online), f"downgrade to {revision}"


def _sqlite_rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.execute(query))


def _insert_names(names: list[str]) -> str:
    values = ", ".join(f"('{name}', 'x', 'player', false, 0)" for name in names)
    return f"INSERT INTO accounts (username, password_hash, role, banned, balance) VALUES {values}"


def _insert_seeds(seeds: dict[str, int] | dict[str, str]) -> str:
    values = ", ".join(
        f"('{hand}', 't', 'lishui', '{seed}', '[]', '{{}}', NULL, '[]', '{{}}', false)"
        for hand, seed in seeds.items()
    )
    return ("INSERT INTO hand_records (id, table_id, variant, seed, seats, ctx, preset, actions,"
            f" result, voided) VALUES {values}")


def test_sqlite_sql_keys_the_names_sqlite_can_and_refuses_the_rest(tmp_path: Path) -> None:
    """SQLite has no NFKC: names as the server made them (ASCII, CJK) get the keys the
    online step gives; a fullwidth one stops the script, which changes nothing."""
    path = tmp_path / "keys.db"
    migrate.upgrade(f"sqlite:///{path}", "0003")
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(_insert_names(["ACC1_Y", "acc1_y", "acc1_x", "ACC1_X", "bob", "阿明哥"]))
    script = _render("sqlite", "upgrade", "0003:head")
    _sqlite_apply(path, script)
    keys = _sqlite_rows(path, "SELECT username_key FROM accounts ORDER BY id")
    assert [key for (key,) in keys] == ["acc1_y", "acc1_y#2", "acc1_x", "acc1_x#4", "bob", "阿明哥"]

    refused = tmp_path / "refused.db"
    migrate.upgrade(f"sqlite:///{refused}", "0003")
    with closing(sqlite3.connect(refused)) as connection, connection:
        connection.execute(_insert_names(NAMES))
    before = _sqlite_dump(refused)
    with pytest.raises(sqlite3.IntegrityError, match="run 0004 with python -m app.store.migrate"):
        _sqlite_apply(refused, script)
    assert _sqlite_dump(refused) == before


def test_sqlite_sql_turns_seeds_to_hex_and_back(tmp_path: Path) -> None:
    path = tmp_path / "seeds.db"
    migrate.upgrade(f"sqlite:///{path}", "0005")
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(_insert_seeds(SEEDS))
    _sqlite_apply(path, _render("sqlite", "upgrade", "0005:0006"))
    hexes = {hand: seed.to_bytes(8, "big").hex() for hand, seed in SEEDS.items()}
    assert dict(_sqlite_rows(path, "SELECT id, seed FROM hand_records")) == hexes
    _sqlite_apply(path, _render("sqlite", "downgrade", "0006:0005"))
    assert dict(_sqlite_rows(path, "SELECT id, seed FROM hand_records")) == SEEDS

    _sqlite_apply(path, _render("sqlite", "upgrade", "0005:0006"))
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(_insert_seeds({"t-4": "ab" * 32}))
    before = _sqlite_dump(path)
    with pytest.raises(sqlite3.IntegrityError, match="wider than a BIGINT"):
        _sqlite_apply(path, _render("sqlite", "downgrade", "0006:0005"))
    assert _sqlite_dump(path) == before


# --- PostgreSQL -------------------------------------------------------------------------


def _tool(name: str) -> str:
    found = shutil.which(name)
    assert found, f"TEST_DATABASE_URL is set but {name} is missing: install postgresql-client"
    return found


@pytest.fixture
def scratch() -> Iterator[Callable[[], str]]:
    """Fresh PostgreSQL databases (unique names, on TEST_DATABASE_URL's server), dropped
    after the test: a maker of their URLs."""
    if POSTGRES_URL is None:
        pytest.skip("PostgreSQL: TEST_DATABASE_URL is not set")
    server = make_url(POSTGRES_URL)
    made: list[str] = []

    async def run(statement: str) -> None:
        connection = await asyncpg.connect(POSTGRES_URL)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    def make() -> str:
        name = f"mj_sql_{uuid.uuid4().hex[:12]}"
        asyncio.run(run(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return server.set(database=name).render_as_string(hide_password=False)

    yield make
    for name in made:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _psql(url: str, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_tool("psql"), "--no-psqlrc", "--quiet", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", "-"],
        input=script, capture_output=True, text=True, check=False,
    )


def _apply(url: str, script: str) -> None:
    applied = _psql(url, script)
    assert applied.returncode == 0, applied.stderr


def _pg_dump(url: str) -> str:
    """The whole database (schema and rows) as pg_dump writes it, without its comments."""
    dumped = subprocess.run([_tool("pg_dump"), "--no-owner", "--no-privileges", "-d", url],
                            capture_output=True, text=True, check=True)
    return "\n".join(line for line in dumped.stdout.splitlines()
                     if not line.startswith("--") and not line.startswith("\\restrict")
                     and not line.startswith("\\unrestrict"))


def _query(url: str, query: str) -> list[tuple[Any, ...]]:
    async def run() -> list[tuple[Any, ...]]:
        connection = await asyncpg.connect(url)
        try:
            return [tuple(row) for row in await connection.fetch(query)]
        finally:
            await connection.close()

    return asyncio.run(run())


def test_postgresql_sql_applied_with_psql_matches_the_online_migrations(
    scratch: Callable[[], str],
) -> None:
    """Up to head, down to 0003 (through every data step's reverse), down to nothing."""
    online, offline = scratch(), scratch()
    migrate.upgrade(online)
    _apply(offline, _render("postgresql", "upgrade", "head"))
    assert _pg_dump(offline) == _pg_dump(online)
    assert "CREATE TABLE public.match_levels" in _pg_dump(online)

    migrate.downgrade(online, "0003")
    _apply(offline, _render("postgresql", "downgrade", "head:0003"))
    assert _pg_dump(offline) == _pg_dump(online)
    migrate.downgrade(online, "base")
    _apply(offline, _render("postgresql", "downgrade", "0003:base"))
    assert _pg_dump(offline) == _pg_dump(online)


def test_postgresql_sql_keys_names_and_turns_seeds_as_online(
    scratch: Callable[[], str],
) -> None:
    """0004 keys every name the online step keys (NFKC by the database), 0006 turns seeds
    to hex and back, and refuses a seed wider than a BIGINT, changing nothing."""
    url = scratch()
    migrate.upgrade(url, "0003")
    _apply(url, _insert_names(NAMES))
    _apply(url, _render("postgresql", "upgrade", "0003:0005"))
    assert [key for (key,) in _query(url, "SELECT username_key FROM accounts ORDER BY id")] == KEYS
    _apply(url, _insert_seeds(SEEDS))
    _apply(url, _render("postgresql", "upgrade", "0005:head"))
    hexes = {hand: seed.to_bytes(8, "big").hex() for hand, seed in SEEDS.items()}
    assert dict(_query(url, "SELECT id, seed FROM hand_records")) == hexes

    _apply(url, _insert_seeds({"t-4": "ab" * 32}))
    before = _pg_dump(url)
    refused = _psql(url, _render("postgresql", "downgrade", "head:0005"))
    assert refused.returncode != 0 and "wider than a BIGINT" in refused.stderr
    assert _pg_dump(url) == before
    _apply(url, "DELETE FROM hand_records WHERE id = 't-4'")
    _apply(url, _render("postgresql", "downgrade", "head:0005"))
    assert dict(_query(url, "SELECT id, seed FROM hand_records")) == SEEDS


def test_postgresql_sql_refuses_a_name_it_cannot_key(scratch: Callable[[], str]) -> None:
    """A name outside what the server ever made (here a Latin letter with an accent, whose
    key only Python's casefolding gives) stops the script; nothing is changed."""
    url = scratch()
    migrate.upgrade(url, "0003")
    _apply(url, _insert_names(["ÉCOLE", "bob"]))
    before = _pg_dump(url)
    refused = _psql(url, _render("postgresql", "upgrade", "0003:head"))
    assert refused.returncode != 0 and "run 0004 with python -m app.store.migrate" in refused.stderr
    assert _pg_dump(url) == before
