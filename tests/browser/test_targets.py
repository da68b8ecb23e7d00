"""Tap targets on a phone, held upright (390x844) and on its side (844x390): on every screen
(signing in, the lobby with its quick match and private-room cards, a private room on the
table page and the room's page, a 福州 table mid-hand, its log, the settlement, the board
between hands, the profile with its ledger, the leaderboards, the replay viewer) every
visible control (a, button, input, select, summary, [role=button]) is at least 40x40 px and
wholly on the screen (a hand of 17 tiles included); a checkbox counts by the label that wraps
it, which a tap anywhere on toggles. Screenshots of every screen are saved for a person to
look at."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import SETTLED, first_decision, open_table, register, unfold

MIN_TARGET = 40  # px

SMALL_TARGETS = """(min) => {
  const out = [];
  const name = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}` +
    ` "${(el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 20)}"`;
  for (const el of document.querySelectorAll("a, button, input, select, textarea, summary, [role=button]")) {
    if (el.type === "hidden" || getComputedStyle(el).visibility === "hidden") continue;
    const label = el.matches("input[type=checkbox], input[type=radio]") ? el.closest("label") : null;
    const r = (label || el).getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;  // not shown (display: none, a closed <details>)
    if (r.right <= 0 || r.bottom + window.scrollY <= 0) continue;  // the skip link, until it has focus
    if (r.width < min - 0.5 || r.height < min - 0.5) out.push(`${name(el)} ${Math.round(r.width)}x${Math.round(r.height)}`);
    // cut by the screen's edge (a page never scrolls sideways): a target only part of which is there
    else if (r.left < -0.5 || r.right > window.innerWidth + 0.5) out.push(`${name(el)} cut at ${Math.round(r.left)}-${Math.round(r.right)}`);
  }
  return out;
}"""

SIZES = {"portrait": {"width": 390, "height": 844}, "landscape": {"width": 844, "height": 390}}


def _check(page: Page, screen: str, shots: Path, seen: dict[str, list[str]]) -> None:
    page.wait_for_timeout(100)  # the page redraws after what opened it
    page.screenshot(path=str(shots / f"{screen}.png"), full_page=True)
    seen[screen] = list(page.evaluate(SMALL_TARGETS, MIN_TARGET))


@pytest.mark.parametrize("size", list(SIZES))
def test_every_control_on_every_phone_screen_is_at_least_40_px(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path, size: str
) -> None:
    page = context_for(SIZES[size])
    shots = screenshots / f"targets-{size}"
    shots.mkdir(exist_ok=True)
    seen: dict[str, list[str]] = {}
    page.goto(server.base + "/#/login")
    page.wait_for_selector("#auth-switch")
    _check(page, "login", shots, seen)
    register(page, server.base, f"tap_{size}")
    _check(page, "lobby", shots, seen)
    unfold(page, "rooms")
    unfold(page, "tables")
    _check(page, "lobby-unfolded", shots, seen)
    page.click("#room-rules summary")  # the house rules: a checkbox and a number each
    page.wait_for_selector(".room-opt input[type=checkbox]")
    _check(page, "lobby-house-rules", shots, seen)
    page.click(".quick-start[data-level='beginner']")  # quick match: the queue's panel
    page.wait_for_selector("#quick-cancel")
    _check(page, "quick-match", shots, seen)
    page.click("#quick-cancel")
    page.wait_for_selector("#quick-cancel", state="detached")

    # a table with bots: mid-hand, the settlement, the board between hands
    open_table(page, "fuzhou", 1)
    page.click("#fill-bots")
    first_decision(page)
    _check(page, "table", shots, seen)
    page.click("#event-strip")  # the action log, a drawer on a phone
    page.wait_for_selector("#action-log.open")
    _check(page, "table-log", shots, seen)
    page.click("#log-close")
    page.click("#autoplay")
    page.wait_for_selector(SETTLED, timeout=60_000)
    _check(page, "settlement", shots, seen)
    replay = str(page.get_attribute("#settle-replay", "href"))
    page.click("#settle-close")
    page.wait_for_selector(SETTLED, state="detached")
    _check(page, "table-between-hands", shots, seen)
    page.click("#autoplay")  # off, then up: the lobby
    page.click("#leave")
    page.wait_for_selector("#quick-card")  # the lobby

    page.goto(server.base + "/" + replay)
    page.wait_for_selector("#replay-step")
    _check(page, "replay", shots, seen)
    page.goto(server.base + "/#/profile")
    page.wait_for_selector("#ledger-rows a.hand-link")  # 回放这局 on the hand's row
    _check(page, "profile", shots, seen)
    page.goto(server.base + "/#/leaders")
    page.wait_for_selector("#board")
    _check(page, "leaderboards", shots, seen)

    # a private room: its strip on the table page, then the room's own page
    page.goto(server.base + "/#/lobby")
    page.wait_for_selector("#room-create", state="attached")
    unfold(page, "rooms")
    page.click("#room-create")
    page.wait_for_selector("#room-code-copy")
    _check(page, "room-table", shots, seen)
    code = str(page.get_attribute("#room-code-copy", "data-code"))
    page.goto(server.base + f"/#/room/{code}")
    page.wait_for_selector(".room-page")
    _check(page, "room-page", shots, seen)

    small = [f"{screen}: {', '.join(found)}" for screen, found in seen.items() if found]
    assert small == [], "\n".join(small)
