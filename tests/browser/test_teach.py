"""Teaching at the table: on the player's turn the tiles whose discard leaves the hand ready
(听牌) are marked, pointing at (or selecting) one shows what the hand then waits on with the
copies not yet seen, and after the discard the hand's waits stay shown by the hand. The 玩法
card of each variant opens from the lobby and from the table, in Chinese and English.

Screenshots go under tests/browser/screenshots/ for a person to look at."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.test_table import _alone_at_a_test_table
from tests.browser.ui import (
    LEGAL,
    discards_of,
    register,
    to_english,
    unfold,
    wait_discarded,
)
from tests.live import live_server, sqlite_settings

# 丽水, the dealer (seat 0, the page) holds 566778899m 11s 667z (6z 发, 7z 中; the wild is
# 9s): discarding 5m waits on 中, discarding 中 waits on 5m, three of each unseen (the
# server's scenario, with seats 2 and 3 waiting elsewhere so that the 5m is not won on)
TWO_WAIT_ON_5M: dict[str, Any] = {
    "variant": "lishui",
    "stake": 1,
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z3s", "234567s234m222z1p"],
    "indicator": "9s",
}
SIZES = {"phone": {"width": 390, "height": 844}, "landscape": {"width": 844, "height": 390},
         "desktop": {"width": 1366, "height": 900}}
VARIANTS = {"lishui": ("丽水", "Lishui"), "wenzhou": ("温州", "Wenzhou"), "huzhou": ("湖州", "Huzhou"),
            "fuzhou": ("福州", "Fuzhou"), "shanghai": ("上海", "Shanghai")}
# a fact each card must say (RULES.md), in each language
FACTS = {
    "lishui": ("统包", "统包"), "wenzhou": ("先出风字", "Honours first"), "huzhou": ("百搭", "Wild (百搭)"),
    "fuzhou": ("花", "Flowers"), "shanghai": ("只有特殊牌型才能胡", "Only special hands win"),
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The test server with bots at a slow pace: the hand's waits after a discard stay
    shown until this seat's next turn, a few bot turns later."""
    database = tmp_path / "browser.db"
    with live_server(sqlite_settings(database, test_mode=True, bot_delay_ms=(4000, 4000))) as (port, _):
        yield Server(f"http://127.0.0.1:{port}", database)


def _waits(page: Page) -> list[tuple[str, str]]:
    return [(str(w[0]), str(w[1])) for w in page.eval_on_selector_all(
        "#ready-strip:not([hidden]) .wait", "els => els.map(e => [e.dataset.tile, e.dataset.unseen])")]


def _switch_language(page: Page, english: bool) -> None:
    """The header's language switch; a landscape phone's table hides the header, so the
    page is widened for the click."""
    if (page.get_attribute("html", "lang") == "en") == english:
        return
    size = page.viewport_size
    assert size is not None
    if not page.is_visible("#lang"):
        page.set_viewport_size(SIZES["desktop"])
    if english:
        to_english(page)
    else:
        page.click("#lang")
        page.wait_for_selector("html[lang=zh-CN]")
    page.set_viewport_size(size)


def _to_chinese(page: Page) -> None:
    _switch_language(page, False)


@pytest.mark.parametrize("size", list(SIZES))
def test_ready_discards_are_marked_and_their_waits_shown_before_and_after_the_discard(
    context_for: Callable[..., Page], server: Server, screenshots: Path, size: str
) -> None:
    page = context_for(SIZES[size])
    _alone_at_a_test_table(page, server, f"ready_marks_{size}", TWO_WAIT_ON_5M)
    page.wait_for_selector(LEGAL)

    marked = page.eval_on_selector_all("#my-hand button.tile.ready", "els => els.map(e => e.dataset.tile)")
    assert sorted(marked) == ["5m", "7z"]
    assert page.locator("#my-hand button.tile.ready .ready-mark").count() == 2
    assert "中×3" in str(page.get_attribute('#my-hand button.tile.ready[data-tile="5m"]', "aria-label"))
    assert page.is_hidden("#ready-strip")  # nothing discarded yet, nothing pointed at

    # pointing at 中 shows it would wait on 5m; pointing at 5m, on 中 (three unseen)
    page.hover('#my-hand button.tile.ready[data-tile="7z"]')
    page.wait_for_selector("#ready-strip.preview:not([hidden])")
    assert _waits(page) == [("5m", "3")]
    five = '#my-hand button.tile.ready[data-tile="5m"]'
    page.hover(five)
    page.wait_for_function("() => document.querySelector('#ready-strip .wait')?.dataset.tile === '7z'")
    assert _waits(page) == [("7z", "3")]
    assert "打出听" in page.inner_text("#ready-strip") and "×3" in page.inner_text("#ready-strip")
    page.screenshot(path=str(screenshots / f"ready-marks-{size}-zh.png"))
    _switch_language(page, True)
    page.hover(five)
    page.wait_for_selector("#ready-strip.preview:not([hidden])")
    assert "Then waits:" in page.inner_text("#ready-strip")
    page.screenshot(path=str(screenshots / f"ready-marks-{size}-en.png"))

    # discard 5m (a phone: a first tap selects it, and shows its waits too)
    before = discards_of(page)
    page.click(five)
    if page.get_attribute("#my-hand", "data-confirm") == "1":
        page.mouse.move(0, 0)
        assert _waits(page) == [("7z", "3")]  # selected: its waits, without a pointer on it
        page.click(f"{five}.selected")
    wait_discarded(page, before, "5m")
    page.mouse.move(0, 0)
    page.wait_for_selector("#ready-strip:not(.preview):not([hidden])")
    assert _waits(page) == [("7z", "3")]
    assert page.locator("#my-hand button.tile.ready").count() == 0  # the marks are for a turn
    assert "Waits:" in page.inner_text("#ready-strip")
    page.screenshot(path=str(screenshots / f"ready-waits-{size}-en.png"))
    _to_chinese(page)
    page.wait_for_selector("#ready-strip:not([hidden])")
    assert _waits(page) == [("7z", "3")] and "听牌" in page.inner_text("#ready-strip")
    page.screenshot(path=str(screenshots / f"ready-waits-{size}-zh.png"))


def _card_opens(page: Page, opener: str, variant: str, english: bool) -> None:
    page.click(opener)
    page.wait_for_selector(f'#how-to-win[open][data-variant="{variant}"]')
    title = page.inner_text("#how-to-win-title")
    assert VARIANTS[variant][int(english)] in title
    lines = page.locator("#how-to-win .howto-lines li")
    assert lines.count() >= 4
    assert FACTS[variant][int(english)] in page.inner_text("#how-to-win")
    assert page.evaluate("() => document.activeElement?.id") == "how-to-win-close"
    page.click("#how-to-win-close")
    page.wait_for_selector("#how-to-win", state="detached")


def test_every_variant_has_a_how_to_win_card_in_the_lobby_and_at_the_table(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = context_for(SIZES["phone"])
    register(page, server.base, "howto_reader")
    for english in (False, True):
        if english:
            to_english(page)
        for variant in VARIANTS:
            unfold(page, "tables")  # the table form, folded under quick match on a phone
            page.select_option("#create-variant", variant)
            _card_opens(page, "#lobby-how-to-win", variant, english)
    unfold(page, "tables")
    page.select_option("#create-variant", "shanghai")
    page.click("#lobby-how-to-win")
    page.wait_for_selector("#how-to-win[open]")
    page.screenshot(path=str(screenshots / "how-to-win-lobby-phone-en.png"))
    page.keyboard.press("Escape")  # the dialog closes as dialogs do
    page.wait_for_selector("#how-to-win", state="detached")
    _to_chinese(page)

    # at a table of each variant: its own card, in both languages
    for variant in VARIANTS:
        page.goto(server.base + "/#/lobby")
        unfold(page, "tables")
        page.select_option("#create-variant", variant)
        page.click("#create-submit")
        page.wait_for_selector("#table-view #table-how-to-win")
        _card_opens(page, "#table-how-to-win", variant, False)
        to_english(page)
        _card_opens(page, "#table-how-to-win", variant, True)
        _to_chinese(page)
        if variant == "wenzhou":  # one card, at the table, as each screen shows it
            for name, size in SIZES.items():
                page.set_viewport_size(size)
                for english in (False, True):
                    _switch_language(page, english)
                    page.click("#table-how-to-win")
                    page.wait_for_selector("#how-to-win[open]")
                    lang = "en" if english else "zh"
                    page.screenshot(path=str(screenshots / f"how-to-win-table-{name}-{lang}.png"))
                    page.click("#how-to-win-close")
            _to_chinese(page)
            page.set_viewport_size(SIZES["phone"])
        page.click("#leave")
        page.wait_for_selector("#quick-card")
