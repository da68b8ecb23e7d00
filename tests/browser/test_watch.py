"""Watching a table (旁观) and quick chat (快捷语) in the browser, on a phone (390x844) and a
desktop (1366x900), in Chinese and English: a player opens a table with bots; another
player watches it from the lobby's Watch button and sees the public view (all four seats'
discards, melds and hidden-tile counts, no hand of their own, no buttons to play); the
player's quick phrase shows as a bubble by its plate on both pages and in the log; the
spectator mutes the player from the chat panel. Both pages fit the screen, also with the
chat panel open. Screenshots under tests/browser/screenshots/ (watch-*, chat-*)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.test_table import DESKTOP, FITS, ON_SCREEN, OPEN_TABLE, PHONE
from tests.browser.ui import first_decision, register, to_english, unfold

# the hand waits for the player (who does not play here), so the pictures hold still
LONG = {"discard": 300, "claim": 300, "decide": 300, "ready": 300}

CASES = [
    ("phone-zh", PHONE, False, "fuzhou"),
    ("phone-en", PHONE, True, "lishui"),
    ("desktop-zh", DESKTOP, False, "wenzhou"),
    ("desktop-en", DESKTOP, True, "shanghai"),
]




def _fits(page: Page, extra: list[str] | None = None) -> list[str]:
    return list(page.evaluate(FITS, ON_SCREEN + (extra or [])))


@pytest.mark.parametrize(("name", "viewport", "english", "variant"), CASES, ids=[c[0] for c in CASES])
def test_a_spectator_watches_and_the_table_chats(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path,
    name: str, viewport: dict[str, int], english: bool, variant: str,
) -> None:
    suffix = name.replace("-", "_")
    host = context_for(viewport)
    register(host, server.base, f"host_{suffix}")
    if english:
        to_english(host)
    host.evaluate(OPEN_TABLE, {"variant": variant, "stake": 1, "timers": LONG})
    host.wait_for_selector("#table-view")
    table_id = host.get_attribute("#table-view", "data-table")
    host.click("#fill-bots")
    first_decision(host)  # a hand is in play, waiting for the player

    # the spectator finds the table in the lobby and watches it
    eye = context_for(viewport)
    register(eye, server.base, f"eye_{suffix}")
    if english:
        to_english(eye)
    unfold(eye, "tables")
    eye.click(f'a.watch[data-table="{table_id}"]')
    eye.wait_for_selector("#table-view[data-watching='1'] #wall-count")
    watching = eye.inner_text("#watching")
    assert ("Watching" if english else "旁观中") in watching
    assert not eye.query_selector("#my-hand button")  # no hand of its own
    assert not eye.query_selector("#autoplay, #fill-bots, #actions button")  # nothing to play
    assert eye.inner_text("#leave") == ("Stop watching" if english else "退出旁观")
    for seat in range(4):  # every seat as the others see it: its plate, its river
        assert eye.query_selector(f"#plate-{seat}") and eye.query_selector(f"#river-{seat}")
    # the player is told someone watches
    host.wait_for_selector("#watching[data-spectators='1']")

    # the player says a phrase: a bubble by its plate on both pages, and a line in the log
    host.click("#chat-open")
    host.wait_for_selector("#chat-panel")
    host.screenshot(path=str(screenshots / f"chat-{name}-panel.png"))
    assert [x for x in _fits(host, ["#chat-panel"]) if "#chat-panel" in x] == []
    phrase = "Well played" if english else "打得好"
    host.click('#chat-panel button.phrase[data-phrase="nice_play"]')
    host.wait_for_selector("#chat-panel", state="detached")
    for page in (host, eye):
        page.wait_for_selector("#bubble-0[data-phrase='nice_play']")
        assert page.inner_text("#bubble-0") == phrase
    if viewport == DESKTOP:  # the log is a column beside the board
        assert phrase in eye.inner_text("#log-entries")
    eye.screenshot(path=str(screenshots / f"watch-{name}-bubble.png"))
    assert _fits(eye) == []
    host.click("#chat-open")
    host.click('#chat-panel button.reaction[data-phrase="thumbs_up"]')
    eye.wait_for_selector("#bubble-0.face[data-phrase='thumbs_up']")

    # the spectator does not chat; it mutes the player from the chat panel
    eye.click("#chat-open")
    eye.wait_for_selector("#chat-panel")
    assert not eye.query_selector("#chat-panel button.phrase")
    eye.click("#mute-0")
    eye.wait_for_selector("#mute-0[aria-pressed='true']")
    eye.wait_for_selector("#plate-0 .badge.muted")
    eye.screenshot(path=str(screenshots / f"watch-{name}-mutes.png"))
    assert [x for x in _fits(eye, ["#chat-panel"]) if "#chat-panel" in x] == []
    eye.keyboard.press("Escape")
    eye.wait_for_selector("#chat-panel", state="detached")

    # stopping: back to the lobby, and the player sees nobody watch
    eye.click("#leave")
    eye.wait_for_selector("#quick-card")  # the lobby
    host.wait_for_selector("#watching", state="detached")
