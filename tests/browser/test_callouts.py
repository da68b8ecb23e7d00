"""The table is alive: a 碰 is called out over the claimer's place on every page at the table
and goes away; the page sounds a discard, the claim and the player's turn; a muted page plays
nothing, and stays muted after a reload; with reduced motion the callout shows without
moving."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.test_client import PUNG_ON_7Z, _two_players_at_a_test_table
from tests.browser.ui import click_action, discard
from tests.rules.test_wenzhou import QA, QB, QC, WAIT_5S_8S

# every callout the page shows, noted as it is first laid on the table (the table is drawn anew
# at every change, and a callout with it: one callout is one seat and start time): its seat,
# kind and text, its animation, and the seat whose river is nearest to its centre (the place it
# stands over)
NOTE_CALLOUTS = """
window.__callouts = [];
const seen = new Set();
const centre = (el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
new MutationObserver(() => {
  for (const el of document.querySelectorAll(".callout:not([data-noted])")) {
    el.dataset.noted = "1";
    const key = el.dataset.seat + "@" + el.dataset.at;
    if (seen.has(key)) continue;
    seen.add(key);
    const [x, y] = centre(el);
    const rivers = [...document.querySelectorAll(".river")].map((r) => {
      const [rx, ry] = centre(r);
      return [Math.hypot(rx - x, ry - y), r.id.replace("river-", "")];
    }).sort((a, b) => a[0] - b[0]);
    window.__callouts.push({
      seat: el.dataset.seat, kind: el.dataset.kind, text: el.textContent,
      animation: getComputedStyle(el).animationName, opacity: getComputedStyle(el).opacity,
      over: rivers[0][1],
    });
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture
def new_page(context_for: Callable[..., Page]) -> Callable[[], Page]:
    """Pages of their own (each its own player, in Chinese) that note their callouts."""

    def make() -> Page:
        page = context_for({"width": 1280, "height": 900})
        page.add_init_script(NOTE_CALLOUTS)
        return page

    return make


def _fx(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("({ ...window.__fx })"))


def _noted(page: Page, seat: int) -> list[dict[str, Any]]:
    return [c for c in page.evaluate("window.__callouts") if c["seat"] == str(seat)]


def test_a_pung_is_called_out_over_its_seat_with_a_sound_and_a_muted_page_stays_silent(
    new_page: Callable[[], Page], server: Server
) -> None:
    dealer, other, _ = _two_players_at_a_test_table(
        new_page, server, ("出声庄家", "碰牌闲家"), PUNG_ON_7Z)
    # the dealer's browser asks for reduced motion, and the dealer turns the sound off
    dealer.emulate_media(reduced_motion="reduce")
    assert dealer.get_attribute("#fx-settings", "data-muted") == "0"
    dealer.click("#fx-settings")
    assert dealer.get_attribute("#fx-sound", "aria-checked") == "true"
    dealer.click("#fx-sound")
    assert dealer.get_attribute("#fx-sound", "aria-checked") == "false"
    dealer.keyboard.press("Escape")  # closes the menu
    dealer.wait_for_selector("#fx-menu", state="detached")
    dealer.reload()  # the choice is kept
    dealer.wait_for_selector("#table-view")
    assert dealer.get_attribute("#fx-settings", "data-muted") == "1"
    assert dealer.get_attribute("#fx-settings", "aria-label") == "声音与动画（已静音）"

    other.click("#fill-bots")
    click_action(dealer, "decide", choice="buy")
    other.wait_for_selector('#actions button[data-choice="counter"]')
    click_action(other, "decide", choice="counter")
    dealer.wait_for_selector("#my-hand button.tile.legal")
    discard(dealer, "7z")  # a tap: the dealer's page may make sound, but it is muted
    other.wait_for_selector('#actions button[data-action="pung"]')
    other.wait_for_function("() => window.__fx.names.includes('discard')")  # the 中 laid down
    click_action(other, "pung")

    # both pages call the pung out over seat 1's place: the claimer's own (bottom) on its
    # page, the right-hand seat on the dealer's; then it goes away, the meld stays
    for page in (other, dealer):
        page.wait_for_function("() => window.__callouts.some(c => c.seat === '1')")
        page.wait_for_selector("#callout-1", state="detached")
        assert page.query_selector("[data-seat='1'] .melds .meld.pung")
    assert other.get_attribute("#table-view", "data-seat") == "1"
    for page in (other, dealer):
        [call] = _noted(page, 1)
        assert call["kind"] == "pung" and call["text"] == "碰!" and call["over"] == "1", call
        assert not _noted(page, 0)  # nothing over the discarder's place
    # it pops in on a page that allows motion, and simply shows with reduced motion
    assert "callout-in" in _noted(other, 1)[0]["animation"]
    assert _noted(dealer, 1)[0]["animation"] == "none"
    assert _noted(dealer, 1)[0]["opacity"] == "1"

    # the pung's chime, then the player's turn to discard, on the sounding page
    other.wait_for_function("() => window.__fx.names.includes('turn')")
    names = _fx(other)["names"]
    assert names.index("discard") < names.index("claim") < names.index("turn"), names
    # the muted page had sound unlocked by its taps, was sent the same events and its own
    # turn, and played none of it
    fx = _fx(dealer)
    assert fx["unlocked"] and fx["played"] == 0, fx


def test_reduced_motion_and_sound_are_chosen_in_the_table_menu_and_kept(
    new_page: Callable[[], Page], server: Server
) -> None:
    page, _, _ = _two_players_at_a_test_table(new_page, server, ("设置甲", "设置乙"), PUNG_ON_7Z)
    assert "reduced-motion" not in (page.get_attribute("#table-view", "class") or "")
    page.click("#fx-settings")
    assert page.get_attribute("#fx-motion", "aria-checked") == "false"
    assert page.get_attribute("#fx-sound", "aria-checked") == "true"
    page.click("#fx-motion")
    page.click("#fx-sound")
    assert page.get_attribute("#fx-motion", "aria-checked") == "true"
    assert page.get_attribute("#fx-settings", "data-muted") == "1"  # the bar's button says it
    page.reload()
    page.wait_for_selector("#table-view")
    assert "reduced-motion" in (page.get_attribute("#table-view", "class") or "")
    assert page.get_attribute("#fx-settings", "data-muted") == "1"
    # a phone's thumb reaches the button
    # (measured once the page has laid itself out for the phone: the table may be drawn anew
    # between the resize and a single reading)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function(
        "() => { const e = document.querySelector('#fx-settings');"
        " return e !== null && Math.min(e.offsetWidth, e.offsetHeight) >= 40; }", timeout=5000)


# 温州: seat 1 waits on 5s / 8s (tests/rules/test_wenzhou.py's WAIT_5S_8S); the honours go
# round (the dealer's 中, then 东 南 西 北 as drawn) and seat 1 draws its 8s: 自摸
SELF_DRAW_ON_8S = {
    "variant": "wenzhou", "stake": 1, "dealer": 0,
    "hands": [QA + "7z", WAIT_5S_8S, QB, QC], "draws": "1z2z3z4z8s", "indicator": "9s",
}


def test_a_self_drawn_win_is_called_out_big_over_the_winner_with_the_win_sound(
    new_page: Callable[[], Page], server: Server
) -> None:
    dealer, other, _ = _two_players_at_a_test_table(
        new_page, server, ("自摸庄家", "自摸闲家"), SELF_DRAW_ON_8S)
    other.click("#fill-bots")
    click_action(dealer, "decide", choice="buy")
    other.wait_for_selector('#actions button[data-choice="counter"]')
    click_action(other, "decide", choice="counter")
    dealer.wait_for_selector('#my-hand button.tile.legal[data-tile="7z"]')
    discard(dealer, "7z")
    other.wait_for_selector('#my-hand button.tile.legal[data-tile="1z"]')
    discard(other, "1z")  # honours first (温州)
    dealer.wait_for_selector('#my-hand button.tile.legal[data-tile="4z"]')
    discard(dealer, "4z")
    other.wait_for_selector('#actions button[data-action="hu"]')
    click_action(other, "hu")

    for page in (other, dealer):
        page.wait_for_function("() => window.__callouts.some(c => c.kind === 'self_draw')")
        [call] = [c for c in page.evaluate("window.__callouts") if c["kind"] == "self_draw"]
        assert call["seat"] == "1" and call["text"] == "自摸!" and call["over"] == "1", call
    assert "callout-in" in _noted(other, 1)[-1]["animation"]  # it pops in
    other.wait_for_function("() => window.__fx.names.includes('win')")
