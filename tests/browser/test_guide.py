"""新手教学, the guided first hand (docs/practice.md), played in the browser as a new player
plays it: the lobby's offer, then the bubbles, followed one by one, to the win and its
payment explained; in Chinese on a phone, and shorter in English on a phone on its side.

Each bubble must point at something the player can act on, and never cover it."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.english import LEAKS
from tests.browser.ui import register, settled_balance

PHONE = {"width": 390, "height": 844}
PHONE_SIDEWAYS = {"width": 844, "height": 390}
BUBBLE = "#guide-bubble"
END = "#guide-end"
GRANT = 10000  # a new account's silver (RULES.md 7)

# the bubble, where it points, and whether it covers its target or an action button
READ_BUBBLE = """() => {
  const b = document.querySelector('#guide-bubble');
  if (!b) return null;
  const r = b.getBoundingClientRect();
  const hit = (el) => { const q = el.getBoundingClientRect();
    return q.width > 0 && r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom; };
  const target = b.dataset.target ? document.querySelector(b.dataset.target) : null;
  return {
    step: b.dataset.step, target: b.dataset.target, text: b.querySelector('.guide-text').textContent,
    found: Boolean(target), covers: Boolean(target && hit(target)),
    buttons: [...document.querySelectorAll('#actions button')].filter(hit).map((x) => x.id),
    inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
  };
}"""


def _bubble(page: Page, after: dict[str, Any] | None) -> dict[str, Any]:
    """The next bubble that differs from `after` (its step or its text), or the end."""
    page.wait_for_function(
        """([step, text]) => document.querySelector('#guide-end') || (() => {
          const b = document.querySelector('#guide-bubble');
          return b && (b.dataset.step !== step || b.querySelector('.guide-text').textContent !== text);
        })()""",
        arg=[after["step"] if after else "", after["text"] if after else ""],
        timeout=30_000,
    )
    if page.query_selector(END):
        return {"step": "end"}
    seen = page.evaluate(READ_BUBBLE)
    return seen if seen is not None else _bubble(page, after)


def _follow(page: Page, until: str = "end") -> list[dict[str, Any]]:
    """Do what each bubble says, as a player does, until the step `until` shows; every
    bubble seen, in order."""
    seen: list[dict[str, Any]] = []
    bubble: dict[str, Any] | None = None
    while True:
        bubble = _bubble(page, bubble)
        seen.append(bubble)
        if bubble["step"] == until:
            return seen
        if bubble.get("target"):
            assert bubble["found"], bubble
            assert not bubble["covers"] and bubble["buttons"] == [], bubble  # nothing hidden
            assert bubble["inside"], bubble
        step = bubble["step"]
        if step == "hand":
            page.click("#guide-next")
        elif step in ("discard", "ready"):
            target = str(bubble["target"])
            page.click(target)
            if page.get_attribute("#my-hand", "data-confirm") == "1":  # a phone: tap it again
                page.click(f"{target}.selected")
        elif step in ("pung", "hu"):
            page.click(str(bubble["target"]))


def test_a_new_player_follows_the_guided_hand_from_the_offer_to_the_win(
    server: Server, context_for: Any
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "新手阿明")
    page.wait_for_selector("#guide-offer")
    assert page.inner_text("#guide-start") == "新手教学：打一局"
    page.click("#guide-start")
    page.wait_for_selector("#table-view", timeout=60_000)  # three bots made on a loaded machine

    seen = _follow(page)

    steps = [b["step"] for b in seen]
    # every moment of the hand, in order: the hand and its 财神, a discard, 碰, the ready
    # mark, 胡, then the end
    wanted = ["hand", "discard", "pung", "ready", "hu", "end"]
    at = [steps.index(s) for s in wanted]
    assert at == sorted(at), steps
    texts = {b["step"]: b["text"] for b in seen if b["step"] in wanted[:-1]}
    targets = {b["step"]: b["target"] for b in seen if b["step"] in wanted[:-1]}
    assert len(set(texts.values())) == 5 and len(set(targets.values())) == 5, seen
    assert "财神" in texts["hand"] and "白" in texts["hand"]
    assert "东" in texts["discard"] and targets["discard"].endswith('[data-tile="1z"]')
    assert "碰" in texts["pung"] and "八条" in texts["pung"]
    assert "听" in texts["ready"] and targets["ready"].endswith('.ready[data-tile="9s"]')
    assert "胡" in texts["hu"]
    # the end: the payment in words, and no silver moved
    end = page.inner_text(END)
    assert "每家付你 6 分" in end and "一共 18 分" in end and "3 × 2 = 6" in end
    assert "不动银两" in end
    assert page.inner_text("#settle-moved") == "0"
    assert settled_balance(page) == GRANT  # a new account's silver, untouched

    # play for real: off the practice table, queued for a 丽水 table at the first level
    page.click("#guide-real")
    page.wait_for_selector("#quick-panel:not([hidden])")
    assert page.input_value("#quick-variant") == "lishui"
    assert not page.query_selector("#guide-offer")  # offered once: answered
    assert page.query_selector("#guide-open")  # and still at hand


def test_the_guide_in_english_can_be_put_off_found_again_and_skipped(
    server: Server, context_for: Any
) -> None:
    page = context_for(PHONE_SIDEWAYS, locale="en-US")
    register(page, server.base, "newbie")
    page.wait_for_selector("#guide-offer")
    assert page.inner_text("#guide-offer-title") == "New here? Play a guided hand"
    page.click("#guide-dismiss")
    page.wait_for_selector("#guide-offer", state="detached")
    page.reload()
    page.wait_for_selector("#quick-card")
    assert not page.query_selector("#guide-offer")  # not offered twice
    page.click("#guide-open")  # but still there, small
    page.wait_for_selector("#table-view", timeout=60_000)  # three bots made on a loaded machine

    seen = _follow(page, until="discard")
    assert [b["step"] for b in seen][-2:] == ["hand", "discard"]
    hand, throw = seen[-2], seen[-1]
    assert "wild (财神)" in hand["text"] and "Keep it" in hand["text"]
    assert re.search(r"East .*stands alone", throw["text"]), throw
    assert page.evaluate(LEAKS) == []  # English, bar the tiles and glosses

    page.click("#guide-skip")
    page.wait_for_selector(BUBBLE, state="detached")
    page.click('#my-hand button.tile.legal[data-tile="1z"]')  # the table plays on without it
    if page.get_attribute("#my-hand", "data-confirm") == "1":
        page.click('#my-hand button.tile.legal[data-tile="1z"].selected')
    page.wait_for_selector('#seat-0 .discards .tile[data-tile="1z"]')
    assert not page.query_selector(BUBBLE)
