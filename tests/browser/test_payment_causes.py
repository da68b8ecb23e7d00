"""Every payment says why (issue 38): a 丽水 统包 hand and a 温州 hand with 财神分, played by the
rules core on arranged walls (the rules tests' own hands), shown in the table's settlement
dialog and in the replay's settlement, in Chinese and English. The 统包 payment names who
fed whom three 吃; each 财神分 payment says how many wilds each seat held."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from app.protocol import event_payload
from app.rules.actions import Hu
from app.rules.scoring import ITEM_NAMES
from tests.browser.conftest import Server
from tests.rules import test_lishui as lishui
from tests.rules import test_wenzhou as wenzhou
from tests.rules.script import discard, idle, play, play_events

OUT = Path(os.environ.get("CAUSE_SHOTS", "/tmp/s46/web-replay"))
NAMES = ["阿东", "小南", "老西", "北北"]


def _ended(state: Any, events: list[Any]) -> dict[str, Any]:
    ended = next(e for e in events if e.kind == "hand_ended")
    return event_payload(ended).model_dump(mode="json")


def tongbao() -> dict[str, Any]:
    """Seat 0 fed seat 1 three 吃; seat 1 self-draws and seat 0 pays every share (10)."""
    state = lishui.feed_three_chows(lishui.tongbao_hand("6z2z7z6z3z4s6z4z2z8m"))
    state, events = play_events(idle(state, 3), Hu(1))
    return _ended(state, events)


def wild_bonus() -> dict[str, Any]:
    """Seat 2 holds two 财神, seat 3 one; seat 1 wins."""
    s2 = "9s9s" + "235689m2356p2356s"
    s3 = "9s" + "13469m134689p1346s"
    state = wenzhou.deal([wenzhou.QA + "7z", wenzhou.WAIT_5S_8S, s2, s3], draws="1z2z3z4z8s")
    state, events = play_events(idle(play(state, discard(0, "7z")), 4), Hu(1))
    return _ended(state, events)


RENDER = """async ([ended, variant, wild, lang, names, result = null]) => {
  localStorage.setItem("lang", lang);
  const i18n = await import("/static/js/i18n.js");
  i18n.setLang(lang);
  const { settlementDialog } = await import("/static/js/tabledialogs.js");
  const { Replay, settlement } = await import("/static/js/replay.js");
  const wins = ended.winners.map((seat) => ({ seat, ...ended.scores.find((x) => x.seat === seat) }));
  const c = { variant, stake: 10, seat: 0, spectator: false, hand: { wild: { wild } },
    nameOf: (s) => names[s], windOf: (s) => ["东", "南", "西", "北"][s],
    settlement: { handId: "t-1", ended, wins: wins.map((w) => ({ seat: w.seat, self_draw: false, from_seat: null,
      tile: w.winning_tile, specials: [], multiplier: 1, hand: ended.hands[w.seat] })), balance: 1000, closed: false } };
  const main = document.querySelector("main") || document.body;
  main.replaceChildren();
  const table = document.createElement("div");
  table.className = "table-view";
  table.id = "as-table";
  table.append(settlementDialog(c));
  table.querySelector(".overlay").style.position = "static";
  const data = { seats: [1, 2, 3, 4], players: names.map((name, seat) => ({ seat, name, bot: false })),
    variant, events: [], seat: null, result };
  const r = new Replay(data, { id: 99 });
  const state = { ended, wild: { wild }, wins: c.settlement.wins, seats: [0, 1, 2, 3].map(() => ({ melds: [], flowers: [] })) };
  const replay = document.createElement("div");
  replay.id = "as-replay";
  replay.className = "replay";
  replay.append(settlement(r, state));
  main.append(table, replay);
}"""


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.base + "/")
    yield page
    context.close()
    assert not errors


def _causes(page: Page, root: str) -> list[str]:
    return page.locator(f"{root} .cause").all_inner_texts()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_covers_says_who_fed_whom_three_chows(page: Page, lang: str) -> None:
    ended = tongbao()
    # 阿东 (the dealer) pays its own share and, 统包, the two other seats'
    assert [(t["payer"], t["payee"], t["reason"]) for t in ended["transfers"]] == [
        (0, 1, "win"), (0, 1, "covers"), (0, 1, "covers")]
    page.evaluate(RENDER, [ended, "lishui", "5z", lang, NAMES])
    for root in ("#as-table", "#as-replay"):
        causes = _causes(page, root)
        assert len(causes) == 2, causes  # each share 阿东 pays for another seat says why
        for cause in causes:
            if lang == "zh":
                assert cause == "阿东 给 小南 喂了 3 次吃（统包），阿东 一人付所有输家的份"
            else:
                assert cause == "阿东 fed 小南 3 chows (统包), so 阿东 pays every loser's share"
    for size in ((390, 844), (844, 390), (1366, 900)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        OUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUT / f"covers-{size[0]}x{size[1]}-{lang}.png"), full_page=True)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_wild_bonus_says_how_many_wilds_each_seat_held(page: Page, lang: str) -> None:
    ended = wild_bonus()
    bonus = [t for t in ended["transfers"] if t["reason"] == "wild_bonus"]
    assert len(bonus) == 5
    wild = next(code for code in ended["hands"][2] if ended["hands"][2].count(code) == 2
                and ended["hands"][3].count(code) == 1)
    # 北北 dropped during the hand and was still away at its end, for the third time in 24
    # hours: the live hand_ended and the replay's result both list the penalty
    penalties = [{"seat": 3, "reason": "disconnect_penalty", "silver": 12}]
    ended = {**ended, "penalties": penalties}
    result = {"outcome": "win", "net": ended["net"], "silver": [n * 10 for n in ended["net"]],
              "penalties": penalties}
    page.evaluate(RENDER, [ended, "wenzhou", wild, lang, NAMES, result])
    lines = [page.locator(f"{root} li[data-reason='disconnect_penalty']").inner_text()
             for root in ("#as-table", "#as-replay")]
    assert lines[0] == lines[1]  # the table's settlement says what the replay says
    away = lines[0]
    if lang == "zh":
        assert "北北 付其他几家共 12 银两（掉线罚分）" in away and "24 小时内第三次掉线" in away
    else:
        assert "北北 pays the others 12 silver" in away and "a third disconnect in 24 hours" in away
    for root in ("#as-table", "#as-replay"):
        items = page.locator(f"{root} li[data-reason='wild_bonus']")
        assert items.count() == 5
        texts = items.all_inner_texts()
        if lang == "zh":
            assert any("老西 手里 2 个财神，阿东 0 个" in x for x in texts), texts
            assert any("北北 手里 1 个财神，小南 0 个" in x for x in texts), texts
        else:
            assert any("老西 held 2 wilds, 阿东 0" in x for x in texts), texts
    for size in ((390, 844), (844, 390), (1366, 900)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        OUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUT / f"wild-bonus-{size[0]}x{size[1]}-{lang}.png"), full_page=True)


def test_the_client_names_every_special_as_the_rules_and_score_sheets_do(page: Page) -> None:
    """One vocabulary: the table's and the replay's special names are the server's (硬牌, not
    硬胡), which are RULES.md's."""
    shown = page.evaluate("""async (keys) => {
      const i18n = await import("/static/js/i18n.js");
      i18n.setLang("zh");
      return Object.fromEntries(keys.map((k) => [k, i18n.special(k)]));
    }""", sorted(ITEM_NAMES))
    known = {key: name for key, name in shown.items() if name != key}
    assert len(known) > 20 and known["hard"] == "硬牌"
    assert {key: ITEM_NAMES[key] for key in known} == known
