"""Private rooms (好友房) in the browser, as two friends use them (docs/rooms.md,
docs/client.md "Private rooms"): on a phone (390x844) and a desktop (1366x900), in Chinese
and English, each test with two players in two browser contexts.

- A session: the owner opens a two-hand 丽水 room from the lobby's card with two house
  rules changed (a switch off, a number raised; a value out of bounds is refused by the
  server and said next to its control); the table shows the code; the friend types the
  code, sees the room's rules in words and who sits, and joins; the owner calls bots (the
  friend has no such button), both turn 托管 on, and the session ends on the scoreboard
  (大结算) whose totals are its rows added up, with the winner on top; the profile lists the
  room and its page shows the same scoreboard.
- Dissolving: before the first hand the owner dissolves at once (the friend has no button);
  in a dealt hand one player asks, the other refuses (play goes on), then agrees to the next
  ask: both see the room dissolved, the hand voided.

Every page fits its screen (no sideways overflow; the table page does not scroll) and its
buttons are at least 40 px. Screenshots: tests/browser/screenshots/rooms-*.png."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Dialog, Page
from playwright.sync_api import Error as PlaywrightError

from tests.browser.conftest import Server
from tests.browser.test_table import DESKTOP, FITS, ON_SCREEN, PHONE
from tests.browser.ui import PROMPTED, register, to_english, unfold

# the room's own parts of the table page that must be on screen with the rest
ROOM_ON_SCREEN = ["#room-strip", "#room-code-copy", "#room-progress", "#room-rules-toggle"]

# A page other than the table: nothing wider than the screen, every control of `root` at
# least 40 px tall and wide enough to hit (a checkbox counts by its label).
PAGE_FITS = """(root) => {
  const vw = window.innerWidth;
  const out = [];
  if (document.documentElement.scrollWidth > vw) out.push(`page ${document.documentElement.scrollWidth} px wide in ${vw}`);
  const box = document.querySelector(root);
  if (!box) return [`${root}: missing`];
  for (const el of box.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > vw + 0.5) out.push(`${el.tagName}#${el.id}.${el.className} ends at ${Math.round(r.right)}`);
  }
  const targets = box.querySelectorAll("button, a.button, select, summary, label.check, input:not([type=checkbox])");
  for (const el of targets) {
    const r = el.getBoundingClientRect();
    if (!r.width) continue; // not shown
    if (r.height < 39.5 || r.width < 39.5) out.push(`small ${el.tagName}#${el.id}: ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  return out;
}"""

SCOREBOARD = """() => {
  const board = document.querySelector("#room-board");
  const num = (td) => td.dataset.points === "" ? null : Number(td.dataset.points);
  const silver = (td) => td.dataset.silver === "" ? null : Number(td.dataset.silver);
  return {
    players: [...board.querySelectorAll("thead .player-col")].map((th) => th.innerText.trim()),
    rows: [...board.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map(num)),
    rowsSilver: [...board.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map(silver)),
    total: [...board.querySelectorAll("tfoot td")].map(num),
    totalSilver: [...board.querySelectorAll("tfoot td")].map(silver),
    winners: [...document.querySelectorAll("#room-ranks .room-rank.winner")].map((li) => Number(li.dataset.points)),
    first: Number(document.querySelector("#room-ranks .room-rank").dataset.points),
    best: document.querySelectorAll("#room-board td.best").length,
  };
}"""




def _table_fits(page: Page, extra: list[str] | None = None) -> list[str]:
    return list(page.evaluate(FITS, ON_SCREEN + ROOM_ON_SCREEN + (extra or [])))


def _page_fits(page: Page, root: str) -> list[str]:
    return list(page.evaluate(PAGE_FITS, root))


def _accept_dialogs(page: Page) -> list[str]:
    """Say yes to every confirm() on the page; the questions asked."""
    asked: list[str] = []

    def accept(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    return asked


def _open_room(page: Page, *, variant: str = "lishui", hands: int = 2, stake: int = 1) -> str:
    """Fill the lobby card's create form with the defaults' house rules and open the room;
    the code the table page shows."""
    page.wait_for_selector("#room-create-form #room-opts .room-opt", state="attached")
    unfold(page, "rooms")
    page.select_option("#room-variant", variant)
    page.fill("#room-stake", str(stake))
    page.fill("#room-length", str(hands))
    page.click("#room-create")
    page.wait_for_selector("#room-code-copy")
    return str(page.get_attribute("#room-code-copy", "data-code"))


def _join(page: Page, code: str) -> None:
    unfold(page, "rooms")
    page.fill("#room-code", code)
    page.wait_for_selector(f'.room-card[data-code="{code}"] #room-join')
    page.click("#room-join")
    page.wait_for_selector("#room-code-copy")


def _until_scoreboard(pages: list[Page], timeout: float = 150.0) -> None:
    """Both players on 托管: say 准备 to each settlement until the scoreboard shows on every
    page."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(p.query_selector("#room-scoreboard") for p in pages):
            return
        for p in pages:
            try:
                if not p.query_selector("#room-scoreboard") and p.query_selector("#settle-ready"):
                    p.click("#settle-ready", timeout=2_000)
            except PlaywrightError:
                pass  # redrawn under the click
        pages[0].wait_for_timeout(300)
    raise AssertionError("no scoreboard")


def test_a_room_opened_with_house_rules_is_joined_by_its_code_and_ends_on_the_scoreboard(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path
) -> None:
    owner = context_for(PHONE)  # Chinese, on a phone
    friend = context_for(DESKTOP)  # English, on a desktop
    register(owner, server.base, "room_owner")
    register(friend, server.base, "room_friend")
    to_english(friend)

    # the lobby's card: the house rules of the chosen variant, one control each
    owner.wait_for_selector("#rooms-card #room-opts .room-opt", state="attached")
    unfold(owner, "rooms")
    owner.select_option("#room-variant", "lishui")
    owner.fill("#room-length", "2")
    owner.click("#room-rules summary")
    owner.wait_for_selector('.room-opt[data-option="follow_penalty"] input[type=checkbox]:checked')
    assert "被跟" in owner.inner_text('.room-opt[data-option="follow_penalty"]')
    assert "默认" in owner.inner_text('.room-opt[data-option="base_first"]')
    owner.click('.room-opt[data-option="follow_penalty"] label.check')  # off
    owner.fill("#opt-base_first", "5")
    assert "改了 2 项" in owner.inner_text("#room-rules-count")
    assert owner.query_selector_all(".room-opt.changed") and len(owner.query_selector_all(".room-opt.changed")) == 2

    # a value out of its bounds: the server refuses it and the page says so by its control
    owner.eval_on_selector("#opt-tongbao_chows", "e => { e.removeAttribute('max'); e.value = '9'; "
                           "e.dispatchEvent(new Event('input')); }")
    owner.click("#room-create")
    owner.wait_for_selector("#opt-tongbao_chows-error[data-code=validation_error]")
    assert "1 到 4" in owner.inner_text("#opt-tongbao_chows-error")
    assert owner.get_attribute("#room-create-error", "data-code") == "validation_error"
    owner.locator("#rooms-card").screenshot(path=str(screenshots / "rooms-create-refused-phone-zh.png"))
    assert _page_fits(owner, "#rooms-card") == []
    owner.fill("#opt-tongbao_chows", "3")  # back to the default: not sent
    owner.click("#room-create")
    owner.wait_for_selector("#room-code-copy")
    code = str(owner.get_attribute("#room-code-copy", "data-code"))
    assert len(code) == 6 and code.isdigit()
    assert code in owner.inner_text("#room-strip") and "第 1/2 局" in owner.inner_text("#room-strip")

    # the friend types the code: the room's rules in words and who sits, before joining
    friend.wait_for_selector("#room-code")
    assert friend.get_attribute("#room-code", "inputmode") == "numeric"
    friend.fill("#room-code", code)
    friend.wait_for_selector(f'.room-card[data-code="{code}"] #room-join')
    preview = friend.inner_text("#room-preview")
    assert "Lishui" in preview and "2 hands" in preview
    follow = friend.inner_text('#room-preview .house-rules li[data-option="follow_penalty"]')
    assert follow.startswith("off") and "a discard followed" in follow
    base = friend.inner_text('#room-preview .house-rules li[data-option="base_first"]')
    assert "5" in base and "default: 3" in base
    assert len(friend.query_selector_all("#room-preview .house-rules li")) == 2
    assert "room_owner" in friend.inner_text("#room-preview .room-seats") and "owner" in friend.inner_text(
        "#room-preview .room-seats")
    friend.screenshot(path=str(screenshots / "rooms-join-preview-desktop-en.png"), full_page=True)
    assert _page_fits(friend, "#rooms-card") == []
    # the owner lets people with the code watch: the preview offers it, with the code
    watch = str(friend.get_attribute("#room-watch", "href"))
    assert watch.startswith("#/watch/") and watch.endswith(f"/{code}")
    friend.click("#room-join")
    friend.wait_for_selector("#room-code-copy")
    assert friend.get_attribute("#room-code-copy", "data-code") == code
    assert "Hand 1/2" in friend.inner_text("#room-strip")
    assert not friend.query_selector("#room-dissolve")  # before the first hand: the owner's
    friend.click("#room-rules-toggle")
    friend.wait_for_selector("#room-rules-panel")
    assert "a discard followed" in friend.inner_text("#room-rules-panel")
    friend.screenshot(path=str(screenshots / "rooms-rules-desktop-en.png"))
    friend.click("#room-rules-close")

    # only the owner calls bots; the first hand is dealt
    owner.wait_for_function("() => document.querySelectorAll('.plate .name').length === 4")
    assert not friend.query_selector("#fill-bots")
    owner.click("#fill-bots")
    owner.wait_for_selector(PROMPTED + ", #wall-count")
    owner.screenshot(path=str(screenshots / "rooms-table-phone-zh.png"))
    assert _table_fits(owner) == []
    owner.click("#room-rules-toggle")
    owner.wait_for_selector("#room-rules-panel")
    assert "被跟" in owner.inner_text('#room-rules-panel li[data-option="follow_penalty"]')
    owner.screenshot(path=str(screenshots / "rooms-rules-phone-zh.png"))
    assert _table_fits(owner, ["#room-rules-panel", "#room-rules-close"]) == []
    owner.click("#room-rules-close")

    # someone holding the code watches through the link the preview offered
    eye = context_for(DESKTOP)
    register(eye, server.base, "room_eye")
    eye.goto(server.base + "/" + watch)
    eye.wait_for_selector("#table-view[data-watching='1'] #wall-count")
    eye.close()
    friend.wait_for_selector("#wall-count")
    friend.screenshot(path=str(screenshots / "rooms-table-desktop-en.png"))
    assert _table_fits(friend) == []

    # both on 托管: two hands, then the scoreboard on both pages
    for page in (owner, friend):
        page.click("#autoplay")
        page.wait_for_selector("#autoplay[aria-pressed='true']")
    _until_scoreboard([owner, friend])
    for page, name in ((owner, "phone-zh"), (friend, "desktop-en")):
        page.wait_for_selector("#room-scoreboard #room-board")
        page.screenshot(path=str(screenshots / f"rooms-scoreboard-{name}.png"))
        board = page.evaluate(SCOREBOARD)
        assert len(board["rows"]) == 2 and len(board["players"]) == 4
        assert board["total"] == [sum(row[i] or 0 for row in board["rows"]) for i in range(4)]
        assert board["totalSilver"] == [sum(row[i] or 0 for row in board["rowsSilver"]) for i in range(4)]
        assert board["first"] == max(board["total"])  # ranked: the best total on top
        if max(board["total"]) > 0:
            assert board["winners"] and set(board["winners"]) == {max(board["total"])}
            assert board["best"] == 1
        assert "room_owner" in board["players"] and "room_friend" in board["players"]
        dialog = page.evaluate(FITS, ["#room-scoreboard", "#room-board-lobby", "#room-board-close"])
        assert [x for x in dialog if not x.startswith("small target")] == []
        assert page.evaluate("(() => { const b = document.querySelector('.room-board-body');"
                             " return b.scrollWidth <= b.clientWidth; })()")
    assert "大结算" in owner.inner_text("#room-scoreboard") and "大赢家" in owner.inner_text("#room-scoreboard") or (
        max(owner.evaluate(SCOREBOARD)["total"]) <= 0)
    assert "Final scoreboard" in friend.inner_text("#room-scoreboard")
    assert "2/2" not in friend.inner_text("#room-strip")  # over: the strip says so

    # the board stays on the page while the table is gone; later from the profile
    owner.wait_for_timeout(1_000)
    assert owner.query_selector("#room-scoreboard")
    friend.click("#room-board-lobby")
    friend.wait_for_selector("#rooms-card", state="attached")  # folded on a phone
    friend.click('#nav a[href="#/profile"]')
    friend.wait_for_selector(f'#my-rooms .my-room[data-code="{code}"]')
    assert "played to its end" in friend.inner_text(f'#my-rooms .my-room[data-code="{code}"]')
    friend.locator("#my-rooms").screenshot(path=str(screenshots / "rooms-profile-desktop-en.png"))
    friend.click(f'#my-rooms a[data-code="{code}"]')
    friend.wait_for_selector("#room-page #room-board, main #room-board")
    assert friend.evaluate(SCOREBOARD)["total"] == owner.evaluate(SCOREBOARD)["total"]
    friend.screenshot(path=str(screenshots / "rooms-page-desktop-en.png"), full_page=True)
    assert _page_fits(friend, "main") == []


def test_dissolving_before_the_first_hand_and_by_a_vote(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path
) -> None:
    owner = context_for(DESKTOP)  # Chinese, on a desktop
    friend = context_for(PHONE)  # English, on a phone
    register(owner, server.base, "vote_owner")
    register(friend, server.base, "vote_friend")
    to_english(friend)
    owner_asked = _accept_dialogs(owner)
    friend_asked = _accept_dialogs(friend)

    # the lobby's card in the other language and size
    for page, name in ((owner, "desktop-zh"), (friend, "phone-en")):
        page.wait_for_selector("#rooms-card #room-opts .room-opt", state="attached")
        unfold(page, "rooms")
        page.click("#room-rules summary")
        page.locator("#rooms-card").screenshot(path=str(screenshots / f"rooms-card-{name}.png"))
        assert _page_fits(page, "#rooms-card") == []
        page.click("#room-rules summary")

    # before the first hand: only the owner may, and at once
    code = _open_room(owner, hands=8)
    _join(friend, code)
    assert not friend.query_selector("#room-dissolve")
    owner.click("#room-dissolve")
    assert owner_asked and "解散" in owner_asked[-1]
    for page in (owner, friend):
        page.wait_for_selector('#room-scoreboard[data-status="dissolved"]')
        assert page.query_selector("#room-board-empty")
    assert "dissolved" in friend.inner_text("#room-scoreboard")
    friend.screenshot(path=str(screenshots / "rooms-dissolved-early-phone-en.png"))
    for page in (owner, friend):
        page.click("#room-board-lobby")
        page.wait_for_selector("#rooms-card", state="attached")  # folded on a phone

    # a room in play: the friend asks, the owner refuses, play goes on
    code = _open_room(owner, hands=8)
    _join(friend, code)
    # the lobby does not list rooms: its card leads back to the one the player sits in
    friend.click('#nav a[href="#/lobby"]')
    friend.wait_for_selector("#room-back-link")
    assert code in friend.inner_text("#room-back-link")
    friend.click("#room-back-link")
    friend.wait_for_selector("#room-code-copy")
    owner.wait_for_function("() => document.querySelectorAll('.plate .name').length === 4")
    owner.click("#fill-bots")
    for page in (owner, friend):
        page.wait_for_selector("#wall-count", timeout=30_000)
    friend.wait_for_selector("#room-dissolve")
    friend.click("#room-dissolve")
    assert friend_asked and "every player agrees" in friend_asked[-1]
    owner.wait_for_selector("#room-vote")
    text = owner.inner_text("#room-vote")
    assert "vote_friend 申请解散房间" in text and "已同意" in text and "等待中" in text
    assert "秒" in owner.inner_text("#room-vote-left")
    friend.wait_for_selector("#room-vote-line")
    assert "Dissolve vote 1/2" in friend.inner_text("#room-vote-line")
    assert not friend.query_selector("#room-vote")  # the asker agreed: nothing to answer
    owner.screenshot(path=str(screenshots / "rooms-vote-desktop-zh.png"))
    friend.screenshot(path=str(screenshots / "rooms-vote-asked-phone-en.png"))
    assert _table_fits(friend, ["#room-vote-line"]) == []
    dialog = owner.evaluate(FITS, ["#room-vote", "#room-vote-yes", "#room-vote-no"])
    assert [x for x in dialog if not x.startswith("small target")] == []
    owner.click("#room-vote-no")
    owner.wait_for_selector("#room-vote", state="detached")
    friend.wait_for_selector("#room-vote-line", state="detached")
    friend.wait_for_function("() => document.getElementById('event-strip').innerText.includes('vote to dissolve failed')")
    assert owner.query_selector("#room-dissolve") and friend.query_selector("#room-dissolve")

    # the owner asks; the friend agrees on a phone: the room ends, the hand voided
    owner.click("#room-dissolve")
    friend.wait_for_selector("#room-vote")
    assert "vote_owner asks to dissolve the room" in friend.inner_text("#room-vote")
    friend.screenshot(path=str(screenshots / "rooms-vote-phone-en.png"))
    dialog = friend.evaluate(FITS, ["#room-vote", "#room-vote-yes", "#room-vote-no"])
    assert [x for x in dialog if not x.startswith("small target")] == []
    friend.click("#room-vote-yes")
    for page in (owner, friend):
        page.wait_for_selector('#room-scoreboard[data-status="dissolved"]')
    owner.screenshot(path=str(screenshots / "rooms-dissolved-desktop-zh.png"))
    friend.screenshot(path=str(screenshots / "rooms-dissolved-phone-en.png"))
    assert "已解散" in owner.inner_text("#room-scoreboard")
    for page in (owner, friend):
        dialog = page.evaluate(FITS, ["#room-scoreboard", "#room-board-lobby"])
        assert [x for x in dialog if not x.startswith("small target")] == []
