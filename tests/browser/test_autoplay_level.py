"""A player's own 托管 level in the browser: the table's settings menu offers 普通 / 高手
(普通 chosen until the player chooses); 高手 chosen, it is still chosen after a reload, and
托管 on says "取消托管 · 高手". On a phone every row of the menu is a 40 px target."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import open_table, register

PHONE = {"width": 390, "height": 844}


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
    page.click("#fill-bots")
    page.wait_for_selector("#autoplay")
    assert page.inner_text("#autoplay") == "托管"
    page.click("#autoplay")
    page.wait_for_selector("#autoplay[aria-pressed=true]")
    assert page.inner_text("#autoplay") == "取消托管 · 高手"
