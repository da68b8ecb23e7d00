"""The Alembic migrations, on every backend: empty -> head -> base -> head, and the schema at
head is the one the models describe."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from app.store import migrate
from app.store.db import async_url
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
