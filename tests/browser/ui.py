"""Driving the client the way a player does: forms, buttons and tiles on the page."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.browser.conftest import PASSWORD

# a prompt is waiting: an action button, or a tile of the hand that may be discarded (tiles
# the rules hold back on a turn are greyed but not disabled: a tap says why)
LEGAL = "#my-hand button.tile.legal"
PROMPTED = f"#actions button.act, {LEGAL}"
SETTLED = "#settlement"
TABLE_SOCKET = re.compile(r"/ws(/[A-Za-z0-9_-]+)?$")  # the table page's /ws/<table_id>
CLAIM_ORDER = ("hu", "pass")  # what the simple player answers, in order of preference


def register(page: Page, base: str, username: str) -> None:
    """Register through the form (which signs in) and land in the lobby."""
    page.goto(base + "/")
    page.click("#auth-switch")
    # the register form replaces the login form when the route changes: filling before
    # that fills the login form, and the empty register form then refuses to submit
    page.wait_for_selector('#auth-switch[href="#/login"]')
    page.fill("#auth-username", username)
    page.fill("#auth-password", PASSWORD)
    page.click("#auth-submit")
    # a password hash takes its turn (two at a time per server): a loaded machine is slow;
    # a refusal shows in the form (its code in data-code)
    page.wait_for_selector("#quick-card, #auth-error[data-code]", timeout=60_000)
    error = page.query_selector("#auth-error[data-code]")
    assert error is None, f"{error.get_attribute('data-code')}: {error.inner_text()}"


def first_decision(page: Page, hands: int = 5) -> None:
    """Wait for this seat's first decision of a hand. A hand may end before the seat is
    asked anything (福州: about 3 % of greedy self-play hands for a given seat, a bot's
    抢金 or early win): the player then says ready (准备) and waits in the next one."""
    for _ in range(hands):
        page.wait_for_selector(f"{PROMPTED}, {SETTLED}")
        if not page.is_visible(SETTLED):
            return
        page.click("#settle-ready")
        page.wait_for_selector(SETTLED, state="hidden")
    raise AssertionError(f"{hands} hands ended before this seat was asked anything")


def unfold(page: Page, section: str) -> None:
    """Open a section of the lobby below quick match (`rooms`, `tables`): folded on a phone,
    as a player taps its summary."""
    details = page.locator(f"#lobby-{section}")  # found anew if the lobby is drawn again
    if not details.evaluate("d => d.open"):
        details.locator("> summary").click()


def open_table(page: Page, variant: str, stake: int) -> str:
    """Open a table from the lobby form; the client sits and shows it. Its id."""
    unfold(page, "tables")
    page.select_option("#create-variant", variant)
    page.fill("#create-stake", str(stake))
    page.click("#create-submit")
    page.wait_for_selector("#table-view")
    return str(page.get_attribute("#table-view", "data-table"))


def autoplayed_hand(page: Page, variant: str = "lishui") -> None:
    """At a new table of `variant` (stake 1) with three bots, the server plays the page's seat
    (托管) to the hand's end: the settlement shows."""
    open_table(page, variant, 1)
    page.click("#fill-bots")
    page.wait_for_selector("#autoplay")
    page.click("#autoplay")
    page.wait_for_selector("#settlement", timeout=60_000)


def hand_tiles(page: Page) -> list[str]:
    return [str(t) for t in page.eval_on_selector_all(
        "#my-hand button.tile", "els => els.map(e => e.dataset.tile)")]


def legal_buttons(page: Page) -> list[dict[str, Any]]:
    return list(page.eval_on_selector_all(
        "#actions button.act",
        "els => els.map(e => ({action: e.dataset.action, choice: e.dataset.choice || null,"
        " low: e.dataset.low || null, tile: e.dataset.tile || null, id: e.id}))",
    ))


def click_action(page: Page, action: str, **fields: str) -> None:
    selector = f'#actions button.act[data-action="{action}"]'
    for key, value in fields.items():
        selector += f'[data-{key}="{value}"]'
    page.click(selector, timeout=10_000)


def discard(page: Page, tile: str | None = None) -> str:
    """Discard `tile`, else the drawn tile when allowed (摸切), else the last allowed tile. On
    a narrow screen the first tap selects the tile and the second discards it."""
    if tile is None:
        drawn = page.query_selector(f"{LEGAL}.drawn")
        chosen = drawn or page.query_selector_all(LEGAL)[-1]
        tile = str(chosen.get_attribute("data-tile"))
        index = str(chosen.get_attribute("data-index"))
    else:
        index = str(page.get_attribute(f'{LEGAL}[data-tile="{tile}"]', "data-index"))
    selector = f'{LEGAL}[data-index="{index}"]'
    page.click(selector)
    if page.get_attribute("#my-hand", "data-confirm") == "1":
        page.click(f"{selector}.selected")
    return tile


def answer_once(page: Page) -> str | None:
    """Answer the prompt on the page, if any: 胡 when offered, else 过 in a claim, else a
    discard. What was done (None: nothing to answer now)."""
    buttons = legal_buttons(page)
    actions = [b["action"] for b in buttons]
    for wanted in CLAIM_ORDER:
        if wanted in actions:
            click_action(page, wanted)
            return wanted
    if buttons and not page.query_selector(LEGAL):
        page.click(f'#{buttons[0]["id"]}')
        return str(buttons[0]["action"])
    if page.query_selector(LEGAL):
        return "discard " + discard(page)
    return None


def play_until_settled(page: Page, timeout: float = 45.0) -> list[str]:
    """Answer every prompt until the settlement dialog shows; what was done."""
    done: list[str] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            page.wait_for_selector(f"{SETTLED}, {PROMPTED}", timeout=20_000)
            if page.query_selector(SETTLED):
                return done
            answered = answer_once(page)
        except PlaywrightError:
            continue  # the page redrew under the click: look again
        if answered:
            done.append(answered)
    raise AssertionError(f"no settlement after {timeout} s; did {done[-10:]}")


def settled_balance(page: Page) -> int:
    """The balance the settlement dialog shows once the hand's silver has moved."""
    page.wait_for_selector("#settle-balance[data-balance]:not([data-balance=''])", timeout=15_000)
    shown = page.get_attribute("#settle-balance", "data-balance")
    text = page.inner_text("#settle-balance").replace(",", "")
    assert shown is not None and text == shown
    return int(shown)


def discards_of(page: Page, seat: int = 0) -> list[str]:
    return [str(t) for t in page.eval_on_selector_all(
        f"#seat-{seat} .discards .tile", "els => els.map(e => e.dataset.tile)")]


def wait_discarded(page: Page, before: list[str], tile: str, seat: int = 0) -> None:
    """Wait until the seat's discards show `tile` after the `before` ones."""
    page.wait_for_function(
        "([seat, n]) => document.querySelectorAll(`#seat-${seat} .discards .tile`).length > n",
        arg=[seat, len(before)],
    )
    assert discards_of(page, seat)[len(before)] == tile


def to_english(page: Page) -> None:
    """Switch the page to English and wait until it is."""
    page.click("#lang")
    page.wait_for_selector("html[lang=en]")
