"""丽水 worked example: RULES.md Example A."""

from __future__ import annotations

from app.rules.actions import Action, Discard, Hu
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse_one
from app.rules.variants.lishui import Lishui

DESCRIPTION = (
    "Seat 0 deals for the second time running (one dealer win before: base 5). The dealer "
    "rolls 3 and 4 after the deal, so the 7th tile from the tail, 9s, is turned: 9s is the "
    "财神 and 白板 plays as 9s. The dealer throws 6z, everybody throws what they draw, and "
    "the dealer draws 7s to complete seven pairs (七对子; four 东 count as two pairs) by "
    "self-draw: x4."
)


def example() -> tuple[str, HandState, list[Event]]:
    rules = Lishui()
    preset = arrange(
        rules,
        dealer=0,
        hands=["55m33p55p7s1111z22z6z", "12358m1369p2478s", "23469m2478p1358s", "14679m1358p2368s"],
        draws="3z4z7z7s",
        indicator="9s",
        wild_dice=(3, 4),
    )
    state, events = new_hand(rules, 1, TableContext(dealer=0, streak=1), preset)
    script: list[Action] = [Discard(0, parse_one("6z"))]
    script += [Discard(seat, parse_one(t)) for seat, t in ((1, "3z"), (2, "4z"), (3, "7z"))]
    script.append(Hu(0))
    for action in script:
        state, more = step(state, action)
        events += more
    return DESCRIPTION, state, events
