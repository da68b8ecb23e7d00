"""Melds and flowers that read on a phone (issue 38): a 上海 hand with flowers dealt to every
seat, where the player pungs the dealer's 中 and the next seat pungs the player's 东. Held
upright (390x844), on its side (844x390) and on a desktop (1366x900), every seat's meld and
flower tiles are at least 28 px tall (the claimed tile lies on its side as in 雀魂: 28 px
long), the giver's mark (its wind, an arrow to where it sits) stands clear of every tile,
and all of it is on the screen at once; on a phone the player's own melds and flowers lie
under its hand (upright) or at the ends of the hand's row (on its side)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.test_table import _alone_at_a_test_table
from tests.browser.ui import LEGAL, discard

MIN_TILE = 28  # px: the least height of a meld's or a flower's tile

# 上海, seat 3 deals: it leads its lone 中 (the rest of its hand is ready), the player (seat 0)
# pungs it and lets go of 东, which seat 1 pungs; every seat lays out flowers at the deal
FLOWERS_AND_PUNGS = {
    "variant": "shanghai",
    "stake": 1,
    "dealer": 3,
    "hands": ["147m258p36s177z2f3f", "123m456p789s112z4f", "123456789s11p5f6f", "12345678m1134p7z1f"],
    "replacements": "9m5z6z3z2p3p",
}

MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const faces = [...document.querySelectorAll(".tile-svg")].filter((s) => s.getBoundingClientRect().width > 0).map(box);
  const seatOf = (el) => el.closest("[data-seat]").dataset.seat;
  // what the page shows of a mark, its arrow (drawn by the style sheet) included
  const pseudo = (el, which) => { const c = getComputedStyle(el, which).content; return c === "none" ? "" : c.replace(/^"|"$/g, ""); };
  return {
    vw: window.innerWidth, vh: window.innerHeight, width: document.documentElement.scrollWidth,
    melds: [...document.querySelectorAll(".meld .tile")].map((el) => ({seat: seatOf(el),
      turned: el.classList.contains("turned"), ...box(el.querySelector(".tile-svg"))})),
    flowers: [...document.querySelectorAll(".flowers .tile")].map((el) => ({seat: seatOf(el), ...box(el.querySelector(".tile-svg"))})),
    marks: [...document.querySelectorAll(".meld-from")].map((el) => ({seat: seatOf(el),
      text: [pseudo(el, "::before"), el.innerText, pseudo(el, "::after")].join(""),
      font: parseFloat(getComputedStyle(el).fontSize), ...box(el)})),
    faces,
    hand: box(document.getElementById("my-hand")),
    mine: box(document.getElementById("my-melds")),
  };
}"""


def _overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["l"] < b["r"] - 0.5 and b["l"] < a["r"] - 0.5 and a["t"] < b["b"] - 0.5 and b["t"] < a["b"] - 0.5


def _on_screen(x: dict[str, float], vw: float, vh: float) -> bool:
    return x["l"] >= -0.5 and x["t"] >= -0.5 and x["r"] <= vw + 0.5 and x["b"] <= vh + 0.5


SCREENS = [
    ("portrait-zh", {"width": 390, "height": 844}, False),
    ("landscape-en", {"width": 844, "height": 390}, True),
    ("landscape-zh", {"width": 844, "height": 390}, False),
    ("desktop-en", {"width": 1366, "height": 900}, True),
]


@pytest.mark.parametrize(("name", "viewport", "english"), SCREENS, ids=[s[0] for s in SCREENS])
def test_every_seats_melds_and_flowers_read_with_their_giver(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path,
    name: str, viewport: dict[str, int], english: bool,
) -> None:
    page = context_for(viewport)
    if english:  # the language the player chose before (a phone on its side has no header)
        page.add_init_script("localStorage.setItem('lang', 'en')")
    _alone_at_a_test_table(page, server, f"melds_{name.replace('-', '_')}", FLOWERS_AND_PUNGS)
    page.wait_for_selector('#actions button[data-action="pung"]', timeout=30_000)
    page.click('#actions button[data-action="pung"]')
    page.wait_for_selector(LEGAL)
    discard(page, "1z")
    page.wait_for_selector("#seat-1 .meld.pung", timeout=20_000)
    page.mouse.move(0, 0)
    page.wait_for_timeout(700)  # the newest discard's drop has ended
    page.screenshot(path=str(screenshots / f"melds-{name}.png"))
    m = page.evaluate(MEASURE)
    vw, vh = m["vw"], m["vh"]
    assert m["width"] <= vw  # nothing wider than the screen

    # the player's pung of 中 (from the dealer, on the left) and seat 1's of 东 (from the player)
    assert {t["seat"] for t in m["melds"]} == {"0", "1"}
    assert {t["seat"] for t in m["flowers"]} == {"0", "1", "2", "3"}  # every seat was dealt some
    for tile in m["melds"] + m["flowers"]:
        long_side = tile["w"] if tile.get("turned") else tile["h"]
        assert long_side >= MIN_TILE - 0.5, tile
        assert min(tile["w"], tile["h"]) >= MIN_TILE * 3 / 4 - 0.5, tile  # a turned tile: 21 px high
        assert _on_screen(tile, vw, vh), tile
    assert sum(t["turned"] for t in m["melds"]) == 2  # one claimed tile a meld, lying on its side

    # the giver's mark: readable, on the screen, over no tile's face; an arrow to the giver
    texts = {mark["seat"]: mark["text"] for mark in m["marks"]}
    assert texts == ({"0": "◀E", "1": "▼S"} if english else {"0": "◀东", "1": "▼南"})
    for mark in m["marks"]:
        assert mark["font"] >= 11 and mark["h"] >= 12 and _on_screen(mark, vw, vh), mark
        assert [f for f in m["faces"] if _overlaps(mark, f)] == [], mark

    # on a phone the player's own melds and flowers are under the hand, or in its row
    if name.startswith("portrait"):
        assert m["mine"]["t"] >= m["hand"]["b"] - 0.5
    elif name.startswith("landscape"):
        assert m["hand"]["b"] >= vh - 12  # the hand along the bottom edge
        own = [t for t in m["melds"] if t["seat"] == "0"]
        assert min(t["b"] for t in own) >= m["hand"]["t"]  # the melds in the hand's row
