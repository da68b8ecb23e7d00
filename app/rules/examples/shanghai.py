"""上海 worked example: a typical 混一色 win on a discard in a 荒番 hand (RULES.md 6 has no
Example of its own)."""

from __future__ import annotations

from app.rules.actions import Action, Discard, Hu, Pung
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse_one
from app.rules.variants.shanghai import Shanghai

DESCRIPTION = (
    "Seat 0 deals; the dice show 1 and 3, and a roll with a 1 adds one to the table's 荒番 "
    "count (0 before), so this is a 荒番 hand and every payment doubles. Seat 2 lays out "
    "春 and 梅 in the deal (补花: 9s and 5s come from the tail). The dealer throws 中 and "
    "seat 2 pungs it, then throws 9s. Seat 2 now holds 234s 678s 东东东 5s: a 混一色 (one "
    "suit and honours) waiting on 5s. Seat 3 and the dealer throw the 西 and 北 they draw; "
    "seat 1 draws 5s and throws it, and seat 2 wins on it. "
    "花: 3 (底注) + 2 flowers + 2 for the 中 碰 + 1 for the concealed 东 刻 = 8; no 番 (a "
    "claimed meld, so not 门清; not 杠开): the hand is worth 8, doubled to 16 for 荒番, "
    "paid by the discarder alone. Seat 2, the winner, deals next; the 荒番 count falls "
    "back to 0."
)


def example() -> tuple[str, HandState, list[Event]]:
    rules = Shanghai()
    preset = arrange(
        rules,
        dealer=0,
        hands=[
            "12358m1369p2478s7z",
            "23469m2478p1358s",
            "234s678s111z77z1f5f",
            "14679m1358p2368s",
        ],
        draws="3z4z5s",
        replacements="9s5s",
        dice=(1, 3),
    )
    state, events = new_hand(rules, 1, TableContext(dealer=0), preset)
    t = parse_one
    script: list[Action] = [
        Discard(0, t("7z")),
        Pung(2),
        Discard(2, t("9s")),
        Discard(3, t("3z")),
        Discard(0, t("4z")),
        Discard(1, t("5s")),
        Hu(2),
    ]
    for action in script:
        state, more = step(state, action)
        events += more
    return DESCRIPTION, state, events
