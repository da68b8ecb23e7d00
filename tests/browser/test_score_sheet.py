"""The score sheet of a win (app/web/static/js/scoresheet.js) rendered in the browser from
the real examples in docs/protocol.md, one per variant, in Chinese and English: every item
with its name and value, the base and why, the rule and total, each payment as a formula
that comes to the points paid (the cap shown where it cut them), the hand in the sets that
scored with each wild saying what it stands for. Every vocabulary word (items, base reasons,
rules, payment terms, shapes, item kinds) has a label in both languages: none shows as a
raw key."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from playwright.sync_api import Browser, Page

from app.protocol import vocabulary
from tests.browser.conftest import Server

ROOT = Path(__file__).resolve().parents[2]

RENDER = """async ([sheets, lang]) => {
  localStorage.setItem("lang", lang);
  const i18n = await import("/static/js/i18n.js");
  i18n.setLang(lang);
  const { scoreSheet } = await import("/static/js/scoresheet.js");
  const names = ["东家", "南家", "西家", "北家"];
  const c = { variant: "lishui", hand: null, nameOf: (s) => names[s] };
  const main = document.querySelector("main") || document.body;
  main.replaceChildren();
  const root = document.createElement("div");
  root.className = "table-view";
  root.id = "sheets";
  for (const sheet of sheets) {
    const win = document.createElement("section");
    win.className = "win";
    win.append(scoreSheet(c, sheet));
    root.append(win);
  }
  main.append(root);
  return root.innerText;
}"""


def _examples() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    found = re.findall(r"A score sheet \(`hand_ended\.scores\[0\]`[^\n]*\n\n```json\n(.*?)\n```", text)
    return [json.loads(x) for x in found]


def _every_word() -> dict[str, Any]:
    """A sheet that uses every vocabulary word once (not a real hand: the labels only)."""
    kinds = get_args(vocabulary._ScoreItemKind)
    items = [{"key": key, "name": vocabulary.SCORE_ITEM_NAMES.get(key, key), "value": 2,
              "kind": kinds[i % len(kinds)], "count": 1, "counted": i % 3 != 0}
             for i, key in enumerate(get_args(vocabulary._ScoreItemKey))]
    terms = [{"key": key, "value": 1, "times": 1} for key in get_args(vocabulary._PaymentTermKey)]
    shapes = [{"shape": shape, "tiles": ["1m", "1m"], "plays_as": ["1m", "1m"]}
              for shape in get_args(vocabulary._GroupShape)]
    return {"seat": 0, "base": 1, "base_reason": {"key": "table_base", "streak": 1, "deal_count": None,
            "level": None, "seat": None}, "items": items, "rule": "sum", "total": 1, "cap": None,
            "payments": [{"payer": 1, "share_of": 2, "reason": "covers", "terms": terms, "factors": [],
                          "points": len(terms), "cap": None}],
            "groups": shapes, "melds": [], "flowers": [], "winning_tile": None}


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.on("pageerror", lambda e: print(f"page error: {e}"))
    page.goto(server.base + "/")
    yield page
    context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_examples_in_the_protocol_render_as_explained_wins(
    page: Page, screenshots: Path, lang: str
) -> None:
    sheets = _examples()
    assert {s["rule"] for s in sheets} == set(get_args(vocabulary._ScoreRule))  # one per variant
    page.evaluate(RENDER, [sheets, lang])
    page.screenshot(path=str(screenshots / f"score-sheets-{lang}.png"), full_page=True)
    for n, sheet in enumerate(sheets):
        root = f"#sheets .win:nth-child({n + 1}) .score-sheet"
        base = page.inner_text(f"{root} .score-base")
        assert str(sheet["base"]) in base and ("Base" if lang == "en" else "底分") in base
        for item in sheet["items"]:
            el = page.locator(f"{root} .score-item[data-key='{item['key']}']").first
            assert item["name"] in el.inner_text() and str(item["value"]) in el.inner_text()
            assert (el.get_attribute("data-counted") == "true") == item["counted"]
        assert f"{sheet['total']}" in page.inner_text(f"{root} .score-total")
        formulas = page.locator(f"{root} .formula")
        assert formulas.count() == len(sheet["payments"])
        for i, p in enumerate(sheet["payments"]):
            assert formulas.nth(i).locator(".points").inner_text() == f"{p['points']:,}"
        assert page.locator(f"{root} .group").count() == len(sheet["groups"])
        standing = sum(1 for g in sheet["groups"] for a, b in zip(g["tiles"], g["plays_as"], strict=True) if a != b)
        assert page.locator(f"{root} .plays-as").count() == standing
    # a wild standing in is in at least one example, and says what it plays as
    assert page.locator("#sheets .plays-as").count() > 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_word_of_a_sheet_has_a_label(page: Page, lang: str) -> None:
    sheet = _every_word()
    text = str(page.evaluate(RENDER, [[sheet], lang]))
    raw = re.findall(r"\b(?:term|kind|rule|base|shape|score)_[a-z_]+\b", text)
    assert raw == []
    for reason in get_args(vocabulary._BaseReasonKey):
        for streak in (None, 0, 2):
            s = {**sheet, "base_reason": {"key": reason, "streak": streak, "deal_count": streak,
                                          "level": "科员", "seat": 1}, "rule": "highest"}
            shown = str(page.evaluate(RENDER, [[s], lang]))
            assert not re.findall(r"\bbase_[a-z_]+\b", shown), reason
    for rule in get_args(vocabulary._ScoreRule):
        shown = str(page.evaluate(RENDER, [[{**sheet, "rule": rule}], lang]))
        assert f"rule_{rule}" not in shown
    if lang == "en":  # every item has an English gloss beside its Chinese name
        names = page.eval_on_selector_all("#sheets .item-name", "els => els.map(e => e.innerText)")
        assert all(re.match(r"[a-z]", n) for n in names), names
