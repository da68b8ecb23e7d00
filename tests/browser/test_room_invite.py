"""Inviting friends to a private room and playing again (docs/rooms.md "Inviting", "Before
the first hand", "The seat wind", "Rematch"), in two browser contexts:

- the invite link: the owner's 邀请 copies a ready-to-paste text in the page's language
  (the code, the variant, the length, the link); a visitor who is not signed in opens the
  link, signs up, and lands seated in the room; the waiting state names who sits (1/4, then
  2/4) and never shows "下局" before the first hand;
- on a phone with a share sheet, 邀请 hands the text and the link to navigator.share;
- the seat wind: when the first hand is dealt each page says which wind it sits and who
  deals (a toast over the board, and the table's log);
- 再来一局: after a one-hand session (two people, two bots) the owner presses it and sits in
  the new room; the friend's scoreboard says the owner invites them and a tap seats them
  there; the new room has the same rules; the old room's page shows the invitation too.

Screenshots: /tmp/s47/rooms/ (when it exists) or tests/browser/screenshots/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page

from tests.browser.conftest import PASSWORD, Server
from tests.browser.test_rooms import _open_room, _until_scoreboard
from tests.browser.test_table import DESKTOP, PHONE
from tests.browser.ui import register, to_english

FLAT = {"width": 844, "height": 390}
SHOTS = Path("/tmp/s47/rooms")
STRIP_SAYS = "(text) => (document.querySelector('#wind-toast') || {}).textContent?.includes(text)"


def _shots(screenshots: Path) -> Path:
    return SHOTS if SHOTS.is_dir() else screenshots


def _clipboard(page: Page) -> str:
    return str(page.evaluate("navigator.clipboard.readText()"))


def _allow_clipboard(page: Page, base: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)


def test_an_invite_link_signs_up_a_visitor_and_seats_them_in_the_room(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    shots = _shots(screenshots)
    owner = context_for(PHONE)  # Chinese, on a phone
    register(owner, server.base, "host_ann")
    _allow_clipboard(owner, server.base)
    code = _open_room(owner, hands=2, stake=1)

    # before the first hand: who sits and who is awaited, never 下局
    owner.wait_for_selector("#waiting-count")
    assert "等待玩家 1/4" in owner.inner_text("#waiting-count")
    assert "host_ann" in owner.inner_text("#waiting-seats")
    assert len(owner.query_selector_all("#waiting-seats .waiting-seat.empty")) == 3
    assert "下局" not in owner.inner_text(".centre")
    owner.screenshot(path=str(shots / "waiting-phone-zh.png"))

    # 邀请 copies a ready-to-paste text in Chinese, and says so
    owner.click("#waiting-invite")
    owner.wait_for_selector("#waiting-invite.done")
    assert "邀请已复制" in owner.inner_text("#waiting-invite")
    text = _clipboard(owner)
    assert text.startswith(f"来浙闽麻将好友房 {code}（丽水 · 2 局")
    assert text.endswith(f"：{server.base}/r/{code}")
    owner.click("#room-code-copy")  # the bare code stays one tap away
    owner.wait_for_function(f"() => navigator.clipboard.readText().then((t) => t === '{code}')")

    # a visitor opens the link signed out: sign-up, then seated in the room
    visitor = context_for(DESKTOP, locale="en-US")
    visitor.goto(f"{server.base}/r/{code}")
    visitor.wait_for_selector("#auth-invite-note")
    assert "straight into the private room" in visitor.inner_text("#auth-invite-note")
    visitor.click("#auth-switch")
    visitor.wait_for_selector('#auth-switch[href="#/login"]')
    visitor.fill("#auth-username", "guest_bo")
    visitor.fill("#auth-password", PASSWORD)
    visitor.click("#auth-submit")
    visitor.wait_for_selector("#room-code-copy", timeout=60_000)
    assert visitor.get_attribute("#room-code-copy", "data-code") == code
    visitor.wait_for_function("() => document.querySelector('#waiting-count')?.textContent.includes('2/4')")
    assert "Waiting for players 2/4" in visitor.inner_text("#waiting-count")
    owner.wait_for_function("() => document.querySelector('#waiting-count')?.textContent.includes('2/4')")
    assert "guest_bo" in owner.inner_text("#waiting-seats")
    with server.http() as http:
        room = http.get(f"/rooms/{code}", headers=server.token("guest_bo")).json()
    seated = [s for s in room["seats"] if s is not None]
    assert len(seated) == 2

    # the English invite text
    _allow_clipboard(visitor, server.base)
    visitor.click("#room-invite")
    visitor.wait_for_selector("#room-invite.done")
    assert "Invite copied" in visitor.inner_text("#room-invite")
    text = _clipboard(visitor)
    assert text == f"Join my Zhe-Min Mahjong private room {code} (Lishui · 2 hands · stake 1): {server.base}/r/{code}"
    visitor.screenshot(path=str(shots / "waiting-desktop-en.png"))

    # the owner calls bots: the hand is dealt and each page says its seat wind and the dealer
    owner.click("#fill-bots")
    owner.wait_for_function(STRIP_SAYS, arg="你是")
    strip = owner.inner_text("#wind-toast")
    assert "家" in strip and ("庄家：" in strip or "你坐庄" in strip)
    owner.screenshot(path=str(shots / "wind-notice-phone-zh.png"))
    visitor.wait_for_function(STRIP_SAYS, arg="You sit")
    visitor.screenshot(path=str(shots / "wind-notice-desktop-en.png"))
    logged = visitor.text_content("#log-entries") or ""
    assert "You sit" in logged and logged.count("You sit") == 1
    assert visitor.query_selector_all(".plate .wind")  # the wind marks stay on the seats


def test_on_a_phone_invite_opens_the_share_sheet_with_the_text_and_link(
    browser: Browser, server: Server, screenshots: Path
) -> None:
    context = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True)
    try:
        context.add_init_script("window.__shared = []; navigator.share = (data) => "
                                "{ window.__shared.push(data); return Promise.resolve(); };")
        page = context.new_page()
        register(page, server.base, "sharer")
        code = _open_room(page, hands=4, stake=2)
        page.click("#room-invite")
        page.wait_for_selector("#room-invite.done")
        assert "已分享" in page.inner_text("#room-invite")
        shared = page.evaluate("window.__shared")
        assert len(shared) == 1
        assert shared[0]["url"] == f"{server.base}/r/{code}"
        assert shared[0]["text"] == f"来浙闽麻将好友房 {code}（丽水 · 4 局 · 底注 2）一起打"
        page.locator("#room-strip").screenshot(path=str(_shots(screenshots) / "strip-shared-phone-zh.png"))
        to_english(page)
        page.click("#room-invite")
        page.wait_for_function("() => window.__shared.length === 2")
        assert page.evaluate("window.__shared[1].text") == (
            f"Join my Zhe-Min Mahjong private room {code} (Lishui · 4 hands · stake 2)")
    finally:
        context.close()


def test_a_rematch_opens_a_room_with_the_same_rules_and_the_friend_joins_it(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    shots = _shots(screenshots)
    owner = context_for(DESKTOP)  # Chinese
    friend = context_for(PHONE, locale="en-US")
    register(owner, server.base, "again_ann")
    register(friend, server.base, "again_bo")
    code = _open_room(owner, hands=1, stake=1)
    friend.goto(f"{server.base}/#/room/{code}/join")
    friend.wait_for_selector("#room-code-copy")
    owner.wait_for_function("() => document.querySelector('#waiting-count')?.textContent.includes('2/4')")
    owner.click("#fill-bots")
    for page in (owner, friend):
        page.wait_for_selector("#autoplay")
        page.click("#autoplay")
        page.wait_for_selector("#autoplay[aria-pressed='true']")
    _until_scoreboard([owner, friend])

    owner.wait_for_selector("#room-rematch-start")
    owner.screenshot(path=str(shots / "scoreboard-rematch-desktop-zh.png"))
    assert "再来一局" in owner.inner_text("#room-rematch-start")
    friend.wait_for_selector("#room-rematch-start")
    owner.click("#room-rematch-start")
    owner.wait_for_function(f"() => {{ const b = document.querySelector('#room-code-copy'); "
                            f"return b && b.dataset.code !== '{code}'; }}")
    new_code = str(owner.get_attribute("#room-code-copy", "data-code"))

    # the friend's scoreboard turns into the invitation; a tap seats them in the new room
    friend.wait_for_selector("#room-rematch-text")
    assert f"again_ann invites you to play again (room {new_code})" in friend.inner_text("#room-rematch-text")
    friend.screenshot(path=str(shots / "scoreboard-invited-phone-en.png"))
    friend.click("#room-rematch-join")
    friend.wait_for_function(f"() => document.querySelector('#room-code-copy')?.dataset.code === '{new_code}'")
    owner.wait_for_function("() => document.querySelector('#waiting-count')?.textContent.includes('2/4')")
    with httpx.Client(base_url=server.base, timeout=10) as http:
        headers = server.token("again_bo")
        old = http.get(f"/rooms/{code}", headers=headers).json()
        new = http.get(f"/rooms/{new_code}", headers=headers).json()
    for key in ("variant", "options", "stake", "timers", "length", "spectators", "owner_id"):
        assert new[key] == old[key], key
    assert new["status"] == "open" and len([s for s in new["seats"] if s is not None]) == 2

    # the old room's page (a player who left its table) shows the invitation too
    friend.goto(f"{server.base}/#/room/{code}")
    friend.wait_for_selector("#room-page #room-rematch-text")
    assert new_code in friend.inner_text("#room-rematch-text")
    friend.screenshot(path=str(shots / "room-page-invited-phone-en.png"))
    friend.click("#room-rematch-join")  # seated there already: back at its table
    friend.wait_for_function(f"() => document.querySelector('#room-code-copy')?.dataset.code === '{new_code}'")
