"""Alembic environment: the URL is the app's DATABASE_URL (or `-x url=...`, or the
`sqlalchemy.url` a caller put in the config); migrations run on the asyncio engine."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.ext.asyncio import create_async_engine

from app.settings import get_settings
from app.store.db import async_url, private_sqlite_file
from app.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    return async_url(url or get_settings().database_url)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _online() -> None:
    private_sqlite_file(_url())  # a new SQLite file: its owner's alone (app/store/db.py)
    engine = create_async_engine(_url())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():  # `--sql`: the script, in one transaction on SQLite too
    context.configure(
        url=_url(), target_metadata=target_metadata, literal_binds=True, transactional_ddl=True
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_online())
