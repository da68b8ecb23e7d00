"""Quick match in the browser (issue 17): the lobby's quick-start card offers a button per
level with its stake and minimum (greyed, with the reason, when the player's silver is
short); queued, a panel shows the seconds waited, the place and the bots' countdown, and
cancels; the page opens the table when the server's `seated` arrives (three other players
queue over REST with their sockets open), and after the wait the bots fill a table. Each
test saves screenshots (a phone and a desktop, Chinese and English) to look at."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from websockets.sync.client import ClientConnection, connect

from app.tables.matching import QUEUE_REASONS
from tests.browser.conftest import PASSWORD, chromium_path
from tests.browser.ui import register
from tests.live import live_server, sqlite_settings
from tests.wsclient import hello

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SIZES = {"phone": PHONE, "desktop": DESKTOP}


@pytest.fixture
def fill_seconds() -> float:
    return 600.0


@pytest.fixture
def base(tmp_path: Path, fill_seconds: float) -> Iterator[str]:
    chromium_path()
    settings = sqlite_settings(tmp_path / "quick.db", quick_match_fill_seconds=fill_seconds)
    with live_server(settings) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    contexts: list[BrowserContext] = []
    problems: list[str] = []

    def make(viewport: dict[str, int] = DESKTOP) -> Page:
        context = browser.new_context(viewport=viewport, locale="zh-CN")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("console", lambda m: problems.append(m.text)
                if "Content Security Policy" in m.text else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not problems


def _set_lang(page: Page, lang: str) -> None:
    if page.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
        page.click("#lang")
    page.wait_for_selector(f'main[data-rendered$=":{lang}"]')


def _no_horizontal_overflow(page: Page) -> None:
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def _queued_player(base: str, name: str, sockets: ExitStack) -> ClientConnection:
    """A player who signs up, opens a table socket (kept open by `sockets`) and queues for
    丽水 初级场 over REST."""
    with httpx.Client(base_url=base, timeout=30) as http:
        body = {"username": name, "password": PASSWORD}
        assert http.post("/auth/register", json=body).status_code == 201
        token = http.post("/auth/login", json=body).json()["access_token"]
        ws = sockets.enter_context(connect(base.replace("http", "ws") + "/ws"))
        ws.send(hello(token))
        ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "n"}))
        while json.loads(ws.recv(10))["type"] != "pong":  # the socket is taken
            pass
        queued = http.post("/quick-match", json={"variant": "lishui", "level": "beginner"},
                           headers={"Authorization": f"Bearer {token}"})
        assert queued.status_code == 202, queued.text
    return ws


def test_the_quick_start_card_queues_shows_the_wait_and_opens_the_table(
    new_page: Callable[..., Page], base: str, screenshots: Path
) -> None:
    page = new_page(PHONE)
    register(page, base, "快手甲")
    page.wait_for_selector("#quick-levels .quick-start[data-level='advanced']")
    # 10,000 silver: the 高级场 (20,000) is greyed and says why; the others are open
    assert page.is_disabled(".quick-start[data-level='advanced']")
    assert "20,000" in page.inner_text(".quick-level[data-level='advanced'] .quick-note")
    assert page.is_enabled(".quick-start[data-level='beginner']")
    assert "底注 1" in page.inner_text(".quick-start[data-level='beginner']")
    page.select_option("#quick-variant", "lishui")
    page.click(".quick-start[data-level='beginner']")
    page.wait_for_selector("#quick-panel:not([hidden]) #quick-bots")
    assert "丽水" in page.inner_text("#quick-panel") and "初级场" in page.inner_text("#quick-panel")
    assert "第 1 位" in page.inner_text("#quick-place")
    assert "秒后由机器人补满空位" in page.inner_text("#quick-bots")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        for lang in ("zh", "en"):
            _set_lang(page, lang)  # the lobby is drawn again: the card finds the queue
            page.wait_for_selector("#quick-panel:not([hidden]) #quick-bots")
            _no_horizontal_overflow(page)
            page.screenshot(path=str(screenshots / f"quick-queued-{size}-{lang}.png"),
                            full_page=True)
    assert "Finding a table" in page.inner_text("#quick-panel")
    assert "place 1 of 1" in page.inner_text("#quick-place")
    page.wait_for_function(
        "() => document.querySelector('#quick-waited').textContent.match(/waited [1-9]/)")

    page.click("#quick-cancel")
    page.wait_for_selector("#quick-panel[hidden]", state="attached")
    page.screenshot(path=str(screenshots / "quick-card-desktop-en.png"), full_page=True)
    page.click(".quick-start[data-level='beginner']")
    page.wait_for_selector("#quick-panel:not([hidden])")
    # three more players queue with their sockets open: the four are seated, and the page
    # opens the table when its `seated` arrives
    with ExitStack() as sockets:
        for name in ("second", "third", "fourth"):
            _queued_player(base, name, sockets)
        page.wait_for_selector("#table-view")
        assert page.url.split("#/table/")[1] == page.get_attribute("#table-view", "data-table")


@pytest.mark.parametrize("fill_seconds", [1.0])
def test_bots_fill_the_table_after_the_wait(
    new_page: Callable[..., Page], base: str, screenshots: Path
) -> None:
    page = new_page(DESKTOP)
    register(page, base, "等不及")
    page.wait_for_selector(".quick-start[data-level='beginner']")
    page.select_option("#quick-variant", "huzhou")
    page.click(".quick-start[data-level='beginner']")
    page.wait_for_selector("#table-view")
    page.wait_for_selector("#my-hand button.tile")  # the hand is dealt
    page.screenshot(path=str(screenshots / "quick-bots-table-desktop-zh.png"))
    table_id = page.get_attribute("#table-view", "data-table")
    with httpx.Client(base_url=base, timeout=10) as http:
        token = http.post("/auth/login", json={"username": "等不及", "password": PASSWORD}
                          ).json()["access_token"]
        seats = http.get(f"/tables/{table_id}/players",
                         headers={"Authorization": f"Bearer {token}"}).json()["seats"]
    assert [s["bot"] for s in seats].count(True) == 3
    assert "等不及" in [s["name"] for s in seats]


REASONS = """async (keys) => {
  const { setLang, t } = await import("/static/js/i18n.js");
  const out = {};
  for (const lang of ["zh", "en"]) {
    setLang(lang);
    out[lang] = Object.fromEntries(keys.map((k) => [k, t(k)]));
  }
  setLang("zh");
  return out;
}"""


def test_every_queue_reason_reads_in_both_languages(client_page: Page) -> None:
    """Why a player left a queue, or why no bots came yet (app/tables/matching.py), in a
    sentence of each language."""
    keys = [f"qm_reason_{reason}" for reason in QUEUE_REASONS]
    shown = client_page.evaluate(REASONS, keys)
    for key in keys:
        zh, en = shown["zh"][key], shown["en"][key]
        assert key not in (zh, en) and zh != en, key
        assert any("\u4e00" <= c <= "\u9fff" for c in zh), (key, zh)
        assert not any("\u4e00" <= c <= "\u9fff" for c in en), (key, en)
