"""A disconnect penalty at the live table (RULES.md 1 and 7): a player whose tab closes during
a hand, still away when it ends, on a third disconnect in 24 hours, pays 2 x the base; the
other player's settlement says so, with its cause, as the replay does."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.test_client import CHOW_ON_5M, _two_players_at_a_test_table

OUT = Path(os.environ.get("PENALTY_SHOTS", "/tmp/s47/warn"))
QUICK = {**CHOW_ON_5M, "timers": {"discard": 1, "claim": 1, "ready": 120}}


def _disconnected_before(server: Server, username: str, times: int) -> None:
    """`times` earlier disconnects of the account within the last 24 hours."""
    now = datetime.now(UTC)
    with sqlite3.connect(server.database) as conn:
        (account,) = conn.execute(
            "SELECT id FROM accounts WHERE username = ?", (username,)).fetchone()
        conn.executemany(
            "INSERT INTO disconnects (account_id, hand_id, variant, at, penalty)"
            " VALUES (?, ?, 'lishui', ?, 0)",
            [(account, f"earlier-{n}", (now - timedelta(hours=n + 1)).strftime(
                "%Y-%m-%d %H:%M:%S.%f")) for n in range(times)])


@pytest.fixture
def new_page(context_for: Callable[..., Page]) -> Callable[[], Page]:
    return lambda: context_for({"width": 1280, "height": 900})


def test_a_player_who_drops_during_a_hand_pays_the_penalty_and_the_table_says_so(
    new_page: Callable[[], Page], server: Server
) -> None:
    stayer, dropper, _ = _two_players_at_a_test_table(
        new_page, server, ("留下的", "掉线的"), QUICK)
    _disconnected_before(server, "掉线的", 2)
    stayer.click("#fill-bots")
    stayer.wait_for_selector("#my-hand button.tile.legal")
    dropper.context.close()  # the tab goes during the hand, and stays away
    stayer.click("#autoplay")
    stayer.wait_for_selector("#settlement", timeout=180_000)
    line = stayer.locator("#settle-transfers li[data-reason='disconnect_penalty']")
    text = line.inner_text()
    # 丽水, a dealer's first hand: base 3, 2 x 3 x stake 1 = 6 silver
    assert "掉线的 付其他几家共 6 银两（掉线罚分）" in text, text
    assert "24 小时内第三次掉线" in text, text
    # the player is named throughout, though the seat was freed as the hand ended
    assert "南家" not in stayer.inner_text("#settlement")
    OUT.mkdir(parents=True, exist_ok=True)
    for width, height in ((390, 844), (844, 390), (1366, 900)):
        stayer.set_viewport_size({"width": width, "height": height})
        stayer.screenshot(path=str(OUT / f"settlement-disconnect-{width}x{height}-zh.png"))
