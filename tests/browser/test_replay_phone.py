"""The replay's four hands on a phone (issue 38): at 390x844 and 844x390 every tile of every
hand is at least as large as the live table's river tiles (21x28 px), the page does not
scroll sideways, in both languages; the desktop keeps its larger tiles."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import autoplayed_hand, register

OUT = Path(os.environ.get("REPLAY_SHOTS", "/tmp/s47/warn"))
SIZES = [(390, 844), (844, 390), (1366, 900)]
SMALLEST = {"width": 21, "height": 28}  # the live table's river tile on a phone


def _smallest_hand_tile(page: Page) -> dict[str, float]:
    return page.evaluate("""() => {
      const boxes = [...document.querySelectorAll('.rp-seat .rp-hand .tile-svg')]
        .map((e) => e.getBoundingClientRect());
      const seats = [...document.querySelectorAll('.rp-seat')]
        .filter((s) => s.querySelector('.rp-hand .tile-svg')).length;
      return { seats, count: boxes.length, width: Math.min(...boxes.map((b) => b.width)),
               height: Math.min(...boxes.map((b) => b.height)) };
    }""")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_replays_hands_are_readable_on_a_phone(
    context_for: Callable[..., Page], server: Server, lang: str
) -> None:
    page = context_for({"width": 1366, "height": 900},
                       locale="zh-CN" if lang == "zh" else "en-US")
    register(page, server.base, f"phone_{lang}")
    autoplayed_hand(page)
    hand_id = str(page.get_attribute("#settle-replay", "data-hand"))
    page.goto(f"{server.base}/#/replay/{hand_id}")
    page.wait_for_selector("#replay-step")
    if page.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
        page.click("#lang")
    page.wait_for_selector(f'main[data-rendered$=":{lang}"]')
    total = int(str(page.get_attribute("#replay-seek", "max"))) + 1
    page.locator("#replay-seek").fill(str(total // 3))  # hands, melds and rivers in play
    OUT.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => window.innerWidth === {width}")
        page.screenshot(path=str(OUT / f"replay-{width}x{height}-{lang}.png"), full_page=True)
        tiles = _smallest_hand_tile(page)
        assert tiles["seats"] == 4, tiles  # four hands face up
        assert tiles["width"] >= SMALLEST["width"] and tiles["height"] >= SMALLEST["height"], (
            width, height, tiles)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{width}x{height}: {overflow}px wider than the screen"
