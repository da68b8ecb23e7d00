"""The table page is never silently frozen (issue 38, item 2): a socket whose traffic is cut
without a close shows the banner within the heartbeat's timeout (the server's
`ws_client_ping_seconds` + `ws_client_pong_seconds`, shortened here), every control that
plays the seat is disabled meanwhile, and once the traffic flows again the page reconnects,
says what the server played for the seat (托管) and play resumes; the browser's offline and
online events and a tab coming back to the foreground are acted on at once; a tab whose
socket another tab took ("opened elsewhere") can no longer play and takes the seat back with
one button."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, WebSocketRoute

from tests.browser.conftest import Server
from tests.browser.ui import (
    LEGAL,
    PROMPTED,
    SETTLED,
    TABLE_SOCKET,
    answer_once,
    discard,
    discards_of,
    register,
    wait_discarded,
)
from tests.live import live_server, sqlite_settings

PING_S, PONG_S = 2.0, 3.0  # the heartbeat the server gives the page in these tests
SLACK_MS = 4000  # a loaded machine's delay on top of the heartbeat's timeout
VIEW = {"width": 1280, "height": 900}
# the controls that play the seat; while the link is down none may be enabled
PLAYING = "#my-hand button.tile, #actions button, #autoplay, #ready-button, #settle-ready"


@contextmanager
def _server(tmp: Path, ping: float, pong: float) -> Iterator[Server]:
    database = tmp / "link.db"
    settings = sqlite_settings(  # (no shedding: a loaded test machine is not what is tested)
        database, test_mode=True, ws_client_ping_seconds=ping, ws_client_pong_seconds=pong,
        shed_lag=0,
    )
    with live_server(settings) as (port, _):
        yield Server(f"http://127.0.0.1:{port}", database)


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Server]:
    """A server whose table pages ping every 2 s and give a socket up 3 s after a ping."""
    with _server(tmp_path, PING_S, PONG_S) as server:
        yield server


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[Server]:
    """A server whose table pages ping every 300 s: whatever is noticed sooner was not the
    heartbeat's doing."""
    with _server(tmp_path, 300.0, PONG_S) as server:
        yield server


@dataclass
class Line:
    """The table page's sockets through a switch: `cut` drops every frame both ways without
    closing anything (a phone's dead network), and sockets opened meanwhile open but carry
    nothing; the server's frames dropped are kept."""

    cut: bool = False
    dropped: list[dict[str, object]] = field(default_factory=list)
    sockets: int = 0

    def route(self, ws: WebSocketRoute) -> None:
        self.sockets += 1
        ws.on_close(lambda *_: None)  # the server is not told: it finds out as it would
        if self.cut:
            ws.on_message(lambda _: None)
            return
        upstream = ws.connect_to_server()
        upstream.on_close(lambda code, reason: None if self.cut else ws.close(code=code, reason=reason))

        def from_page(message: str | bytes) -> None:
            if not self.cut:
                upstream.send(message)

        def from_server(message: str | bytes) -> None:
            if self.cut:
                self.dropped.append(json.loads(message))
            else:
                ws.send(message)

        ws.on_message(from_page)
        upstream.on_message(from_server)

    @classmethod
    def on(cls, page: Page) -> Line:
        """A switch on the table page's sockets."""
        line = cls()
        page.route_web_socket(TABLE_SOCKET, line.route)
        return line

    def server_said(self, test: Callable[[dict[str, object]], bool]) -> bool:
        return any(test(m) for m in self.dropped)


def _seat_zero_on_autoplay(m: dict[str, object]) -> bool:
    seats = m.get("seats")
    return m.get("type") == "table_state" and isinstance(seats, list) and seats[0]["autoplay"]


def _table(page: Page, server: Server, username: str, timers: dict[str, float]) -> str:
    """The player registers; a 上海 table with `timers` is opened for them over REST, they
    sit at seat 0, and the page shows it with bots in the other seats. Its id."""
    register(page, server.base, username)
    headers = server.token(username)
    with server.http() as http:
        made = http.post("/tables", json={"variant": "shanghai", "stake": 1, "timers": timers},
                         headers=headers)
        assert made.status_code == 201, made.text
        table_id = str(made.json()["id"])
        sat = http.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=headers)
        assert sat.status_code == 200, sat.text
    page.goto(f"{server.base}/#/table/{table_id}")
    page.wait_for_selector("#table-view[data-link=open]")
    page.click("#fill-bots")
    return table_id


def _own_turn(page: Page) -> None:
    """Answer prompts (passing claims) until the seat may discard; a hand that ended
    meanwhile is closed with 准备 and the next one played."""
    while True:
        page.wait_for_selector(f"{PROMPTED}, {SETTLED}", timeout=60_000)
        if page.query_selector(LEGAL):
            return
        try:
            if page.is_visible(SETTLED):
                page.click("#settle-ready")
                page.wait_for_selector(SETTLED, state="hidden")
            else:
                answer_once(page)
        except PlaywrightError:
            continue  # the page redrew under the click: look again


def _banner_log(page: Page) -> None:
    """Keep every state of the banner (a reconnection may be quicker than a look at it)."""
    page.evaluate("""() => {
      const b = document.querySelector('#banner');
      window.bannerLog = [];
      new MutationObserver(() => window.bannerLog.push(
        { kind: b.hidden ? '' : b.dataset.kind, text: b.hidden ? '' : b.innerText }))
        .observe(b, { attributes: true, childList: true, subtree: true, characterData: true });
    }""")


def _enabled_playing(page: Page) -> list[str]:
    return [str(x) for x in page.eval_on_selector_all(
        PLAYING, "els => els.filter((e) => !e.disabled).map((e) => e.id || e.dataset.tile)")]


def test_a_silently_cut_socket_shows_the_banner_within_the_heartbeat_and_play_resumes(
    context_for: Callable[[dict[str, int]], Page], quick: Server
) -> None:
    page = context_for(VIEW)
    line = Line.on(page)
    _table(page, quick, "cutoff", {"discard": 6, "claim": 2})
    _own_turn(page)
    assert page.is_hidden("#banner")
    _banner_log(page)

    line.cut = True  # the network dies: no close, no error, nothing
    page.wait_for_selector("#banner[data-kind=lost]", timeout=(PING_S + PONG_S) * 1000 + SLACK_MS)
    assert page.inner_text("#banner-text") == "连接已断开，正在重新连接…"
    assert page.inner_text("#banner-action") == "立即重连"
    # nothing that plays the seat looks live while it cannot act
    assert page.get_attribute("#table-view", "data-link") == "lost"
    assert _enabled_playing(page) == []
    assert page.query_selector_all("#my-hand button.tile")
    page.keyboard.press("t")  # nor does the keyboard play
    assert page.get_attribute("#autoplay", "aria-pressed") == "false"

    # meanwhile the server plays the seat on its timers, then on 托管 (two timeouts in a row)
    deadline_ms = 60_000
    waited = 0
    while not line.server_said(_seat_zero_on_autoplay):
        assert waited < deadline_ms, "the server never put the seat on 托管"
        page.wait_for_timeout(250)
        waited += 250
    own_plays = [m for m in line.dropped
                 if m.get("type") == "event" and m["event"]["kind"] == "discarded"  # type: ignore[index]
                 and m["event"]["seat"] == 0]  # type: ignore[index]
    assert own_plays
    # the page kept trying; a socket that opened and heard nothing did not pass for a link
    assert line.sockets > 1
    assert page.get_attribute("#banner", "data-kind") == "lost"

    line.cut = False  # the network is back: the page reconnects by itself and resumes
    page.wait_for_selector("#banner[data-kind=back]", timeout=30_000)
    text = page.inner_text("#banner-text")
    played = re.search(r"托管替你操作了 (\d+) 次", text)
    assert played and int(played.group(1)) >= len(own_plays), text
    # the 托管 toggle says what the server says: on
    assert page.get_attribute("#autoplay", "aria-pressed") == "true"
    assert page.inner_text("#autoplay") == "取消托管"
    assert page.get_attribute("#table-view", "data-link") == "open"

    page.click("#banner-action")  # 取消托管: the seat is the player's again
    page.wait_for_selector("#autoplay[aria-pressed=false]")
    page.wait_for_selector("#banner", state="hidden")
    _own_turn(page)
    river = discards_of(page)
    tile = discard(page)
    wait_discarded(page, river, tile)  # a move accepted
    assert page.is_hidden("#banner")
    kinds = [entry["kind"] for entry in page.evaluate("() => window.bannerLog")]
    # lost from the moment it was noticed until the server was heard again: never hidden
    assert [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k] == ["lost", "back", ""]


def test_the_browser_going_offline_shows_the_banner_at_once_and_online_resumes(
    context_for: Callable[[dict[str, int]], Page], slow: Server
) -> None:
    page = context_for(VIEW)
    _table(page, slow, "offline", {"discard": 30, "claim": 8})
    _own_turn(page)
    _banner_log(page)
    page.context.set_offline(True)
    # no heartbeat is due for minutes: the browser's word is enough
    page.wait_for_selector("#banner[data-kind=lost]")
    assert page.inner_text("#banner-text") == "网络已断开，恢复后自动重连…"
    assert _enabled_playing(page) == []
    page.context.set_offline(False)
    page.wait_for_selector("#table-view[data-link=open]")
    page.wait_for_selector(LEGAL)
    river = discards_of(page)
    tile = discard(page)
    wait_discarded(page, river, tile)
    log = page.evaluate("() => window.bannerLog")
    assert {"kind": "back", "text": "已重新连接"} in log, log


def test_a_tab_back_in_the_foreground_probes_its_socket_at_once(
    context_for: Callable[[dict[str, int]], Page], slow: Server
) -> None:
    page = context_for(VIEW)
    line = Line.on(page)
    _table(page, slow, "sleeper", {"discard": 30, "claim": 8})
    page.wait_for_selector(PROMPTED)
    line.cut = True
    page.wait_for_timeout(500)
    assert page.is_hidden("#banner")  # the next heartbeat is minutes away
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")  # visible again
    page.wait_for_selector("#banner[data-kind=lost]", timeout=PONG_S * 1000 + SLACK_MS)
    line.cut = False
    page.wait_for_selector("#table-view[data-link=open]")
    page.wait_for_selector("#banner", state="hidden", timeout=10_000)  # "已重新连接" for 3 s


def test_a_tab_opened_elsewhere_can_no_longer_play_and_takes_the_seat_back(
    context_for: Callable[[dict[str, int]], Page], slow: Server
) -> None:
    old = context_for(VIEW)
    table_id = _table(old, slow, "twotabs", {"discard": 30, "claim": 8})
    _own_turn(old)
    assert _enabled_playing(old)
    new = old.context.new_page()  # the same account in another tab
    new.goto(f"{slow.base}/#/table/{table_id}")
    new.wait_for_selector(f"#table-view[data-link=open] {LEGAL}")

    old.wait_for_selector("#table-view[data-link=replaced]")
    assert old.get_attribute("#banner", "data-kind") == "replaced"
    assert old.inner_text("#banner-text") == "这张牌桌已在另一个标签页或设备上打开，这里不能再操作。"
    assert not old.query_selector(LEGAL)  # the prompt is the other tab's now
    assert _enabled_playing(old) == []
    # the REST ones too: leaving from here would be an escape of the seat played there
    assert old.is_disabled("#leave")
    assert old.is_enabled("#event-strip")  # reading the log is no play
    old.keyboard.press("t")
    assert old.get_attribute("#autoplay", "aria-pressed") == "false"

    old.click("#banner-action")  # 在这里继续打
    old.wait_for_selector(f"#table-view[data-link=open] {LEGAL}")
    assert old.is_hidden("#banner")
    new.wait_for_selector("#banner[data-kind=replaced]")
    assert new.is_disabled("#autoplay")
    river = discards_of(old)
    tile = discard(old)
    wait_discarded(old, river, tile)


def test_the_banner_speaks_english(
    context_for: Callable[[dict[str, int]], Page], slow: Server
) -> None:
    page = context_for(VIEW)
    _table(page, slow, "abroad", {"discard": 30, "claim": 8})
    page.click("#lang")
    page.wait_for_selector("html[lang=en]")
    page.context.set_offline(True)
    page.wait_for_selector("#banner[data-kind=lost]")
    assert page.inner_text("#banner-text") == "You are offline — reconnecting when the network is back…"
    assert page.inner_text("#banner-action") == "Reconnect now"
    page.context.set_offline(False)
    page.wait_for_selector("#table-view[data-link=open]")
