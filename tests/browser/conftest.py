"""Browser tests: Debian's chromium driven by Playwright against a real uvicorn server.

The browser is never downloaded: `TEST_CHROMIUM` names the executable (default
/usr/bin/chromium). Set but missing, the tests fail; unset with no /usr/bin/chromium, they
skip. Each test gets its own server (admin test mode on) over a migrated SQLite file.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from app.main import create_app
from app.settings import Settings
from app.store import migrate

DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SCREENSHOTS = Path(__file__).parent / "screenshots"
PASSWORD = "correct horse battery"


def chromium_path() -> str:
    configured = os.environ.get("TEST_CHROMIUM")
    if configured:
        if not Path(configured).is_file():
            pytest.fail(f"TEST_CHROMIUM={configured} does not exist", pytrace=False)
        return configured
    if Path(DEFAULT_CHROMIUM).is_file():
        return DEFAULT_CHROMIUM
    pytest.skip(
        "no browser: install Debian's chromium (apt-get install chromium) or set TEST_CHROMIUM"
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One chromium per test module. Not per session: Playwright's sync API keeps an event
    loop running in the main thread while it is started, which the asyncio tests of later
    modules must not find."""
    path = chromium_path()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@dataclass
class Server:
    base: str
    database: Path

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=10)

    def token(self, username: str) -> dict[str, str]:
        with self.http() as http:
            pair = http.post("/auth/login", json={"username": username, "password": PASSWORD})
            assert pair.status_code == 200, pair.text
        return {"Authorization": f"Bearer {pair.json()['access_token']}"}

    def make_admin(self, username: str) -> None:
        with sqlite3.connect(self.database) as conn:
            conn.execute("UPDATE accounts SET role = 'admin' WHERE username = ?", (username,))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    chromium_path()  # skip before starting anything when there is no browser
    database = tmp_path / "browser.db"
    url = f"sqlite:///{database}"
    # Playwright's sync API keeps an event loop running in this thread: migrate in another
    migration = threading.Thread(target=migrate.upgrade, args=(url,))
    migration.start()
    migration.join()
    settings = Settings(
        database_url=url,
        jwt_secret="test-secret-" + "x" * 32,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
        test_mode=True,
    )
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning",
        ws="websockets-sansio",
    )
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    while not uv.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        threading.Event().wait(0.02)
    yield Server(f"http://127.0.0.1:{port}", database)
    uv.should_exit = True
    thread.join(10)


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
