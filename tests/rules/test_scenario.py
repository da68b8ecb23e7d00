"""Arranged walls (app/rules/scenario.py, the admin test mode): the indicator asked for is the
one the variant turns, wherever the variant turns it (the tail by the dice in 丽水 and 温州,
the next front tile in 湖州, the tail after the deal's 补花 in 福州); a variant without one
refuses it."""

from __future__ import annotations

import pytest

from app.rules.actions import Decide
from app.rules.context import TableContext
from app.rules.hand import new_hand, pending_seats, step
from app.rules.scenario import arrange
from app.rules.tiles import parse, parse_one
from app.rules.variants import get_ruleset

HANDS_13 = ["123456789m1234p9m", "123456789p5678s", "123456789s1234m", "5678m5678p12345s"]
HANDS_16 = ["123456789m12345p999m", "123456789p56789s11m", "123456789s12345m11s",
            "5678m56789p2345s234p"]


@pytest.mark.parametrize("variant", ["lishui", "wenzhou", "huzhou"])
@pytest.mark.parametrize("wild_dice", [(1, 1), (2, 5), (6, 6)])
def test_the_arranged_indicator_is_turned(variant: str, wild_dice: tuple[int, int]) -> None:
    ruleset = get_ruleset(variant)
    hands = HANDS_16 if ruleset.hand_size == 16 else HANDS_13
    preset = arrange(ruleset, dealer=0, hands=hands, draws="7z", indicator="6z",
                     wild_dice=wild_dice)
    state, _ = new_hand(ruleset, 0, TableContext(dealer=0), preset)
    while state.phase == "decide":  # 温州's 买底 comes before the deal: nobody buys
        state, _ = step(state, Decide(pending_seats(state)[0], "decline"))
    assert state.wild.indicator == parse_one("6z")
    assert state.wall.draw_front()[0] == parse_one("7z")  # the arranged draws come next


def test_fuzhou_turns_the_indicator_after_the_deals_flowers_are_replaced() -> None:
    ruleset = get_ruleset("fuzhou")
    hands = ["123456789m12345p1f99m", *HANDS_16[1:]]
    # the dealer's 1f is replaced by 2f, itself replaced by 9p; then 开金 turns 5s
    preset = arrange(ruleset, dealer=0, hands=hands, replacements="2f9p", indicator="5s")
    state, _ = new_hand(ruleset, 0, TableContext(dealer=0), preset)
    assert state.wild.indicator == parse_one("5s")
    assert state.flowers[0] == parse("12f")


def test_a_variant_without_an_indicator_refuses_one() -> None:
    with pytest.raises(ValueError, match="indicator"):
        arrange(get_ruleset("shanghai"), dealer=0, hands=HANDS_13, indicator="6z")


@pytest.mark.parametrize("indicator", ["", " ", "6z7z"])
def test_an_indicator_is_one_tile(indicator: str) -> None:
    """Not an IndexError (a 500 at the admin test mode) for "", nor the first of several."""
    with pytest.raises(ValueError, match="one tile"):
        arrange(get_ruleset("lishui"), dealer=0, hands=HANDS_13, indicator=indicator)
