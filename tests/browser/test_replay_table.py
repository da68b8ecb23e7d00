"""The replay as a table (issue 38): a player of an ended hand watches it with all four hands
around the centre, plays it by itself (play / pause, 0.5x-4x), steps and seeks, ends on the
settlement as the table shows it, and shares it: a friend without an account opens the
link and watches; made private again, the link shows nothing."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import autoplayed_hand, register

PHONE = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
DESKTOP = {"width": 1366, "height": 900}
OUT = Path(os.environ.get("REPLAY_SHOTS", "/tmp/s46/web-replay"))


def _step(page: Page) -> int:
    return int(str(page.get_attribute("#replay-step", "data-step")))


def _set_lang(page: Page, lang: str) -> None:
    if page.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
        page.click("#lang")
    page.wait_for_selector(f'main[data-rendered$=":{lang}"]')


def _shots(page: Page, name: str, lang: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (PHONE, LANDSCAPE, DESKTOP):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)  # the layout settles (no assertion waits on it)
        page.screenshot(path=str(OUT / f"{name}-{size['width']}x{size['height']}-{lang}.png"),
                        full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} {size} {lang}: {overflow}px wider than the screen"


def test_a_shared_replay_plays_at_a_table_for_a_friend_without_an_account(
    context_for: Callable[[dict[str, int]], Page], server: Server
) -> None:
    page = context_for(DESKTOP)
    register(page, server.base, "分享者")
    autoplayed_hand(page)
    hand_id = str(page.get_attribute("#settle-replay", "data-hand"))
    page.goto(f"{server.base}/#/replay/{hand_id}")
    page.wait_for_selector("#replay-step")

    # four seats around a centre: the player at the bottom, every hand face up
    box = {i: page.locator(f".rp-seat.place-{i}").bounding_box() for i in range(4)}
    centre = page.locator(".rp-centre").bounding_box()
    assert box[0] and box[1] and box[2] and box[3] and centre
    assert box[2]["y"] < centre["y"] < box[0]["y"]  # across at the top, mine at the bottom
    assert box[3]["x"] < centre["x"] < box[1]["x"]  # left and right of the centre
    assert page.locator(".rp-seat .hidden-hand").count() == 0
    total = int(str(page.get_attribute("#replay-seek", "max"))) + 1
    assert total > 10 and _step(page) == 0

    # auto-play at 4x: the steps go by themselves; pause holds the step
    page.click("#replay-speed-4")
    assert page.get_attribute("#replay-speed-4", "aria-pressed") == "true"
    page.click("#replay-play")
    page.wait_for_function("() => Number(document.querySelector('#replay-step').dataset.step) >= 3")
    page.click("#replay-play")
    assert page.get_attribute("#replay-play", "data-playing") == "false"
    held = _step(page)
    page.wait_for_timeout(700)  # longer than two steps at 4x: nothing may move while paused
    assert _step(page) == held
    # seek to the middle, step back, then to the end: the settlement as at the table
    page.locator("#replay-seek").fill(str(total // 2))
    assert _step(page) == total // 2
    page.click("#replay-prev")
    assert _step(page) == total // 2 - 1
    page.locator("#replay-seek").fill(str(total - 1))
    page.wait_for_selector("#replay-settlement .score-sheet, #replay-settlement #rp-settle-table")
    assert page.locator("#rp-settle-table tbody tr").count() == 4
    page.locator("#replay-seek").fill(str(total // 3))
    for lang in ("zh", "en"):
        _set_lang(page, lang)
        _shots(page, "replay-table", lang)
    page.locator("#replay-seek").fill(str(total - 1))
    for lang in ("zh", "en"):
        _set_lang(page, lang)
        _shots(page, "replay-settlement", lang)
    _set_lang(page, "zh")

    # share: public, the link shown (and copied)
    page.set_viewport_size(DESKTOP)
    page.click("#replay-share-button")
    page.wait_for_selector("#replay-share[data-public='true']")
    link = page.input_value("#replay-link")
    assert link.endswith(f"#/replay/{hand_id}")
    for lang in ("zh", "en"):
        _set_lang(page, lang)
        page.set_viewport_size(PHONE)
        page.screenshot(path=str(OUT / f"replay-shared-390x844-{lang}.png"))

    # a friend with no account opens the link: the table, every hand, auto-play
    friend = context_for(PHONE)
    friend.goto(link)
    friend.wait_for_selector("#replay-step")
    assert friend.locator(".rp-seat .hidden-hand").count() == 0
    assert friend.locator("#replay-share").count() == 0  # not theirs to share
    friend.click("#replay-play")
    friend.wait_for_function("() => Number(document.querySelector('#replay-step').dataset.step) >= 1")
    friend.click("#replay-play")
    for lang in ("zh", "en"):
        friend.evaluate(f"localStorage.setItem('lang', '{lang}')")
        friend.reload()
        friend.wait_for_selector("#replay-step")
        _shots(friend, "replay-public", lang)

    # private again: the link shows nothing
    page.click("#replay-unshare")
    page.wait_for_selector("#replay-share[data-public='false']")
    friend.reload()
    friend.wait_for_selector("#replay-error[data-code='not_found']")
