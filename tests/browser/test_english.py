"""The client in English shows no Chinese where a name exists in English: the pages around
the table, every variant's house rules, and a 湖州 hand from the deal through the
settlement to its replay, each searched for Chinese outside what is deliberately kept (tile
faces, `lang="zh"` elements, a gloss after its English name: tests/browser/english.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.english import HUZHOU_WIN_ON_5M, LEAKS
from tests.browser.test_table import _alone_at_a_test_table
from tests.browser.ui import LEGAL, discard, register, unfold

PHONE = {"width": 390, "height": 844}
# each variant and one house rule of its own, drawn once its rules are in
VARIANTS = {"lishui": "follow_penalty", "wenzhou": "honours_first", "huzhou": "first_dealer",
            "fuzhou": "rob_gold_multiple", "shanghai": "la"}


def leaks(page: Page) -> list[str]:
    found: list[str] = page.evaluate(LEAKS)
    return found


def test_the_pages_around_the_table_read_in_english(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE, locale="en-US")
    page.goto(server.base + "/")
    page.wait_for_selector("html[lang=en] #auth-username")
    assert leaks(page) == []
    register(page, server.base, "english_pages")
    page.wait_for_selector("#rooms-card #room-opts .room-opt", state="attached")
    assert leaks(page) == []
    unfold(page, "rooms")
    # a private room's length in 圈 and 版 reads as wind rounds and games, not "quan", "ban"
    units = page.eval_on_selector_all("#room-unit option", "els => els.map(e => e.textContent)")
    assert units == ["hands", "wind rounds", "games (4 rounds each)"]
    page.click("#room-rules summary")
    for variant, option in VARIANTS.items():  # every house rule of every variant, in English
        page.select_option("#room-variant", variant)
        page.wait_for_selector(f'#room-opts .room-opt[data-option="{option}"]')
        assert leaks(page) == [], variant
    page.goto(f"{server.base}/#/profile")
    page.wait_for_selector("#profile-level")
    assert leaks(page) == []
    # the 湖州 level in English, its Chinese only in the tooltip's gloss
    assert page.inner_text("#profile-level").startswith("Clerk")
    assert page.get_attribute("#profile-level", "title") == "Clerk (科员)"
    page.goto(f"{server.base}/#/leaders")
    page.wait_for_selector("#board-rows tr")
    assert leaks(page) == []

def test_a_huzhou_hand_reads_in_english_from_the_deal_to_the_replay(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE, locale="en-US")
    _alone_at_a_test_table(page, server, "english_huzhou", HUZHOU_WIN_ON_5M)
    page.wait_for_selector(f'{LEGAL}[data-tile="5m"]')
    assert leaks(page) == []
    log = str(page.text_content("#log-entries"))
    # the wild named as an English tile: "the wild is 9 Character", not "9 characters"
    assert re.search(r"the wild is \d (Character|Dot|Bamboo)\b", log), log
    discard(page, "5m")
    page.wait_for_selector("#settlement", timeout=30_000)
    page.wait_for_selector("#settle-balance[data-balance]:not([data-balance=''])")
    assert leaks(page) == []
    # the base's reason names the lowest 湖州 level in English
    assert "Clerk" in page.inner_text("#settlement .score-base")
    replay = str(page.get_attribute("#settle-replay", "href"))  # opens in a tab of its own
    page.goto(server.base + "/" + replay)
    page.wait_for_selector("#replay-step")
    page.keyboard.press("End")
    page.wait_for_function("() => /Step (\\d+) of \\1\\b/.test(document.body.innerText)")
    assert leaks(page) == []
