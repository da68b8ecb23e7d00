"""Browser tests: Debian's chromium driven by Playwright against a real uvicorn server.

The browser is never downloaded: `TEST_CHROMIUM` names the executable (default
/usr/bin/chromium). Set but missing, the tests fail; unset with no /usr/bin/chromium, they
skip. Each test gets its own server (admin test mode on) over a migrated SQLite file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.live import live_server, sqlite_settings

if TYPE_CHECKING:  # playwright is imported when a browser is there (see `browser`)
    from playwright.sync_api import Browser, BrowserContext, Page

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


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    chromium_path()  # skip before starting anything when there is no browser
    database = tmp_path / "browser.db"
    with live_server(sqlite_settings(database, test_mode=True)) as (port, _):
        yield Server(f"http://127.0.0.1:{port}", database)


@pytest.fixture
def client_page(browser: Browser, server: Server) -> Iterator[Page]:
    """The server's client page, open in a browser context of its own (for tests that run
    the client's modules in it)."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.base + "/")
    yield page
    context.close()


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def context_for(browser: Browser) -> Iterator[Callable[..., Page]]:
    """Pages at a viewport, each in a browser context of its own (a browser set to Chinese
    unless `locale` says otherwise), as many as a test asks. The console is printed (shown
    for a failed test); the test fails if a page threw or broke the server's
    Content-Security-Policy."""
    contexts: list[BrowserContext] = []
    problems: list[str] = []

    def note(text: str, problem: bool) -> None:
        print(text)
        if problem:
            problems.append(text)

    def make(viewport: dict[str, int], locale: str = "zh-CN") -> Page:
        context = browser.new_context(viewport=viewport, locale=locale)  # type: ignore[arg-type]
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("console", lambda m: note(f"console.{m.type}: {m.text}",
                                          "Content Security Policy" in m.text))
        page.on("pageerror", lambda e: note(f"page error: {e}", True))
        return page

    yield make
    for context in contexts:
        context.close()
    assert problems == []
