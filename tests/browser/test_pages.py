"""The pages around the table in the browser (issue 16): the lobby names who sits at each
table and is readable on a phone (390x844) and a desktop (1366x900) in Chinese and English;
a stake the player cannot afford is said before the table is made and the server's refusal
shows in the player's language; the ledger pages without repeating a row; a played hand
opens in the replay viewer, which steps forwards and back to the settlement; the empty
win-rate board says why it is empty. Every test saves screenshots to look at."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.conftest import PASSWORD, Server
from tests.browser.ui import autoplayed_hand, open_table, register, settled_balance, unfold

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
GRANT = 10000


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """Pages in fresh browser contexts (each its own storage: its own player); no page
    error and nothing refused by the Content-Security-Policy."""
    contexts: list[BrowserContext] = []
    problems: list[str] = []

    def make(viewport: dict[str, int] = DESKTOP) -> Page:
        context = browser.new_context(viewport=viewport, locale="zh-CN")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("console", lambda m: problems.append(m.text) if "Content Security Policy" in m.text else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not problems


def _set_lang(page: Page, lang: str) -> None:
    """Switch the page to `lang` with the header's button and wait until the page is drawn
    again in it."""
    if page.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
        page.click("#lang")
    page.wait_for_selector(f'main[data-rendered$=":{lang}"]')


def _no_horizontal_overflow(page: Page) -> None:
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def _sign_up(server: Server, username: str) -> dict[str, str]:
    with server.http() as http:
        made = http.post("/auth/register", json={"username": username, "password": PASSWORD})
        assert made.status_code == 201, made.text
    return server.token(username)


def _account_id(server: Server, headers: dict[str, str]) -> int:
    with server.http() as http:
        return int(http.get("/me", headers=headers).json()["id"])


def _adjust(server: Server, admin: dict[str, str], account_id: int, delta: int, key: str) -> None:
    with server.http() as http:
        done = http.post(f"/admin/accounts/{account_id}/adjust",
                         json={"delta": delta, "reason": "a test's adjustment"},
                         headers={**admin, "Idempotency-Key": key})
        assert done.status_code in (200, 201), done.text


def test_the_lobby_names_the_players_and_fits_a_phone_and_a_desktop_in_both_languages(
    new_page: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    # a player at a table with three bots, on 托管 so the hands go on while it stays connected
    host = new_page()
    register(host, server.base, "庄家甲")
    bot_table = open_table(host, "lishui", 1)
    host.click("#fill-bots")
    host.wait_for_selector("#autoplay")
    host.click("#autoplay")
    # two people waiting at a 温州 table
    bob, carol = _sign_up(server, "bob"), _sign_up(server, "carol")
    with server.http() as http:
        made = http.post("/tables", json={"variant": "wenzhou", "stake": 5}, headers=bob)
        people_table = made.json()["id"]
        for headers in (bob, carol):
            assert http.post(f"/tables/{people_table}/sit", json={}, headers=headers).status_code == 200

    page = new_page(PHONE)
    register(page, server.base, "阿明哥")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        for lang in ("zh", "en"):
            _set_lang(page, lang)
            unfold(page, "tables")
            page.click("#lobby-refresh")
            page.wait_for_selector(f'.table-item[data-table="{bot_table}"] .seat-chip.bot')
            hosted = page.locator(f'.table-item[data-table="{bot_table}"]')
            names = hosted.locator(".seat-chip .seat-name").all_inner_texts()
            assert "庄家甲" in names
            assert hosted.locator(".seat-chip.bot").count() == 3
            assert all(n.startswith("bot-") for n in hosted.locator(".seat-chip.bot .seat-name").all_inner_texts())
            waiting = page.locator(f'.table-item[data-table="{people_table}"]')
            assert sorted(waiting.locator(".seat-chip .seat-name").all_inner_texts()) == ["bob", "carol"]
            assert waiting.locator(".seat-chip.empty").count() == 2
            empty_word = "空位" if lang == "zh" else "empty"
            assert waiting.locator(".seat-chip.empty").first.inner_text() == empty_word
            # every control has a label
            for control in ("#lobby-filter", "#create-variant", "#create-stake"):
                assert page.locator(f'label[for="{control[1:]}"]').inner_text()
            assert page.inner_text("#me-balance").endswith("10,000")
            _no_horizontal_overflow(page)
            page.screenshot(path=str(screenshots / f"lobby-{size}-{lang}.png"), full_page=True)

    # a stake the player cannot afford is said before the table is made
    _set_lang(page, "zh")
    page.fill("#create-stake", "1000")
    page.wait_for_selector("#stake-needs.short")
    assert "100,000" in page.inner_text("#stake-needs") and "10,000" in page.inner_text("#stake-needs")
    assert page.is_disabled("#create-submit") and page.is_disabled("#quick-join")
    page.fill("#create-stake", "100")
    page.wait_for_selector("#stake-needs:not(.short)")
    assert page.is_enabled("#create-submit")

    # the silver went elsewhere since the page was drawn: the server refuses, in Chinese
    admin = _sign_up(server, "管理员")
    server.make_admin("管理员")
    me = server.token("阿明哥")
    _adjust(server, admin, _account_id(server, me), -GRANT + 50, "lobby-1")
    page.fill("#create-stake", "1")
    page.click("#create-submit")
    page.wait_for_selector("#lobby-error[data-code='insufficient_balance']")
    shown = page.inner_text("#lobby-error")
    assert "银两不足" in shown and "100" in shown
    assert "insufficient" not in shown and "needs" not in shown
    # and the page reads the silver again: the header and the stake's hint say 50
    page.wait_for_selector("#stake-needs.short")
    assert page.inner_text("#me-balance").endswith("50") and page.is_disabled("#create-submit")
    page.screenshot(path=str(screenshots / "lobby-refused-zh.png"))


def test_the_ledger_pages_to_its_end_without_repeating_a_row(
    new_page: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = new_page(PHONE)
    register(page, server.base, "账房先生")
    admin = _sign_up(server, "管理员")
    server.make_admin("管理员")
    account = _account_id(server, server.token("账房先生"))
    for i in range(45):  # the grant and 45 adjustments: pages of 20, 20 and 6
        _adjust(server, admin, account, 1, f"ledger-{i}")

    page.click('#nav a[href="#/profile"]')
    page.wait_for_selector("#ledger-rows tr")
    assert page.locator("#ledger-rows tr").count() == 20
    page.click("#ledger-more")
    page.wait_for_function("() => document.querySelectorAll('#ledger-rows tr').length === 40")
    assert page.is_visible("#ledger-more")
    page.click("#ledger-more")
    page.wait_for_function("() => document.querySelectorAll('#ledger-rows tr').length === 46")
    page.wait_for_selector("#ledger-more", state="hidden")
    ids = page.eval_on_selector_all("#ledger-rows tr", "rows => rows.map(r => Number(r.dataset.id))")
    assert len(set(ids)) == 46 and ids == sorted(ids, reverse=True)  # newest first, each once
    reasons = page.locator("#ledger-rows td.reason .reason-text").all_inner_texts()
    assert reasons.count("管理员调整") == 45 and reasons[-1] == "注册赠送"
    assert "admin_adjustment" not in page.inner_text("#ledger-table")
    assert page.inner_text("#profile-balance") == "10,045"
    assert page.inner_text("#me-balance").endswith("10,045")  # the header formats it alike
    _no_horizontal_overflow(page)
    page.screenshot(path=str(screenshots / "ledger-phone-zh.png"), full_page=True)

    # in English: the reasons and the title too; a reload starts from the first page again
    _set_lang(page, "en")
    page.wait_for_selector("#ledger-rows tr")
    assert page.locator("#ledger-rows tr").count() == 20 and page.is_visible("#ledger-more")
    assert page.locator("#ledger-rows td.reason .reason-text").first.inner_text() == "admin adjustment"
    assert page.inner_text("#profile-title") == "Novice"  # 生手
    assert page.inner_text("#profile-level").startswith("Clerk")  # 科员
    _no_horizontal_overflow(page)
    page.screenshot(path=str(screenshots / "ledger-phone-en.png"), full_page=True)


def test_a_played_hand_replays_forwards_and_back_to_its_settlement(
    new_page: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = new_page(DESKTOP)
    register(page, server.base, "回放者")
    autoplayed_hand(page)
    settled = settled_balance(page)  # the hand's ledger row is written

    # the hand's ledger row leads to its replay
    page.click('#nav a[href="#/profile"]')
    link = page.locator("#ledger-rows a.hand-link").first
    hand_id = str(link.get_attribute("data-hand"))
    link.click()
    page.wait_for_selector("#replay-step")
    assert page.url.endswith(f"#/replay/{hand_id}")

    def step() -> int:
        return int(str(page.get_attribute("#replay-step", "data-step")))

    total = int(page.inner_text("#replay-step").split("/")[-1].split()[0])
    assert step() == 0 and total > 10
    assert "1 / " in page.inner_text("#replay-step")
    # a player of the ended hand sees every seat's tiles (its seed revealed them all), its
    # own at the bottom
    assert page.locator(".rp-seat.place-0 .rp-hand .tile[data-tile]").count() in (13, 14)
    assert page.locator(".rp-seat .hidden-hand").count() == 0
    assert page.locator(".rp-seat .rp-hand .tile[data-tile]").count() >= 13 * 4
    assert not page.query_selector("#replay-settlement")

    first_event = page.inner_text("#replay-event")
    page.click("#replay-next")
    assert step() == 1 and page.inner_text("#replay-event") != first_event
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step() == 3
    page.keyboard.press("ArrowLeft")
    assert step() == 2
    page.click("#replay-prev")
    assert step() == 1
    discards_seen = 0
    forward = min(12, total - 2)  # a short hand (an early win) has fewer steps to go
    for _ in range(forward):
        page.click("#replay-next")
        discards_seen = max(discards_seen, page.locator(".rp-discards .tile").count())
    assert step() == 1 + forward and discards_seen > 0
    page.screenshot(path=str(screenshots / "replay-desktop-zh.png"), full_page=True)

    page.keyboard.press("End")
    assert step() == total - 1
    page.wait_for_selector("#replay-settlement")
    assert "结算" in page.inner_text("#rp-settle-title")
    assert page.locator("#rp-settle-table tbody tr").count() == 4
    nets = [int(str(x)) for x in page.eval_on_selector_all(
        "#rp-settle-table tbody tr", "rows => rows.map(r => r.dataset.net)")]
    assert sum(nets) == 0
    assert page.locator(".rp-seat .hidden-hand").count() == 0  # the end reveals every hand
    with server.http() as http:
        answer = http.get(f"/hands/{hand_id}/replay", headers=server.token("回放者")).json()
    if "players" in answer:  # a server that names the hand's players and its silver
        bots = page.locator(".rp-seat .rp-plate:has(.bot-tag) .name").all_inner_texts()
        assert len(bots) == 3 and all("bot-" in name for name in bots)
        moved = page.eval_on_selector_all(
            "#rp-settle-table td.silver", "cells => cells.map(c => Number(c.dataset.silver))")
        assert moved[answer["seat"]] == settled - GRANT  # the rows are by seat
    page.screenshot(path=str(screenshots / "replay-end-desktop-zh.png"), full_page=True)
    page.keyboard.press("Home")
    assert step() == 0 and not page.query_selector("#replay-settlement")

    # on a phone, in English
    page.set_viewport_size(PHONE)
    _set_lang(page, "en")
    page.wait_for_selector("#replay-step")
    page.click("#replay-next")
    page.click("#replay-last")
    page.wait_for_selector("#replay-settlement")
    assert "Settlement" in page.inner_text("#rp-settle-title")
    assert page.inner_text("#replay-step") == f"Step {total} of {total}"
    _no_horizontal_overflow(page)
    page.screenshot(path=str(screenshots / "replay-end-phone-en.png"), full_page=True)
    page.click("#replay-first")
    for _ in range(12):
        page.click("#replay-next")
    _no_horizontal_overflow(page)
    page.screenshot(path=str(screenshots / "replay-phone-en.png"), full_page=True)

    # an administrator sees every seat's tiles; another player is refused, in Chinese
    admin = new_page(DESKTOP)
    register(admin, server.base, "管理员")
    server.make_admin("管理员")
    admin.goto(f"{server.base}/#/replay/{hand_id}")
    admin.wait_for_selector("#replay-step")
    assert admin.locator(".rp-seat .hidden-hand").count() == 0
    assert admin.locator(".rp-seat .rp-hand .tile[data-tile]").count() >= 13 * 4
    if "players" in answer:  # the server answers an administrator one seat's view too
        admin.select_option("#replay-view-seat", "2")
        admin.wait_for_selector("#replay-view-seat")
        admin.wait_for_function("() => document.querySelectorAll('.rp-seat .hidden-hand').length === 3")
        assert admin.get_attribute(".rp-seat.place-0", "data-seat") == "2"
    stranger = new_page(PHONE)
    register(stranger, server.base, "过路人")
    stranger.goto(f"{server.base}/#/replay/{hand_id}")
    stranger.wait_for_selector("#replay-error[data-code='forbidden']")
    assert stranger.inner_text("#replay-error") == "你没有权限这样做。"
    stranger.screenshot(path=str(screenshots / "replay-forbidden-phone-zh.png"))


def test_the_empty_win_rate_board_says_why(
    new_page: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = new_page(PHONE)
    register(page, server.base, "榜眼君")
    page.click('#nav a[href="#/leaders"]')
    page.wait_for_selector("#board-rows tr")  # the silver board lists the new player
    page.select_option("#board-kind", "win-rate")
    page.wait_for_selector("#board-empty:not([hidden])")
    assert page.is_hidden("#board")
    said = page.inner_text("#board-empty")
    assert "丽水" in said and "20" in said
    assert page.inner_text('label[for="board-min"]') == "最少局数"
    assert page.inner_text('label[for="board-kind"]') and page.inner_text('label[for="board-variant"]')
    page.fill("#board-min", "5")
    page.dispatch_event("#board-min", "change")
    page.wait_for_function("() => document.querySelector('#board-empty').textContent.includes('5')")
    _no_horizontal_overflow(page)
    page.screenshot(path=str(screenshots / "board-empty-phone-zh.png"), full_page=True)
    _set_lang(page, "en")
    page.select_option("#board-kind", "win-rate")
    page.select_option("#board-variant", "fuzhou")
    page.wait_for_function("() => document.querySelector('#board-empty').textContent.includes('Fuzhou')")
    assert "win-rate board is empty" in page.inner_text("#board-empty")
    assert page.inner_text('label[for="board-min"]') == "Min. hands"
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(screenshots / "board-empty-desktop-en.png"), full_page=True)
