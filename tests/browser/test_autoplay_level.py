"""A player's own 托管 level in the browser: the table's settings menu offers 普通 / 高手
(普通 chosen until the player chooses); 高手 chosen, it is still chosen after a reload, and
托管 on says "取消托管 · 高手", also after a reload, from the server's `table_state`. On a phone every row of the menu is a 40 px target."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import open_table, register

PHONE = {"width": 390, "height": 844}


def _note_seat_zero(page: Page) -> list[tuple[bool, str]]:
    """Seat 0's (autoplay, autoplay_level) of every `table_state` the page receives."""
    seen: list[tuple[bool, str]] = []

    def frame(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "table_state":
            me = message["seats"][0]
            seen.append((me["autoplay"], me["autoplay_level"]))

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return seen


def _until(page: Page, done: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        page.wait_for_timeout(100)


def _chosen(page: Page) -> list[str]:
    page.click("#fx-settings")
    page.wait_for_selector("#autoplay-level")
    checked = page.eval_on_selector_all(
        "#autoplay-level [role=radio]",
        "els => els.map((e) => e.id + '=' + e.getAttribute('aria-checked'))")
    page.keyboard.press("Escape")
    page.wait_for_selector("#fx-menu", state="detached")
    return list(checked)


def test_autoplay_at_expert_is_chosen_shown_on_the_button_and_kept_after_a_reload(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(PHONE)
    states = _note_seat_zero(page)
    register(page, server.base, "autolevel_ann")
    open_table(page, "lishui", 1)
    assert _chosen(page) == ["autoplay-level-standard=true", "autoplay-level-expert=false"]
    page.click("#fx-settings")
    for row in ("#autoplay-level-standard", "#autoplay-level-expert"):
        box = page.locator(row).bounding_box()
        assert box is not None and box["height"] >= 40 and box["width"] >= 40, row
    assert page.inner_text("#autoplay-level-expert").startswith("高手")
    page.click("#autoplay-level-expert")
    page.keyboard.press("Escape")
    page.reload()  # the choice is kept on this device
    page.wait_for_selector("#table-view")
    assert _chosen(page) == ["autoplay-level-standard=false", "autoplay-level-expert=true"]
    # 托管 on while the table waits for players: no hand ends (and no away seat leaves)
    # while the page reloads
    assert page.inner_text("#autoplay") == "托管"
    page.click("#autoplay")
    page.wait_for_selector("#autoplay[aria-pressed=true]")
    assert page.text_content("#autoplay") == "取消托管 · 高手"
    _until(page, lambda: (True, "expert") in states, "the server's table_state: 托管 at expert")
    box = page.locator("#autoplay").bounding_box()
    assert box is not None and box["height"] >= 40 and box["width"] >= 40
    page.reload()  # the page knows what the server says: the seat is played at 高手
    page.wait_for_selector("#autoplay[aria-pressed=true]")
    assert page.text_content("#autoplay") == "取消托管 · 高手"
