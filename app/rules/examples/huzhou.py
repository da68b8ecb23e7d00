"""湖州 worked example: RULES.md Example C (two 财神 and a kong win)."""

from __future__ import annotations

from app.rules.actions import Action, ConcealedKong, Discard, Hu
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse_one
from app.rules.variants.huzhou import Huzhou

DESCRIPTION = (
    "Seat 0 deals. The seats hold 120, 45, 1600 and 95 积分: the lowest level at the table "
    "is seat 1's 科长 (45), so the hand's base is 4. After the deal the next tile, 6z (发), "
    "is turned up as the 前导牌: the next dragon, 5z (白), is the 财神. The dealer throws "
    "7z; seat 1, holding 东东东 and two 财神, draws the fourth 东, declares a concealed kong "
    "and completes its hand on the replacement 8s from the tail (杠开: 7s 8s and a 财神 make "
    "a run, 9p and the other 财神 the pair). A self-draw costs every other seat 2 x base, "
    "doubled once for the kong win: 2 x 2 = 4 x base = 16 from each."
)


def example() -> tuple[str, HandState, list[Event]]:
    rules = Huzhou()
    preset = arrange(
        rules,
        dealer=0,
        hands=[
            "12358m1369p2478s7z",
            "111z5z5z123m456s7s9p",
            "23469m2478p1358s",
            "14679m1358p2368s",
        ],
        draws="6z1z",  # the 前导牌, then seat 1's draw
        replacements="8s",
    )
    ctx = TableContext(dealer=0, seat_points=(120, 45, 1600, 95))
    state, events = new_hand(rules, 1, ctx, preset)
    script: list[Action] = [
        Discard(0, parse_one("7z")),
        ConcealedKong(1, parse_one("1z")),
        Hu(1),
    ]
    for action in script:
        state, more = step(state, action)
        events += more
    return DESCRIPTION, state, events
