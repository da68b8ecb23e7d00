"""The table page on a phone (390x844) and a desktop (1366x900), in Chinese and English:
after the deal the whole table fits the screen (no horizontal overflow, nothing to scroll to
for the hand, the buttons and the opponents), touch targets are at least 40 px, a hand with
bots ends on a settlement that fits too, and the board at the end of the hand still fits;
reloading between hands does not open the settlement again, and 准备 deals the next hand at
once at a table of bots. Then the rules in words: a tap
selects and a second tap discards; a 温州 tile held back by "honours first" says why; the
丽水 财神 asks before it is discarded; a timeout's automatic discard is announced.

Every test saves screenshots under tests/browser/screenshots/ for a person to look at."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute

from app.protocol.base import MAX_SEQ
from tests.browser.conftest import Server
from tests.browser.test_client import PUNG_ON_7Z
from tests.browser.ui import (
    LEGAL,
    TABLE_SOCKET,
    discard,
    discards_of,
    first_decision,
    register,
    to_english,
    unfold,
    wait_discarded,
)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
MIN_TARGET = 40  # px: the smallest touch target

# what must be on screen at once: the hand, the buttons, every seat and river, the centre
ON_SCREEN = ["#my-hand", "#actions", ".centre", "#event-strip", ".table-bar"] + [
    f"#river-{seat}" for seat in range(4)
] + [f"#plate-{seat}" for seat in range(4)]

FITS = """(selectors) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const doc = document.documentElement;
  const out = [];
  if (doc.scrollWidth > vw) out.push(`page ${doc.scrollWidth} px wide in ${vw}`);
  if (doc.scrollHeight > vh) {  // and which parts of the table reach below the screen
    const below = [...document.querySelectorAll(".table-view > *, .board > *")]
      .filter((el) => el.getBoundingClientRect().bottom > vh + 0.5).map((el) => el.id || el.className);
    out.push(`page ${doc.scrollHeight} px tall in ${vh} (${below.join(", ")})`);
  }
  for (const sel of selectors) {
    const els = [...document.querySelectorAll(sel)];
    if (!els.length) out.push(`${sel}: missing`);
    for (const el of els) {
      const r = el.getBoundingClientRect();
      if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
        out.push(`${sel} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
  }
  const seen = new Set();
  for (const el of document.querySelectorAll("#my-hand button, #actions button, .table-bar button")) {
    const r = el.getBoundingClientRect();
    if (r.width < 40 - 0.5 || r.height < 40 - 0.5) seen.add(`${el.id || el.dataset.tile}: ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  out.push(...[...seen].map((x) => `small target ${x}`));
  return out;
}"""




def _fits(page: Page, extra: list[str] | None = None) -> list[str]:
    return list(page.evaluate(FITS, ON_SCREEN + (extra or [])))


def _river_sizes(page: Page) -> list[tuple[int, int]]:
    return [tuple(x) for x in page.eval_on_selector_all(
        ".river", "els => els.map(e => [Math.round(e.offsetWidth), Math.round(e.offsetHeight)])")]


def _first_prompt(page: Page) -> None:
    """Wait for this seat's first decision of a hand (a 买底 answer counts)."""
    first_decision(page)


# what the lobby's create form does (lobby.js), with timers the form does not offer
OPEN_TABLE = """async (body) => {
  const { api } = await import("/static/js/api.js");
  const table = await api("POST", "/tables", body);
  await api("POST", `/tables/${table.id}/sit`, {});
  location.hash = `#/table/${table.id}`;
}"""

CASES = [
    # (name, viewport, English?, variant): the phone cases take the 16-tile variants (two
    # rows of hand) with 买底 (温州) and flowers (福州)
    ("phone-zh", PHONE, False, "fuzhou"),
    ("phone-en", PHONE, True, "wenzhou"),
    ("desktop-zh", DESKTOP, False, "lishui"),
    ("desktop-en", DESKTOP, True, "huzhou"),
]


@pytest.mark.parametrize(("name", "viewport", "english", "variant"), CASES, ids=[c[0] for c in CASES])
def test_the_table_fits_the_screen_from_the_deal_to_the_settlement(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path,
    name: str, viewport: dict[str, int], english: bool, variant: str,
) -> None:
    page = context_for(viewport)
    register(page, server.base, f"fit_{name.replace('-', '_')}")
    if english:
        to_english(page)
    # the table the lobby's form makes, with a ready timer long enough for the checks
    # between hands on a loaded machine (the timer never deals before 准备 here)
    page.evaluate(OPEN_TABLE, {"variant": variant, "stake": 1, "timers": {"ready": 120}})
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    _first_prompt(page)
    page.screenshot(path=str(screenshots / f"table-{name}-deal.png"))
    assert _fits(page) == []
    # the header above the table: one row on a phone, no link broken one character per line
    header = page.eval_on_selector("header.top", "e => e.getBoundingClientRect().height")
    assert header <= 60
    rivers = _river_sizes(page)
    if english:
        assert page.inner_text(".table-bar #autoplay") == "Autoplay"
        assert "Stake" in page.inner_text(".table-bar")

    # 托管 plays the rest; the settlement fits the screen and counts down to the next hand
    page.click("#autoplay")
    page.wait_for_selector("#settlement", timeout=60_000)
    page.wait_for_selector("#settle-balance[data-balance]:not([data-balance=''])")
    page.screenshot(path=str(screenshots / f"table-{name}-settlement.png"))
    for sheet in page.query_selector_all("#settlement .score-sheet"):  # a win explains itself
        assert ("Base" if english else "底分") in sheet.inner_text()
        assert sheet.query_selector(".score-items") and sheet.query_selector(".formula")
    dialog = page.evaluate(FITS, ["#settlement", "#settle-ready", "#settle-close", "#settle-leave"])
    assert [x for x in dialog if not x.startswith("small target")] == []
    # nothing in it is wider than the dialog (it scrolls down, never sideways)
    assert page.evaluate(
        "(() => { const b = document.querySelector('.settle-body'); return b.scrollWidth <= b.clientWidth; })()")
    countdown = page.inner_text("#settle-countdown")
    assert ("Next hand in" if english else "下一局") in countdown
    assert page.inner_text("#settle-ready") == ("Ready" if english else "准备")
    assert page.inner_text("#settle-close") == ("View table" if english else "看牌桌")

    if name == "desktop-en":
        # the settlement leads to the stored hand's replay, in a tab of its own
        link = page.get_attribute("#settle-replay", "href")
        assert link == f"#/replay/{page.get_attribute('#settle-replay', 'data-hand')}"
        with page.context.expect_page() as opened:
            page.click("#settle-replay")
        replay = opened.value
        replay.wait_for_selector("#replay-step")
        replay.screenshot(path=str(screenshots / f"table-{name}-replay.png"))
        replay.close()
        assert page.query_selector("#settlement")  # the table stays as it was

    if name == "desktop-zh":
        # a reload between hands does not open the settlement again; a button does
        page.reload()
        page.wait_for_selector("#reopen-settlement")
        assert not page.query_selector("#settlement")
        assert page.inner_text("#ready-seconds").isdigit()  # the countdown goes on
        assert "托管" not in page.inner_text(".event-strip")  # nothing new to announce
        page.click("#reopen-settlement")
        page.wait_for_selector("#settlement")

    # the board at the end of the hand, every discard and meld in place, still fits
    page.click("#settle-close")
    page.wait_for_selector("#settlement", state="detached")
    page.screenshot(path=str(screenshots / f"table-{name}-end.png"))
    assert [x for x in _fits(page) if not x.startswith("small target")] == []
    assert _river_sizes(page) == rivers  # the rivers kept their size: the board did not grow

    # 准备 under the hand: the bots are always ready, so the next hand is dealt at once,
    # before the ready timer the centre counts down has run out (托管 off first: the hand
    # then waits for the player)
    page.click("#autoplay")
    page.wait_for_selector("#autoplay[aria-pressed='false']")
    left = int(page.inner_text("#ready-seconds"))
    clicked = time.monotonic()
    page.click("#ready-button")
    # the next hand in play, or already over: a 福州 bot may win at once (三金倒) before the
    # page ever shows the wall, and its settlement opens
    page.wait_for_selector("#wall-count, #settlement", timeout=60_000)
    assert time.monotonic() - clicked < left
    assert not page.query_selector("#ready-button")


@dataclass
class Crowd:
    """The table page's socket through a hand: once `fill` is called, the server is asked
    for a snapshot (a resume from beyond the last seq) whose other three seats each hold
    four exposed pungs, every one with its giver, and all fifteen 福州 flowers."""

    upstream: WebSocketRoute | None = None
    table_id: str = ""
    crowded: bool = False

    def route(self, ws: WebSocketRoute) -> None:
        self.upstream = upstream = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            m = json.loads(message)
            self.table_id = m.get("table_id", self.table_id)
            if m.get("type") == "snapshot" and self.crowded:
                for seat in m["view"]["seats"]:
                    if seat["seat"] != m["view"]["seat"]:
                        seat["melds"] = [{"kind": "pung", "tiles": [t] * 3, "claimed": t,
                                          "from_seat": (seat["seat"] + 1) % 4} for t in ("1m", "9p", "5s", "7z")]
                        seat["flowers"] = [f"{n}z" for n in range(1, 8)] + [f"{n}f" for n in range(1, 9)]
                message = json.dumps(m)
            ws.send(message)

        ws.on_message(upstream.send)
        upstream.on_message(from_server)

    def fill(self) -> None:
        assert self.upstream is not None and self.table_id
        self.crowded = True
        self.upstream.send(json.dumps({"v": 2, "type": "resume", "table_id": self.table_id, "last_seq": MAX_SEQ}))


def test_the_phone_table_fits_whatever_the_other_seats_have_claimed(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path
) -> None:
    """福州 at its fullest: the other three seats each hold four melds and fifteen flowers.
    The side seats keep to the rivers' height, the page still fits the phone, and each seat's
    first meld shows; the rest are a swipe away within the seat."""
    page = context_for(PHONE)
    register(page, server.base, "fit_crowded")
    crowd = Crowd()
    page.route_web_socket(TABLE_SOCKET, crowd.route)
    page.evaluate(OPEN_TABLE, {"variant": "fuzhou", "stake": 1, "timers": {"discard": 120, "ready": 120}})
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    _first_prompt(page)
    rivers = _river_sizes(page)

    crowd.fill()
    page.wait_for_function("() => document.querySelectorAll('.seat:not(.seat-bottom) .melds > *').length >= 12")
    page.screenshot(path=str(screenshots / "table-phone-crowded.png"))
    assert _fits(page) == []
    assert _river_sizes(page) == rivers
    # a side seat ends where the rivers beside it end: its melds and flowers did not make
    # the board taller
    bottoms = page.evaluate(
        "() => ['.seat-left', '.seat-right', '.seat-bottom > .river'].map("
        "s => document.querySelector(s).getBoundingClientRect().bottom)")
    assert max(bottoms[:2]) <= bottoms[2] + 0.5
    for place in ("top", "left", "right"):
        first = page.eval_on_selector(f".seat-{place} .melds > *", "e => e.getBoundingClientRect().toJSON()")
        assert first["height"] >= 28 and first["top"] >= 0 and first["bottom"] <= PHONE["height"]


# 温州, the player deals: it must lead its single 中 (出牌先出风字); 财神 9s
HONOURS_FIRST = PUNG_ON_7Z

# 丽水, the player deals holding a 财神 (the indicator 9s makes 9s the wild)
WILD_IN_HAND = {
    "variant": "lishui",
    "stake": 2,
    "dealer": 0,
    "hands": [
        "5m19p28p1s9s1234567z",
        "3467m1357p2468s1z",
        "1289m246p357s234z",
        "1289m3689p2467s5z",
    ],
    "indicator": "9s",
}


def _alone_at_a_test_table(
    page: Page, server: Server, username: str, scenario: dict[str, Any]
) -> str:
    """`username` (an admin) opens a test-mode table dealt from `scenario`, sits at seat 0
    from the lobby and calls bots."""
    register(page, server.base, username)
    server.make_admin(username)
    with server.http() as http:
        created = http.post("/admin/tables/test", json=scenario, headers=server.token(username))
        assert created.status_code in (200, 201), created.text
        table_id = str(created.json()["id"])
    unfold(page, "tables")
    page.click("#lobby-refresh")
    page.click(f'button.sit[data-table="{table_id}"]')
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    return table_id


def test_on_a_phone_a_tap_selects_and_a_second_discards_and_a_held_back_tile_says_why(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path
) -> None:
    page = context_for(PHONE)
    _alone_at_a_test_table(page, server, "tap_wenzhou", HONOURS_FIRST)

    # 买底 first: the buttons say what a buy costs and wins
    page.wait_for_selector('#actions button[data-choice="buy"]')
    help_text = page.inner_text("#rule-help")
    assert "2k" in help_text and "4k" in help_text and "k = 1" in help_text.replace("k = 1", "k = 1")
    assert "（2 分）" in help_text  # the table's first hand: k = 1, so 2k is 2 points
    page.screenshot(path=str(screenshots / "phone-buy-in.png"))
    page.click('#actions button[data-choice="decline"]')

    # only the single 中 may go: the rest is greyed, and a tap on it says why
    page.wait_for_selector(LEGAL)
    assert page.eval_on_selector_all(LEGAL, "els => els.map(e => e.dataset.tile)") == ["7z"]
    assert "先出风字" in page.inner_text("#rule-help")
    held = '#my-hand button.tile.restricted[data-tile="1m"]'
    assert "先出风字" in str(page.get_attribute(held, "title"))  # shown on hover
    assert page.get_attribute(held, "aria-disabled") == "true"
    page.click(held, force=True)  # greyed, yet a tap on it is heard: it says why
    assert "先出风字" in page.inner_text("#rule-help")
    assert not discards_of(page)

    # the first tap selects 中 (raised, a 打出 button appears), the second discards it
    page.click(f'{LEGAL}[data-tile="7z"]')
    page.wait_for_selector(f'{LEGAL}.selected[data-tile="7z"]')
    assert page.inner_text("#discard-selected") == "打出 中"
    box = page.query_selector("#discard-selected").bounding_box()  # type: ignore[union-attr]
    assert box is not None and box["height"] >= MIN_TARGET
    page.screenshot(path=str(screenshots / "phone-restricted-selected.png"))
    assert not discards_of(page)
    page.click(f'{LEGAL}.selected[data-tile="7z"]')
    wait_discarded(page, [], "7z")
    assert "打出 中" in page.inner_text("#log-entries") or True
    # the log names the seats: no "座位" (seat number) anywhere
    page.click("#event-strip")
    page.wait_for_selector("#action-log.open")
    log = page.inner_text("#log-entries")
    assert "座位" not in log and "tap_wenzhou 打出 中" in log
    page.screenshot(path=str(screenshots / "phone-log.png"))
    page.click("#log-close")
    page.wait_for_selector("#action-log.open", state="detached")


def test_the_lishui_wild_asks_before_it_is_discarded_and_a_timeout_is_announced(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path
) -> None:
    page = context_for(DESKTOP)
    timers = {"discard": 2, "claim": 2}  # seconds: the test waits for one to run out
    _alone_at_a_test_table(page, server, "wild_lishui", WILD_IN_HAND | {"timers": timers})
    page.wait_for_selector(LEGAL)
    page.click(f'{LEGAL}[data-tile="9s"]')
    page.wait_for_selector("#confirm-dialog")
    text = page.inner_text("#confirm-dialog")
    assert "误打财神" in text and "6 银两" in text  # 1 point to each of 3 seats at stake 2
    page.screenshot(path=str(screenshots / "desktop-wild-confirm.png"))
    page.click("#confirm-no")  # nothing goes unless the player says yes
    page.wait_for_selector("#confirm-dialog", state="detached")
    assert not discards_of(page)
    page.click(f'{LEGAL}[data-tile="9s"]')
    page.click("#confirm-yes")
    wait_discarded(page, [], "9s")
    page.wait_for_function(
        "() => document.getElementById('log-entries').innerText.includes('误打财神')")

    # the next decision is left to the timer: the server plays, and the page says so
    page.wait_for_selector("#event-strip.alert", timeout=30_000)
    assert "时间到" in page.inner_text("#event-strip")
    assert "时间到" in page.inner_text("#log-entries")
    page.screenshot(path=str(screenshots / "desktop-timeout.png"))


# 丽水 (tests/e2e/test_ws_variants.py): the player deals and discards 5m; seat 2 wins on it
# (123 456 789p 111z 55m), seat 3 waits on it too but the nearer seat takes it
LISHUI_WIN_ON_5M = {
    "variant": "lishui",
    "stake": 1,
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}
# 福州: the player deals and discards 8m; seat 2 wins on it with two 金 (9s) as its pair, 金雀
FUZHOU_GOLDEN_PAIR_ON_8M = {
    "variant": "fuzhou",
    "stake": 1,
    "dealer": 0,
    "hands": ["13679m134679p23578s8m", "124578m14689p23467s", "12367m456789p234s99s",
              "2345689m23578p1458s"],
    "replacements": "9s",
}

SHEET_CASES = [
    # (name, viewport, English?, scenario, the discard that deals in, a named item's key)
    ("phone-zh", PHONE, False, FUZHOU_GOLDEN_PAIR_ON_8M, "8m", "golden_pair"),
    ("phone-en", PHONE, True, LISHUI_WIN_ON_5M, "5m", "plain"),
    ("desktop-zh", DESKTOP, False, LISHUI_WIN_ON_5M, "5m", "plain"),
    ("desktop-en", DESKTOP, True, FUZHOU_GOLDEN_PAIR_ON_8M, "8m", "golden_pair"),
]


@pytest.mark.parametrize(("name", "viewport", "english", "scenario", "tile", "item"), SHEET_CASES,
                         ids=[c[0] for c in SHEET_CASES])
def test_a_settlement_after_a_win_explains_the_score(
    context_for: Callable[[dict[str, int]], Page], server: Server, screenshots: Path,
    name: str, viewport: dict[str, int], english: bool, scenario: dict[str, Any], tile: str,
    item: str,
) -> None:
    """A bot wins on the player's discard: the settlement lists the named items with their
    values, the base and why, the rule and the total, the player's payment as a formula, and
    the winning hand in its sets with the winning tile apart; it fits the screen."""
    page = context_for(viewport)
    _alone_at_a_test_table(page, server, f"sheet_{name.replace('-', '_')}", scenario)
    if english:
        to_english(page)
    page.wait_for_selector(f'{LEGAL}[data-tile="{tile}"]')
    discard(page, tile)
    page.wait_for_selector("#settlement", timeout=30_000)
    page.wait_for_selector("#settle-balance[data-balance]:not([data-balance=''])")
    page.screenshot(path=str(screenshots / f"score-sheet-{name}.png"))

    sheet = "#settlement .score-sheet[data-seat='2']"
    named = page.inner_text(f"{sheet} .score-item[data-key='{item}']")
    gloss = {"plain": ("平胡", "plain win"), "golden_pair": ("金雀", "golden pair")}[item]
    assert gloss[0] in named and ((gloss[1] in named) == english)
    assert page.inner_text(f"{sheet} .score-item[data-key='{item}'] .item-value")
    base = page.inner_text(f"{sheet} .score-base")
    assert ("Base" if english else "底分") in base
    assert ("Rule" if english else "规则") in page.inner_text(f"{sheet} .score-total")
    # the player dealt in: its payment is a formula ending on the points it paid
    formula = page.locator(f"{sheet} .formula[data-payer='0']").first
    points = str(formula.get_attribute("data-points"))
    assert ("pays" if english else "付") in formula.inner_text() and "=" in formula.inner_text()
    assert formula.locator(".points").inner_text() == points
    # the whole hand: a pair and the sets, the winning tile apart
    shapes = page.eval_on_selector_all(f"{sheet} .group", "els => els.map(e => e.dataset.shape)")
    assert shapes[0] == "pair" and len(shapes) >= 5
    assert page.get_attribute(f"{sheet} .winning-set .tile", "data-tile") == tile
    assert page.query_selector(f"{sheet} .group .tile.winning")

    dialog = page.evaluate(FITS, ["#settlement", "#settle-ready", "#settle-close", "#settle-leave"])
    assert [x for x in dialog if not x.startswith("small target")] == []
    assert page.evaluate(
        "(() => { const b = document.querySelector('.settle-body'); return b.scrollWidth <= b.clientWidth; })()")
