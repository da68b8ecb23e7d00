"""上海: before a claim that leaves the hand no winning shape (the prompt's `dead_ends`), the
table asks first: a 吃 in a second suit after a 吃 in another one waits for 仍要吃, and 取消
keeps the claim window open; a first 吃 goes at once."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.test_client import _two_players_at_a_test_table
from tests.browser.ui import click_action, discard, to_english
from tests.rules.test_deadend import CHOWS
from tests.rules.test_shanghai import QA, QB, QC

# seat 1 (the second player) may 吃 the dealer's 4m (56m), later the dealer's 3p (45p)
TWO_CHOWS = {
    "variant": "shanghai", "stake": 1, "dealer": 0,
    "hands": [QA + "4m", CHOWS, QB, QC], "draws": "2z4z8m",
    "timers": {"discard": 120, "claim": 120},  # time to look at the question
}
SIZES = [(390, 844), (844, 390), (1366, 900)]


@pytest.fixture
def new_page(context_for: Callable[..., Page]) -> Callable[[], Page]:
    return lambda: context_for({"width": 1280, "height": 900})


def _pass_until(page: Page, other: Page, selector: str) -> None:
    """Pass every claim the two players are offered until `selector` shows on `page`. Both
    pages are looked at in turn: the table waits for whichever of them is offered a claim."""
    passing = '#actions button.act[data-action="pass"]'
    for _ in range(600):  # a minute at most
        if page.query_selector(selector):
            return
        for who in (page, other):
            if who.query_selector(passing):
                with contextlib.suppress(PlaywrightTimeout):  # the window closed meanwhile
                    who.locator(passing).click(timeout=1_000)
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} never showed")


def test_a_dead_end_chow_asks_first_and_a_first_chow_does_not(
    new_page: Callable[[], Page], server, screenshots: Path
) -> None:
    dealer, other, _ = _two_players_at_a_test_table(
        new_page, server, ("dead_deal", "dead_take"), TWO_CHOWS)
    dealer.click("#fill-bots")

    dealer.wait_for_selector('#my-hand button.tile.legal[data-tile="4m"]')
    discard(dealer, "4m")
    click_action(other, "chow", low="4m")  # a first 吃: no question
    other.wait_for_selector("[data-seat='1'] .melds .meld.chow")
    assert other.query_selector("#dead-end-dialog") is None
    other.wait_for_selector('#my-hand button.tile.legal[data-tile="5z"]')
    discard(other, "5z")

    # the bots throw (the players pass on what they could claim); the dealer's 3p is
    # offered to seat 1 as a 吃 in a second suit
    _pass_until(dealer, other, '#my-hand button.tile.legal[data-tile="3p"]')
    discard(dealer, "3p")
    click_action(other, "chow", low="3p")
    other.wait_for_selector("#dead-end-dialog")
    assert other.inner_text("#dead-end-text") == "这样吃后只能靠大吊车或杠开胡牌，仍要吃吗？"
    assert other.inner_text("#dead-end-yes") == "仍要吃"
    for width, height in SIZES:
        other.set_viewport_size({"width": width, "height": height})
        other.screenshot(path=str(screenshots / f"dead-end-zh-{width}x{height}.png"))
        box = other.locator("#dead-end-yes").bounding_box()
        assert box is not None and box["height"] >= 40 and box["x"] + box["width"] <= width

    # 取消: nothing is sent, the window stays open with its buttons
    other.click("#dead-end-no")
    assert other.query_selector("#dead-end-dialog") is None
    assert other.query_selector('#actions button.act[data-action="chow"][data-low="3p"]')
    assert len(other.query_selector_all("[data-seat='1'] .melds .meld.chow")) == 1

    to_english(other)
    click_action(other, "chow", low="3p")
    other.wait_for_selector("#dead-end-dialog")
    assert "big crane" in other.inner_text("#dead-end-text")
    for width, height in SIZES:
        other.set_viewport_size({"width": width, "height": height})
        other.screenshot(path=str(screenshots / f"dead-end-en-{width}x{height}.png"))
    other.click("#dead-end-yes")  # Chow anyway: the claim is sent
    other.wait_for_function(  # (a function: the page's policy allows no string to be evaluated)
        "() => document.querySelectorAll(\"[data-seat='1'] .melds .meld.chow\").length === 2")
    assert other.query_selector("#dead-end-dialog") is None
