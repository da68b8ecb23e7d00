"""Opening the client as a player on a slow phone network does: the first visit downloads the
files compressed; a reload asks only whether the page changed (If-None-Match, 304) and takes
every module and the stylesheet from the browser's cache; the page opens in the browser's
language unless the player chose one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import CDPSession, Page

from tests.browser.conftest import Server

DESKTOP = {"width": 1366, "height": 900}


@dataclass
class Fetch:
    url: str
    sent: dict[str, str] = field(default_factory=dict)  # the request's headers on the wire
    status: int | None = None  # the status on the wire (None: no answer came over it)
    received: dict[str, str] = field(default_factory=dict)
    wire_bytes: float = 0
    body_bytes: float = 0
    cached: bool = False  # from the memory or disk cache


class Network:
    """What a page loads, as DevTools sees it on the wire."""

    def __init__(self, cdp: CDPSession) -> None:
        self.fetches: dict[str, Fetch] = {}
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.requestWillBeSentExtraInfo", self._sent_headers)
        cdp.on("Network.responseReceivedExtraInfo", self._received_headers)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.dataReceived", self._data)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.requestServedFromCache", self._from_cache)

    def _fetch(self, event: dict[str, Any]) -> Fetch:
        return self.fetches.setdefault(event["requestId"], Fetch(""))

    def _sent(self, e: dict[str, Any]) -> None:
        self._fetch(e).url = e["request"]["url"]

    def _sent_headers(self, e: dict[str, Any]) -> None:
        self._fetch(e).sent = {k.lower(): v for k, v in e["headers"].items()}

    def _received_headers(self, e: dict[str, Any]) -> None:
        fetch = self._fetch(e)
        fetch.status = e["statusCode"]
        fetch.received = {k.lower(): v for k, v in e["headers"].items()}

    def _response(self, e: dict[str, Any]) -> None:
        r = e["response"]
        if r.get("fromDiskCache") or r.get("fromMemoryCache"):
            self._fetch(e).cached = True

    def _data(self, e: dict[str, Any]) -> None:
        self._fetch(e).body_bytes += e["dataLength"]

    def _finished(self, e: dict[str, Any]) -> None:
        self._fetch(e).wire_bytes = e["encodedDataLength"]

    def _from_cache(self, e: dict[str, Any]) -> None:
        self._fetch(e).cached = True

    def take(self) -> list[Fetch]:
        taken = [f for f in self.fetches.values() if f.url.startswith("http")]
        self.fetches = {}
        return taken


@pytest.fixture
def loading(context_for: Callable[..., Page], server: Server) -> Iterator[tuple[Page, Network]]:
    page = context_for(DESKTOP)
    yield page, Network(page.context.new_cdp_session(page))


def _open(page: Page, go: Callable[[], Any]) -> None:
    go()
    page.wait_for_selector("#auth-username")
    page.wait_for_load_state("load")


def test_a_reload_downloads_nothing_but_the_answer_that_nothing_changed(
    loading: tuple[Page, Network], server: Server
) -> None:
    page, network = loading
    _open(page, lambda: page.goto(server.base + "/"))
    first = network.take()
    files = [f for f in first if "/static/" in f.url]
    assert len(files) > 20  # the stylesheet, the icon and the modules, the kit's among them
    assert all(f.status == 200 for f in first), [(f.url, f.status) for f in first]
    # text comes compressed: every module and the stylesheet, the page itself
    scripts = [f for f in first if f.url.split("?")[0].endswith((".js", ".css", "/"))]
    assert all(f.received.get("content-encoding") == "gzip" for f in scripts), [
        f.url for f in scripts if f.received.get("content-encoding") != "gzip"]
    wire = sum(f.wire_bytes for f in first)
    assert wire < sum(f.body_bytes for f in first) / 2
    # every module is asked for at its version (the page's import map), the kit's too
    modules = [f.url for f in files if f.url.split("?")[0].endswith(".js")]
    assert any("/static/kit/model.js?v=" in url for url in modules)
    assert all("?v=" in url for url in modules), modules

    _open(page, page.reload)
    again = network.take()
    page_fetch = next(f for f in again if f.url == server.base + "/")
    assert page_fetch.sent.get("if-none-match") == next(
        f.received["etag"] for f in first if f.url == server.base + "/")
    assert page_fetch.status == 304
    # nothing else went over the wire: each file came from the cache, unasked
    downloaded = [f.url for f in again if f is not page_fetch and f.status is not None]
    assert downloaded == []
    assert sum(f.wire_bytes for f in again) < 2_000
    assert page.is_visible("#auth-submit")  # and the page works as before


def test_a_browser_set_to_english_opens_in_english(
    context_for: Callable[..., Page], server: Server
) -> None:
    english = context_for(DESKTOP, locale="en-US")
    english.goto(server.base + "/")
    english.wait_for_selector("html[lang=en] #auth-submit")
    assert english.inner_text("#auth-submit") == "Log in"
    assert english.get_attribute("#lang", "lang") == "zh-CN" and english.inner_text("#lang") == "中文"
    assert english.title() == "Zhe-Min Mahjong"

    chinese = context_for(DESKTOP, locale="zh-CN")
    chinese.goto(server.base + "/")
    chinese.wait_for_selector("html[lang=zh-CN] #auth-submit")
    assert chinese.inner_text("#auth-submit") == "登录"

    # the player's own choice wins over the browser's language, on this and later visits
    english.click("#lang")
    english.wait_for_selector("html[lang=zh-CN]")
    english.reload()
    english.wait_for_selector("html[lang=zh-CN] #auth-submit")
    assert english.inner_text("#auth-submit") == "登录"
    chinese.evaluate("localStorage.setItem('lang', 'en')")
    chinese.reload()
    chinese.wait_for_selector("html[lang=en] #auth-submit")
    assert chinese.inner_text("#auth-submit") == "Log in"
