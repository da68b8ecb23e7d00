"""The lobby's first screen, the boards and the profile as a player meets them (issue 38,
item 8): on a phone (390x844) the lobby opens on quick match, its primary button above the
fold, the private rooms and the tables folded below it (a tap opens them) and the level last
played remembered; on the boards the player's own row is marked, and when it is not on the
page shown a line under the board says their rank; the profile says the next title and the
way to it, or that the top is reached."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import register

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def _rich_players(server: Server, prefix: str, count: int, silver: int) -> None:
    """`count` players with `silver` each, straight into the database."""
    with sqlite3.connect(server.database) as conn:
        conn.executemany(
            "INSERT INTO accounts (username, username_key, password_hash, role, banned, balance)"
            " VALUES (?, ?, 'x', 'player', 0, ?)",
            [(f"{prefix}{i:02d}", f"{prefix}{i:02d}", silver) for i in range(count)],
        )


def _set_balance(server: Server, username: str, silver: int) -> None:
    with sqlite3.connect(server.database) as conn:
        conn.execute("UPDATE accounts SET balance = ? WHERE username = ?", (silver, username))


def test_the_lobby_opens_on_quick_match_above_the_fold_on_a_phone(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "新手小王")
    page.wait_for_selector("#quick-levels .quick-level.chosen .quick-start.primary")
    # the one big action: the chosen level's button, whole on the first screen
    box = page.locator(".quick-level.chosen .quick-start").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    assert page.get_attribute(".quick-level.chosen", "data-level") == "beginner"
    assert page.locator(".quick-start.primary").count() == 1
    # rooms and tables are there, folded: a tap opens each
    for section, inside in (("#lobby-rooms", "#room-code"), ("#lobby-tables", "#create-stake")):
        assert page.is_visible(f"{section} > summary") and not page.is_visible(inside)
        page.click(f"{section} > summary")
        page.wait_for_selector(inside)
    # the level played last is the default next time
    page.click(".quick-start[data-level='intermediate']")
    page.wait_for_selector("#quick-cancel")
    page.click("#quick-cancel")
    page.wait_for_selector("#quick-panel", state="hidden")
    page.reload()
    page.wait_for_selector(".quick-level.chosen[data-level='intermediate'] .quick-start.primary")
    assert not page.is_visible("#room-code")  # folded again on a new visit


def test_on_a_desktop_the_lobby_sections_are_open(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(DESKTOP)
    register(page, server.base, "桌面玩家")
    page.wait_for_selector("#room-code")
    # the table list comes with the lobby's first answer from the server: a loaded machine
    # may draw the form before it (a folded section never shows it, and the wait fails)
    page.wait_for_selector("#table-list", state="visible")
    assert page.is_visible("#create-stake") and page.is_visible("#table-list")


def test_the_boards_mark_my_row_and_say_my_rank_off_the_page(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "榜上有名")
    _rich_players(server, "富户", 3, 20000)
    page.click('#nav a[href="#/leaders"]')
    mine = page.locator("#board tr.mine")
    mine.wait_for()
    assert mine.count() == 1 and "榜上有名" in mine.inner_text() and "你" in mine.inner_text()
    assert mine.locator("td").first.inner_text() == "4"
    assert not page.is_visible("#board-mine")  # on the page: no line needed

    _rich_players(server, "大户", 20, 30000)  # 23 richer: the first page (20 rows) ends before me
    page.reload()
    page.wait_for_selector("#board-mine:not([hidden])")
    assert page.locator("#board tr.mine").count() == 0
    assert page.inner_text("#board-mine") == "你的排名：第 24 名 · 10,000"
    # a board that does not rank me yet says why
    page.select_option("#board-kind", "points")
    page.wait_for_function(
        "() => document.querySelector('#board-mine').textContent.includes('还没有打过')")
    assert page.inner_text("#board-mine") == "你还没有打过丽水，打一局就能上榜。"
    page.click("#lang")
    page.wait_for_selector('main[data-rendered$=":en"]')
    page.wait_for_selector("#board-mine:not([hidden])")
    assert page.inner_text("#board-mine") == "Your rank: #24 · 10,000"


def test_the_profile_says_the_next_title_and_the_way_to_it(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "攒钱的人")
    page.click('#nav a[href="#/profile"]')
    page.wait_for_selector("#profile-next-title")
    # 10,000 silver: 生手 (from 6,000), 赌客 at 12,000
    assert page.inner_text("#profile-title") == "生手"
    assert page.inner_text("#profile-next-title .next-text") == "距 赌客 还差 2,000 银两"
    bar = page.locator("#profile-next-title [role=progressbar]")
    assert bar.get_attribute("aria-valuenow") == "67"
    fill = page.evaluate(
        "() => { const f = document.querySelector('#profile-next-title .next-fill');"
        " return f.getBoundingClientRect().width / f.parentElement.getBoundingClientRect().width; }")
    assert 0.6 < fill < 0.72
    assert page.inner_text("#profile-next-level .next-text") == "距 助科 还差 6 积分"
    page.click("#lang")
    page.wait_for_selector('main[data-rendered$=":en"]')
    page.wait_for_selector("#profile-next-title")
    assert page.inner_text("#profile-next-title .next-text") == "2,000 silver to Gambler"
    assert page.inner_text("#profile-next-level .next-text") == "6 points to Assistant section chief"

    _set_balance(server, "攒钱的人", 104857600)  # 万赌之王: nothing above
    page.reload()
    page.wait_for_selector("#profile-next-title.top")
    assert page.inner_text("#profile-next-title") == "The top title: nothing above it"
    assert page.locator("#profile-next-title [role=progressbar]").count() == 0


def test_how_to_win_is_on_the_first_screen_next_to_quick_match(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    from tests.browser.test_teach import _card_opens
    from tests.browser.ui import to_english

    page = context_for(PHONE)
    register(page, server.base, "玩法在前")
    page.wait_for_selector("#quick-card #quick-how-to-win")
    for english in (False, True):
        if english:
            to_english(page)
        for width, height in ((390, 844), (844, 390), (1366, 900)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(f"() => window.innerWidth === {width}")
            # reachable without unfolding anything: whole on the first screen, a thumb's size
            button = page.locator("#quick-how-to-win")
            button.wait_for(state="visible")  # (the lobby may be drawn anew after a switch)
            box = button.bounding_box()
            assert box is not None and box["width"] >= 40 and box["height"] >= 40, box
            assert box["y"] + box["height"] <= height and box["x"] + box["width"] <= width, box
            if width == 390:
                assert not page.is_visible("#create-stake")  # the tables stay folded
            lang = "en" if english else "zh"
            page.screenshot(path=str(screenshots / f"lobby-{width}x{height}-{lang}.png"))
        page.set_viewport_size(PHONE)
        # it explains the variant picked for quick match
        page.select_option("#quick-variant", "shanghai")
        _card_opens(page, "#quick-how-to-win", "shanghai", english)
