"""A real uvicorn server in a thread of the test process, over a migrated SQLite file with a
funded house account (its bots need silver): what the end-to-end, browser and metrics tests
play against."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from app.loadtest import servers
from app.loadtest.servers import free_port
from app.main import create_app
from app.ops.serve import uvicorn_config
from app.settings import Settings
from app.store import migrate
from app.store.db import Database
from tests.api.helpers import fund_house

# the tests register from 127.0.0.1 far more accounts than any address may (and each
# expects its signup grant): the registration bars (app/api/signups.py) are out of their
# way unless a test is about them and sets its own
UNBARRED_SIGNUPS: dict[str, Any] = {name.lower(): 1_000_000 for name in servers.UNBARRED_SIGNUPS}
# the tests call from 127.0.0.1 far more often than any player: the request limits
# (app/api/throttle.py) are out of their way unless a test is about them and sets its own
UNTHROTTLED: dict[str, Any] = {
    "requests_per_address": 1_000_000,
    "requests_per_account": 1_000_000,
    "ws_connects_per_address": 1_000_000,
    "ws_connects_per_account": 1_000_000,
} | UNBARRED_SIGNUPS


def sqlite_settings(database: Path, **options: Any) -> Settings:
    """Settings for a test server on `database`: cheap Argon2 so that sign-ups are quick,
    no request limit in the way (`options` may set them)."""
    return Settings(
        database_url=f"sqlite:///{database}",
        jwt_secret="test-secret-" + "x" * 32,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
        **(UNTHROTTLED | options),
    )


def _fund_house(database_url: str) -> None:
    """The operator's first step before bots can play: fund the house account."""

    async def fund() -> None:
        db = Database.connect(database_url)
        try:
            await fund_house(db)
        finally:
            await db.close()

    asyncio.run(fund())


_TEMPLATE: list[Path] = []  # this process's migrated and funded SQLite file, made once
_TEMPLATE_LOCK = threading.Lock()


def _prepare(database_url: str) -> None:
    """Migrate `database_url` and fund its house. A new SQLite file is copied from a file
    migrated and funded once per test process (SQLite's backup API: a consistent copy),
    which saves the migrations' 0.3-0.7 s at each of the suite's hundreds of servers; the
    migrations themselves are tested in tests/store."""
    prefix = "sqlite:///"
    target = Path(database_url.removeprefix(prefix)) if database_url.startswith(prefix) else None
    if target is None or target.exists():
        migrate.upgrade(database_url)
        _fund_house(database_url)
        return
    with _TEMPLATE_LOCK:
        if not _TEMPLATE:
            template = Path(tempfile.mkdtemp(prefix="live-template-")) / "template.db"
            migrate.upgrade(prefix + str(template))
            _fund_house(prefix + str(template))
            _TEMPLATE.append(template)
    target.touch(mode=0o600)  # as the migrations make it: password hashes are in it
    with closing(sqlite3.connect(_TEMPLATE[0])) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)


def _listener(send_buffer: int) -> socket.socket:
    """A loopback listening socket whose connections get a kernel send buffer of about
    `send_buffer` bytes (Linux: an accepted socket inherits it from the listener)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    listener.bind(("127.0.0.1", 0))
    return listener


@contextmanager
def live_server(
    settings: Settings, send_buffer: int | None = None, **overrides: Any
) -> Iterator[tuple[int, FastAPI]]:
    """Migrate, serve `settings` on a free loopback port until the block ends; the port
    and the app. `overrides` replace options of the uvicorn configuration. Migrations run
    in their own thread: Playwright's sync API keeps an event loop running in the test's
    thread, which Alembic's async engine must not find. `send_buffer` shrinks the kernel's
    send buffer of each connection (on loopback it grows to megabytes): a test of a client
    that stops reading then fills it in kilobytes."""
    with ThreadPoolExecutor(1) as migration:
        migration.submit(_prepare, settings.database_url).result()
    app = create_app(settings)
    listener = _listener(send_buffer) if send_buffer is not None else None
    port = listener.getsockname()[1] if listener is not None else free_port()
    config = uvicorn_config(
        app, settings, host="127.0.0.1", port=port, log_level="warning", log_config=None,
        **overrides,
    )
    server = uvicorn.Server(config)
    sockets = [listener] if listener is not None else None
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        threading.Event().wait(0.02)
    try:
        yield port, app
    finally:
        server.should_exit = True
        thread.join(10)
