"""The browser client end to end: a player registers, opens a 丽水 table with bots and plays a
hand to the settlement; two players share a 温州 table with a 碰 and the 买底 / 顶底 prompts; a
reload in the middle of a hand resumes it; a dropped socket shows the banner and resumes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute

from tests.browser.conftest import Server
from tests.browser.ui import (
    PROMPTED,
    TABLE_SOCKET,
    answer_once,
    click_action,
    discard,
    discards_of,
    hand_tiles,
    legal_buttons,
    open_table,
    play_until_settled,
    register,
    settled_balance,
    wait_discarded,
)

GRANT = 10000  # a new account's silver


def _rest_balance(server: Server, username: str) -> tuple[int, int]:
    """(balance from /me, the sum of the ledger) over REST."""
    headers = server.token(username)
    with server.http() as http:
        balance = int(http.get("/me", headers=headers).json()["balance"])
        entries = http.get("/me/ledger?limit=100", headers=headers).json()["entries"]
    return balance, sum(int(e["delta"]) for e in entries)


def _balance_after_first_hand(server: Server, username: str) -> int:
    """The account's silver after its first hand, from its ledger over REST; on the way,
    every row's balance is the one before it plus its delta, from 0, and /me names one of
    those balances (read just before the ledger, it may miss a row written meanwhile)."""
    headers = server.token(username)
    with server.http() as http:
        balance = int(http.get("/me", headers=headers).json()["balance"])
        entries = http.get("/me/ledger?limit=100", headers=headers).json()["entries"]
    rows = sorted(entries, key=lambda e: int(e["id"]))
    running, seen = 0, []
    for row in rows:
        running += int(row["delta"])
        assert int(row["balance_after"]) == running, row
        seen.append(running)
    assert balance in seen
    first_hand = next(row["hand_id"] for row in rows if row["hand_id"] is not None)
    return [int(r["balance_after"]) for r in rows if r["hand_id"] == first_hand][-1]


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    """Pages in fresh browser contexts (each its own storage: its own player)."""
    contexts: list[BrowserContext] = []
    console: list[str] = []

    def make() -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        contexts.append(context)
        return _page(context, console)

    yield make
    for context in contexts:
        context.close()
    # the page runs under the server's Content-Security-Policy (app/api/headers.py) and
    # nothing it does is refused by it
    assert not [text for text in console if "Content Security Policy" in text]


def _page(context: BrowserContext, console: list[str]) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    # the browser's console and script errors show in the output of a failed test
    page.on("console", lambda m: (console.append(m.text), print(f"console.{m.type}: {m.text}")))
    page.on("pageerror", lambda e: print(f"page error: {e}"))
    return page


def test_a_new_player_plays_a_lishui_hand_to_the_settlement(
    new_page: Callable[[], Page], server: Server, screenshots: Path
) -> None:
    page = new_page()
    register(page, server.base, "阿明哥")
    table_id = open_table(page, "lishui", 1)
    assert page.get_attribute("#table-view", "data-seat") == "0"
    page.click("#fill-bots")

    # the first turn (claims before it are passed): 14 tiles, wilds first and marked
    page.wait_for_selector(PROMPTED)
    while not page.query_selector("#my-hand button.tile.legal"):
        click_action(page, "hu" if page.query_selector('[data-action="hu"]') else "pass")
        page.wait_for_selector(PROMPTED)
    page.wait_for_selector("#wild .tile.wild")
    tiles = hand_tiles(page)
    assert len(tiles) == 14
    wild = page.get_attribute("#wild .tile.wild", "data-tile")
    sorted_part = [str(t) for t in page.eval_on_selector_all(
        "#my-hand button.tile:not(.drawn)", "els => els.map(e => e.dataset.tile)")]
    held_wilds = [t for t in sorted_part if t == wild]
    assert sorted_part[: len(held_wilds)] == held_wilds  # 财神 at the left
    for el in page.query_selector_all("#my-hand button.tile.wild"):
        assert "财神" in str(el.get_attribute("aria-label"))
    assert page.inner_text("#wall-count")
    assert len(page.query_selector_all("#dice .die")) == 2
    assert "剩余" in page.inner_text("#countdown")
    names = page.inner_text("#seat-1 .plate .name")
    assert names.startswith("bot-")
    page.screenshot(path=str(screenshots / "lishui-table.png"))

    # the first discard by keyboard: the arrow keys move along the hand, Enter discards (past
    # the 财神, whose discard would ask first)
    page.focus("#my-hand button.tile.legal")
    page.keyboard.press("ArrowRight")
    first = str(page.evaluate("document.activeElement.dataset.tile"))
    assert first == tiles[1]
    steps = 1
    while first == wild:
        page.keyboard.press("ArrowRight")
        steps += 1
        first = str(page.evaluate("document.activeElement.dataset.tile"))
        assert first == tiles[steps]
    page.keyboard.press("Enter")
    wait_discarded(page, [], first)
    play_until_settled(page)
    shown = settled_balance(page)
    page.screenshot(path=str(screenshots / "lishui-settlement.png"))

    moved = int(str(page.get_attribute("#settle-table tr[data-seat='0']", "data-moved")))
    balance, ledger_sum = _rest_balance(server, "阿明哥")
    assert shown == balance == ledger_sum == GRANT + moved
    # the breakdown lists the payments: a win's as formulas in its score sheet, with the base
    # and the named items; any other payment in the list
    if page.query_selector("#settlement .score-sheet"):
        assert "底分" in page.inner_text("#settlement .score-sheet .score-base")
        assert page.inner_text("#settlement .score-sheet .score-item .item-name")
        assert page.inner_text("#settlement .score-sheet .formula")
    else:
        assert page.inner_text("#settle-transfers")
    assert "结算" in page.inner_text("#settle-title")
    page.click("#lang")  # the English switch relabels the page in place
    assert "Settlement" in page.inner_text("#settle-title")
    assert page.inner_text("#autoplay") == "Autoplay"
    page.click("#settle-close")
    page.wait_for_selector("#settlement", state="detached")
    assert page.get_attribute("#table-view", "data-table") == table_id

    # the profile shows the same silver, the record of the hand and its ledger row
    page.click('#nav a[href="#/profile"]')
    page.wait_for_selector("#ledger-rows tr")
    assert page.inner_text("#profile-balance").replace(",", "") == str(balance)
    assert page.inner_text("#profile-level")  # the 湖州 level and its base
    assert "Lishui" in page.inner_text("#stats-table")
    assert len(page.query_selector_all("#ledger-rows tr")) == 2  # the grant and the hand
    page.click('#nav a[href="#/leaders"]')
    page.wait_for_selector("#board-rows tr")
    assert "阿明哥" in page.inner_text("#board-rows")


def _two_players_at_a_test_table(
    new_page: Callable[[], Page],
    server: Server,
    names: tuple[str, str],
    scenario: dict[str, object],
) -> tuple[Page, Page, str]:
    """Two players register; the first (made an admin) opens a test-mode table dealt from
    `scenario`; both sit from the lobby (seats 0 and 1). Their pages and the table id."""
    first, second = new_page(), new_page()
    register(first, server.base, names[0])
    register(second, server.base, names[1])
    server.make_admin(names[0])
    with server.http() as http:
        created = http.post("/admin/tables/test", json=scenario, headers=server.token(names[0]))
        assert created.status_code in (200, 201), created.text
        table_id = str(created.json()["id"])
    for page in (first, second):
        page.click("#lobby-refresh")
        page.click(f'button.sit[data-table="{table_id}"]')
        page.wait_for_selector("#table-view")
    assert first.get_attribute("#table-view", "data-seat") == "0"
    assert second.get_attribute("#table-view", "data-seat") == "1"
    return first, second, table_id


# 温州: the dealer (seat 0) must lead its single 中 (honours first); seat 1 holds a pair of
# 中 and may 碰 it. Seats 2 and 3 hold quiet hands. 财神 9s.
PUNG_ON_7Z = {
    "variant": "wenzhou",
    "stake": 1,
    "dealer": 0,
    "hands": [
        "12457m12457p124578s7z",
        "235689m23568p236s7z7z",
        "235689m23568p23568s",
        "13469m134689p13467s",
    ],
    "indicator": "9s",
}


def test_two_players_and_two_bots_play_a_wenzhou_hand_with_a_pung_and_the_buy_in(
    new_page: Callable[[], Page], server: Server, screenshots: Path
) -> None:
    dealer, other, _ = _two_players_at_a_test_table(
        new_page, server, ("庄家甲", "闲家乙"), PUNG_ON_7Z)
    other.click("#fill-bots")

    # 买底: the dealer is asked to buy in, then the other player to counter (顶底)
    dealer.wait_for_selector('#actions button[data-action="decide"][data-choice="buy"]')
    assert sorted(b["choice"] for b in legal_buttons(dealer)) == ["buy", "decline"]
    assert dealer.inner_text('#actions button[data-choice="buy"]') == "买底"
    click_action(dealer, "decide", choice="buy")
    other.wait_for_selector('#actions button[data-action="decide"][data-choice="counter"]')
    assert other.inner_text('#actions button[data-choice="counter"]') == "顶底"
    click_action(other, "decide", choice="counter")
    dealer.wait_for_selector("#plate-0 .badge.decision")
    other.wait_for_selector("#plate-1 .badge.decision")

    # the dealer may only lead the single 中; the other player pungs it
    dealer.wait_for_selector("#my-hand button.tile.legal")
    allowed = dealer.eval_on_selector_all(
        "#my-hand button.tile.legal", "els => els.map(e => e.dataset.tile)")
    assert allowed == ["7z"] and len(hand_tiles(dealer)) == 17
    discard(dealer, "7z")
    other.wait_for_selector('#actions button[data-action="pung"]')
    assert {b["action"] for b in legal_buttons(other)} == {"pung", "pass"}
    click_action(other, "pung")
    other.wait_for_selector("[data-seat='1'] .melds .meld.pung")
    dealer.wait_for_selector("[data-seat='1'] .melds .meld.pung")  # the dealer sees the pung
    other.screenshot(path=str(screenshots / "wenzhou-pung.png"))
    other.wait_for_selector("#my-hand button.tile.legal")
    discard(other)

    # the rest of the hand: both players hand over to 托管 and watch it end
    for page in (dealer, other):
        page.click("#autoplay")
        assert page.get_attribute("#autoplay", "aria-pressed") == "true"
    for page in (dealer, other):
        page.wait_for_selector("#settlement", timeout=40_000)
    shown = [settled_balance(dealer), settled_balance(other)]
    dealer.screenshot(path=str(screenshots / "wenzhou-settlement.png"))
    # both seats are on 托管 now, so the table deals its next hand after the ready timer and
    # may have settled it by the time the ledger is read: compare with the first hand's rows
    for name, balance in zip(("庄家甲", "闲家乙"), shown, strict=True):
        assert _balance_after_first_hand(server, name) == balance


# counts how often the table was drawn (a new #table-view)
COUNT_DRAWS = """
window.__draws = 0;
new MutationObserver((records) => {
  for (const r of records) {
    for (const node of r.addedNodes) if (node.id === "table-view") window.__draws += 1;
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_a_hand_played_at_once_is_drawn_once_a_frame_not_once_a_message(
    new_page: Callable[[], Page], server: Server
) -> None:
    """Bots and 托管 at the server's instant pace send a whole hand in a burst (as a resume
    does): the page draws the table at most once an animation frame, so that a slow phone
    keeps up instead of falling seconds behind the table."""
    page = new_page()
    page.add_init_script(COUNT_DRAWS)
    frames = [0]
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _: frames.__setitem__(0, frames[0] + 1)))
    register(page, server.base, "快手玩家")
    server.make_admin("快手玩家")
    with server.http() as http:  # a dealt wall: the same hand every time
        created = http.post("/admin/tables/test", json=PUNG_ON_7Z, headers=server.token("快手玩家"))
        assert created.status_code in (200, 201), created.text
        table_id = created.json()["id"]
    page.click("#lobby-refresh")
    page.click(f'button.sit[data-table="{table_id}"]')
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    page.click("#autoplay")
    page.wait_for_selector("#settlement", timeout=40_000)
    messages, draws = frames[0], page.evaluate("window.__draws")
    assert messages > 60  # a whole hand's events and prompts
    assert draws < messages / 3, (draws, messages)


def test_a_reload_in_the_middle_of_a_hand_resumes_it(
    new_page: Callable[[], Page], server: Server
) -> None:
    page = new_page()
    register(page, server.base, "reloader")
    page.select_option("#create-variant", "huzhou")
    page.click("#quick-join")  # no table yet: quick join opens one and sits
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    page.wait_for_selector("#my-hand button.tile.legal")
    discard(page)
    # wait for the seat's next decision (a turn, or a claim to pass), then reload
    page.wait_for_selector(PROMPTED)
    while not page.query_selector("#my-hand button.tile.legal"):
        answer_once(page)
        page.wait_for_selector(PROMPTED)
    before = {
        "hand": hand_tiles(page),
        "discards": page.eval_on_selector_all(
            "#seat-0 .discards .tile", "els => els.map(e => e.dataset.tile)"),
        "wall": page.get_attribute("#wall-count", "data-wall"),
        "table": page.get_attribute("#table-view", "data-table"),
    }
    page.reload()
    page.wait_for_selector("#my-hand button.tile.legal")
    after = {
        "hand": hand_tiles(page),
        "discards": page.eval_on_selector_all(
            "#seat-0 .discards .tile", "els => els.map(e => e.dataset.tile)"),
        "wall": page.get_attribute("#wall-count", "data-wall"),
        "table": page.get_attribute("#table-view", "data-table"),
    }
    assert after == before
    tile = discard(page)  # and the hand goes on
    wait_discarded(page, list(before["discards"]), tile)


def test_a_dropped_connection_shows_the_banner_and_resumes_from_the_last_seq(
    new_page: Callable[[], Page], server: Server
) -> None:
    page = new_page()
    sockets: list[WebSocketRoute] = []
    sent: list[dict[str, object]] = []

    def through(ws: WebSocketRoute) -> None:
        """Pass the client's socket through, keeping what the client sends."""
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            sent.append(json.loads(message))
            upstream.send(message)

        ws.on_message(from_page)
        sockets.append(ws)

    page.route_web_socket(TABLE_SOCKET, through)
    register(page, server.base, "dropper")
    open_table(page, "shanghai", 1)
    page.click("#fill-bots")
    page.wait_for_selector(PROMPTED)
    while not page.query_selector("#my-hand button.tile.legal"):
        answer_once(page)
        page.wait_for_selector(PROMPTED)
    hand = hand_tiles(page)
    assert not page.query_selector("#wild")  # 上海 plays without a wild
    assert "null" not in page.inner_text(".centre")

    # every text the banner shows (the reconnection may be quicker than a look at it)
    page.evaluate("""() => {
      const b = document.querySelector('#banner');
      window.bannerTexts = [];
      new MutationObserver(() => { if (!b.hidden) window.bannerTexts.push(b.innerText); })
        .observe(b, { attributes: true, childList: true, subtree: true, characterData: true });
    }""")
    sockets[-1].close(code=4002, reason="network")  # the connection drops
    page.wait_for_function("() => window.bannerTexts.length > 0")
    page.wait_for_selector("#banner", state="hidden")
    banners = page.evaluate("() => window.bannerTexts")
    # and a button to try at once
    assert any("重新连接" in b and "立即重连" in b for b in banners), banners
    assert len(sockets) == 2
    hellos = [m for m in sent if m["type"] == "hello"]  # each socket's first message
    assert len(hellos) == 2 and sent[0] == hellos[0] and hellos[0]["v"] == 2
    resumes = [m for m in sent if m["type"] == "resume"]
    assert resumes[0]["last_seq"] == 0 and int(str(resumes[-1]["last_seq"])) > 0
    page.wait_for_selector("#my-hand button.tile.legal")
    assert hand_tiles(page) == hand  # nothing lost: the prompt is back on the same hand
    river = discards_of(page)
    tile = discard(page)
    wait_discarded(page, river, tile)


# 丽水: the dealer (seat 0) holds one 5m; seat 1 holds 3467m and may 吃 the 5m into three
# runs (345, 456, 567); nobody else can claim it. 财神 9s.
CHOW_ON_5M = {
    "variant": "lishui",
    "stake": 1,
    "dealer": 0,
    "hands": [
        "5m19p28p1s8s1234567z",
        "3467m1357p2468s1z",
        "1289m246p357s234z",
        "1289m3689p2467s5z",
    ],
    "indicator": "9s",
}


def test_a_chow_offers_the_choice_of_run(
    new_page: Callable[[], Page], server: Server, screenshots: Path
) -> None:
    dealer, other, _ = _two_players_at_a_test_table(
        new_page, server, ("chow_deal", "chow_take"), CHOW_ON_5M)
    dealer.click("#fill-bots")

    dealer.wait_for_selector('#my-hand button.tile.legal[data-tile="5m"]')
    discard(dealer, "5m")
    other.wait_for_selector('#actions button[data-action="chow"]')
    offered = legal_buttons(other)
    assert [(b["action"], b["low"]) for b in offered] == [
        ("chow", "3m"), ("chow", "4m"), ("chow", "5m"), ("pass", None)]
    label = other.get_attribute('#actions button[data-action="chow"][data-low="4m"]', "aria-label")
    assert label == "吃 四万 五万 六万"
    other.screenshot(path=str(screenshots / "lishui-chow-choice.png"))
    click_action(other, "chow", low="4m")
    other.wait_for_selector("[data-seat='1'] .melds .meld.chow")
    meld = other.eval_on_selector_all(
        "[data-seat='1'] .melds .meld.chow .tile", "els => els.map(e => e.dataset.tile)")
    # the claimed 5m lies turned at the left, towards its giver (上家, the dealer: 东)
    assert meld == ["5m", "4m", "6m"]
    assert other.get_attribute("[data-seat='1'] .meld.chow .tile.turned", "data-tile") == "5m"
    assert other.inner_text("[data-seat='1'] .meld.chow .meld-from") == "东"
    assert "chow_deal" in str(other.get_attribute("[data-seat='1'] .meld.chow", "aria-label"))
    held = hand_tiles(other)
    assert "4m" not in held and "6m" not in held and {"3m", "7m"} <= set(held)
    dealer.wait_for_selector("[data-seat='1'] .melds .meld.chow")  # everyone sees the meld
