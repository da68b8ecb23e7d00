"""In a 上海 claim window the prompt names the claims after which the hand can make no
winning shape (`dead_ends`), on the wire too; other claims, turns and other variants say
nothing."""

from __future__ import annotations

import json

from app.rules.actions import Chow, Discard
from app.rules.tiles import parse_one
from app.rules.variants.shanghai import Shanghai
from app.tables.messages import PromptOut
from app.tables.wire import encoded_message
from tests.rules.test_deadend import CHOWS
from tests.rules.test_shanghai import QA, QB, QC
from tests.tables.test_actor import PUNG_OR_CHOW_ON_5P, Harness

TWO_CHOWS = {"dealer": 0, "hands": [QA + "4m", CHOWS, QB, QC], "draws": "2z4z8m"}


def _wire(h: Harness, seat: int) -> dict:
    return json.loads(encoded_message(h.table, seat, h.prompt(seat)).text)


async def test_a_chow_in_a_second_suit_is_marked_a_dead_end_on_the_prompt() -> None:
    h = Harness(Shanghai(), scenario=TWO_CHOWS)
    await h.deal()
    assert h.prompt(0).dead_ends == ()  # a turn
    await h.act(0, Discard(0, parse_one("4m")))
    first = Chow(1, parse_one("4m"))
    assert first in h.prompt(1).legal and h.prompt(1).dead_ends == ()  # a first 吃: 清一色 left
    assert _wire(h, 1)["dead_ends"] == []
    await h.act(1, first)
    await h.act(1, Discard(1, parse_one("5z")))
    for seat in (2, 3):  # they throw what they draw (2z, 4z)
        hand = h.table.hand
        assert hand is not None and hand.turn == seat and hand.drawn is not None
        await h.act(seat, Discard(seat, hand.drawn))
    await h.act(0, Discard(0, parse_one("3p")))
    second = Chow(1, parse_one("3p"))
    prompt = h.prompt(1)
    assert isinstance(prompt, PromptOut) and prompt.dead_ends == (second,)
    wire = _wire(h, 1)
    assert wire["dead_ends"] == [{"type": "chow", "low": "3p"}]
    assert {"type": "chow", "low": "3p"} in wire["legal_actions"]


async def test_other_variants_mark_no_dead_end() -> None:
    # 丽水: seat 1 may 吃 and seat 2 may 碰 the dealer's 5p; plain hands win there
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.act(0, Discard(0, parse_one("5p")))
    for seat in (1, 2):
        assert h.prompt(seat).dead_ends == ()
        assert _wire(h, seat)["dead_ends"] == []
