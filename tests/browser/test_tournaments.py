"""Tournaments (比赛场) as a player meets them (issue 40, item 6): the lobby's card lists an
event coming with its fee, its seats taken and a countdown, and registering turns the button
into 退赛 and counts the player (a seat taken meanwhile is refused with its sentence); a
short event played for real takes the entrant from its page to their table, shows the
strip 比赛名 · 第1轮/共2轮, the standings between the rounds with 下一轮即将开始 until the
next table opens by itself, and at the end the final places with their prizes, the player's
own line marked, at the table and on the event's page. Pictures at a phone's and a
desktop's size, in Chinese and in English, go to the screenshots folder."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import PASSWORD, Server, chromium_path
from tests.browser.ui import register
from tests.live import live_server, sqlite_settings

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SHARES = [50, 30, 20]


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[Server]:
    """A server whose bots play at once and whose events are looked at every 0.1 s."""
    chromium_path()
    database = tmp_path / "events.db"
    settings = sqlite_settings(database, test_mode=True, bot_delay_ms=(0, 0),
                               tournament_poll_seconds=0.1)
    with live_server(settings) as (port, _):
        yield Server(f"http://127.0.0.1:{port}", database)


def _sign_up(server: Server, username: str) -> dict[str, str]:
    with server.http() as http:
        made = http.post("/auth/register", json={"username": username, "password": PASSWORD})
        assert made.status_code == 201, made.text
    return server.token(username)


def _operator(server: Server) -> dict[str, str]:
    _sign_up(server, "boss")
    server.make_admin("boss")
    return server.token("boss")


def _event(server: Server, boss: dict[str, str], name: str, *, starts_in: float, fee: int = 100,
           rounds: int = 1, seats: int = 8, final_table: bool = False,
           discard: int = 3) -> dict[str, Any]:
    with server.http() as http:
        made = http.post("/admin/tournaments", headers=boss, json={
            "name": name, "variant": "lishui", "stake": 1, "fee": fee, "seats": seats,
            "rounds": rounds, "final_table": final_table, "length": {"unit": "hands", "count": 1},
            "prize_shares": SHARES, "timers": {"discard": discard, "claim": 2, "decide": 2, "ready": 1},
            "starts_at": (datetime.now(UTC) + timedelta(seconds=starts_in)).isoformat(),
        })
        assert made.status_code == 201, made.text
        return dict(made.json())


def _enter(server: Server, event: int, headers: dict[str, str]) -> None:
    with server.http() as http:
        done = http.post(f"/tournaments/{event}/register", headers=headers)
        assert done.status_code == 201, done.text


def _balance(page: Page) -> int:
    return int(page.inner_text("#me-balance").split()[-1].replace(",", ""))


def _no_overflow(page: Page) -> None:
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def _chinese(page: Page) -> bool:
    return page.inner_text("#lang") == "English"  # the button names the other language


def _switch(page: Page, lang: str, routed: bool) -> None:
    """Switch the language with the header's button; a routed page (not a table) is drawn
    again and says so in `data-rendered`."""
    if _chinese(page) == (lang == "zh"):
        return
    page.click("#lang")
    if routed:
        page.wait_for_selector(f"#main[data-rendered$=':{lang}']")


def _pictures(page: Page, folder: Path, name: str, ready: str, routed: bool = True) -> None:
    """The page at a phone's and a desktop's size, in Chinese and in English."""
    for lang in ("zh", "en"):
        _switch(page, lang, routed)
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page.set_viewport_size(viewport)
            page.wait_for_selector(ready)
            page.wait_for_timeout(300)
            _no_overflow(page)
            page.screenshot(path=str(folder / f"{name}-{size}-{lang}.png"), full_page=True)
    _switch(page, "zh", routed)
    page.wait_for_selector(ready)


def test_the_card_lists_an_event_with_its_countdown_and_registering_counts_the_player(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "报名玩家")
    boss = _operator(server)
    cup = _event(server, boss, "冬至杯", starts_in=30 * 60, fee=100)
    nearly = _event(server, boss, "小寒赛", starts_in=50 * 60, fee=50)
    others = [_sign_up(server, f"entrant{n}") for n in range(8)]
    for headers in others[:7]:
        _enter(server, nearly["id"], headers)
    page.reload()
    # folded on a phone: its summary counts down to the soonest event
    summary = page.locator("#lobby-events > summary")
    summary.wait_for()
    page.wait_for_function(
        "() => /冬至杯 · \\d\\d:\\d\\d后开赛/.test(document.querySelector('#lobby-events .section-note').textContent)")
    start = page.locator(".quick-level.chosen .quick-start")
    start.wait_for()  # the levels come with the lobby's first answer
    box = start.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]  # quick match still first
    summary.click()
    item = page.locator(f".ev-item[data-event='{cup['id']}']")
    item.wait_for()
    facts = item.locator(".ev-facts").inner_text()
    assert "报名费 100" in facts and "0/8 人" in facts and "奖池 0" in facts
    first = item.locator(".ev-countdown").inner_text()
    assert re.fullmatch(r"(29|30):\d\d后开赛", first), first
    page.wait_for_function(f"t => document.querySelector(\".ev-item[data-event='{cup['id']}'] .ev-countdown\").textContent !== t",
                           arg=first)
    _pictures(page, screenshots, "events-card", f".ev-item[data-event='{cup['id']}']")

    silver = _balance(page)
    button = item.locator(".ev-register")
    assert button.inner_text() == "报名"
    button.click()
    page.wait_for_selector(f".ev-item[data-event='{cup['id']}'] .ev-register[data-registered='true']")
    assert item.locator(".ev-register").inner_text() == "退赛"
    assert "1/8 人" in item.locator(".ev-facts").inner_text()
    assert "奖池 100" in item.locator(".ev-facts").inner_text()
    assert item.locator(".ev-in").inner_text() == "已报名"
    assert _balance(page) == silver - 100
    item.locator(".ev-register").click()  # 退赛: the fee comes back
    page.wait_for_selector(f".ev-item[data-event='{cup['id']}'] .ev-register[data-registered='false']")
    assert "0/8 人" in item.locator(".ev-facts").inner_text()
    assert _balance(page) == silver

    # the last seat of the other event is taken while the player looks: refused, said why
    late = page.locator(f".ev-item[data-event='{nearly['id']}']")
    assert "7/8 人" in late.locator(".ev-facts").inner_text()
    _enter(server, nearly["id"], others[7])
    late.locator(".ev-register").click()
    page.wait_for_selector("#events-error[data-code='tournament_full']")
    assert page.inner_text("#events-error") == "这场比赛的名额已满。"
    page.wait_for_function(  # the event read again: the seats as they are
        f"() => document.querySelector(\".ev-item[data-event='{nearly['id']}'] .ev-facts\").textContent.includes('8/8 人')")
    assert late.locator(".ev-register").is_disabled() and late.locator(".ev-register").inner_text() == "名额已满"
    assert _balance(page) == silver


def test_a_short_event_seats_the_player_shows_the_rounds_and_ends_with_places_and_prizes(
    context_for: Callable[..., Page], quick_server: Server, screenshots: Path
) -> None:
    server = quick_server
    page = context_for(DESKTOP)  # an entrant waiting on the event's page
    register(page, server.base, "参赛选手")
    other = context_for(PHONE)  # an entrant waiting in the lobby
    register(other, server.base, "大厅选手")
    visitor = context_for(PHONE)  # someone who did not enter, in the lobby
    register(visitor, server.base, "路过的人")
    boss = _operator(server)
    event = _event(server, boss, "冬至杯", starts_in=12, fee=100, rounds=2)
    for name in ("参赛选手", "大厅选手"):
        _enter(server, event["id"], server.token(name))
    page.goto(f"{server.base}/#/event/{event['id']}")
    page.wait_for_selector("#event-page .ev-register[data-registered='true']")
    assert "2/8 人" in page.inner_text("#event-page .ev-top .ev-facts")
    assert page.locator("#prize-table li").count() == len(SHARES)
    for lobby in (other, visitor):
        lobby.reload()
        lobby.locator("#lobby-events > summary").click()
        lobby.wait_for_selector(f".ev-item[data-event='{event['id']}']")
    _pictures(page, screenshots, "event-upcoming", "#prize-table")

    # the start: the event's page and the lobby open the entrants' tables by themselves
    other.wait_for_url(re.compile(r"#/table/"), timeout=30_000)
    other.wait_for_selector("#cup-strip")
    other.click("#autoplay")
    visitor.reload()
    visitor.locator("#lobby-events > summary").click()
    visitor.wait_for_selector(f".ev-item.running[data-event='{event['id']}'] .status-tag")
    assert re.fullmatch(r"第[12]轮/共2轮", visitor.inner_text(
        f".ev-item.running[data-event='{event['id']}'] .status-tag"))
    assert visitor.locator(".ev-to-table").count() == 0  # not theirs to play
    visitor.screenshot(path=str(screenshots / "events-card-running-phone-zh.png"), full_page=True)
    page.wait_for_url(re.compile(r"#/table/"), timeout=30_000)
    first_table = page.url.rsplit("/", 1)[-1]
    page.wait_for_selector("#cup-strip")
    assert page.inner_text("#cup-strip") == "冬至杯 · 第1轮/共2轮"
    page.reload()  # a page opened afresh finds its event among those in play
    page.wait_for_selector("#cup-strip")
    assert page.inner_text("#cup-strip") == "冬至杯 · 第1轮/共2轮"
    page.wait_for_selector("#autoplay")
    page.click("#autoplay")  # 托管: the server plays the hand
    # between the rounds: the standings and the next round coming, then the next table
    page.wait_for_selector("#cup-between #cup-next", timeout=60_000)
    assert page.inner_text("#cup-next") == "下一轮即将开始…"
    assert page.locator("#cup-standings li").count() == 8
    assert page.locator("#cup-standings li.mine").count() == 1
    page.screenshot(path=str(screenshots / "cup-between-desktop-zh.png"))
    page.wait_for_function("t => !location.hash.endsWith(t)", arg=first_table, timeout=30_000)
    second_table = page.url.rsplit("/", 1)[-1]
    # the second table's own strip (the first table's view may still be in the page)
    strip = page.locator(f"#table-view[data-table='{second_table}'] #cup-strip")
    strip.wait_for()
    assert strip.inner_text() == "冬至杯 · 第2轮/共2轮"
    # the first round's standings stay with its table (the event may be over already)
    assert page.locator("#cup-between[data-status='running']").count() == 0
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(screenshots / "event-strip-phone-zh.png"))
    # (the seat stays on 托管 from the first table; else its timers play it)

    # the end: the final places with their prizes, at the table and on the event's page
    page.wait_for_selector("#cup-between[data-status='finished']", timeout=60_000)
    assert page.inner_text("#cup-next") == "比赛结束"
    with server.http() as http:
        final = http.get(f"/tournaments/{event['id']}/standings").json()["standings"]
    mine = next(s for s in final if s["name"] == "参赛选手")
    assert page.inner_text("#cup-mine").startswith(f"你的名次：第{mine['place']}名")
    _pictures(page, screenshots, "event-final-table", "#cup-between", routed=False)
    page.click("#cup-event-link")
    page.wait_for_selector("#ev-board")
    rows = page.locator("#ev-board tbody tr")
    assert rows.count() == 8
    assert page.inner_text("#event-status") == "已结束"
    assert page.inner_text("#ev-standings-title") == "最终排名"
    places = [int(rows.nth(i).get_attribute("data-place") or 0) for i in range(8)]
    assert places == list(range(1, 9))
    marked = page.locator("#ev-board tr.mine")
    assert marked.count() == 1 and marked.get_attribute("data-place") == str(mine["place"])
    for row, standing in zip(range(8), final, strict=True):
        shown = rows.nth(row).locator(".ev-prize").inner_text()
        assert shown == (f"{standing['prize']:,}" if standing["prize"] else "–"), (row, shown)
    assert sum(s["prize"] or 0 for s in final) == 200  # the two fees: no rake, no guarantee
    # the lobby names the winner
    visitor.wait_for_selector(f".ev-item.finished[data-event='{event['id']}']", timeout=30_000)
    winner = next(s for s in final if s["place"] == 1)["name"]
    assert visitor.inner_text(f".ev-item.finished[data-event='{event['id']}'] .ev-winner") == f"冠军：{winner}"
    visitor.screenshot(path=str(screenshots / "events-card-finished-phone-zh.png"), full_page=True)
    _pictures(page, screenshots, "event-finished", "#ev-board")


def test_the_final_table_says_so_and_anyone_watches_it_from_the_event_page(
    context_for: Callable[..., Page], quick_server: Server
) -> None:
    """One player entered: the final table seats them with three bots (docs/tournaments.md,
    "The final table"), and the event's page offers to watch it while it plays."""
    server = quick_server
    page = context_for(PHONE)
    register(page, server.base, "决赛选手")
    visitor = context_for(PHONE)
    register(visitor, server.base, "看热闹的")
    boss = _operator(server)
    event = _event(server, boss, "冬至杯", starts_in=8, rounds=1, final_table=True, discard=10)
    _enter(server, event["id"], server.token("决赛选手"))
    page.goto(f"{server.base}/#/event/{event['id']}")
    page.wait_for_url(re.compile(r"#/table/"), timeout=30_000)
    first_table = page.url.rsplit("/", 1)[-1]
    page.wait_for_selector("#cup-strip")
    assert page.inner_text("#cup-strip") == "冬至杯 · 第1轮/共1轮"
    page.click("#autoplay")
    page.wait_for_function("t => !location.hash.endsWith(t)", arg=first_table, timeout=60_000)
    final_table = page.url.rsplit("/", 1)[-1]
    page.wait_for_selector(f"#table-view[data-table='{final_table}'] #cup-strip.final")
    assert page.inner_text("#cup-strip") == "冬至杯 · 决赛"
    # the player plays on their timers here: the final table lasts; anyone may watch it
    visitor.goto(f"{server.base}/#/event/{event['id']}")
    visitor.wait_for_selector("#ev-watch")
    assert visitor.inner_text("#event-status") == "决赛"
    assert visitor.get_attribute("#ev-watch", "href", timeout=5_000).startswith(f"#/watch/{final_table}/")
    visitor.click("#ev-watch")
    visitor.wait_for_selector(f"#table-view[data-watching='1'][data-table='{final_table}']")
