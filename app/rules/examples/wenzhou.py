"""温州 worked example: RULES.md Example E (买底 and 顶底, a 硬 self-draw)."""

from __future__ import annotations

from app.rules.actions import Action, Decide, Discard, Hu
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse_one
from app.rules.variants.wenzhou import Wenzhou

DESCRIPTION = (
    "Example E. Seat 0 deals for the second time running (k = 2: the base is 4 between the "
    "dealer and a non-dealer, 2 between non-dealers). Before the deal the dealer buys (买底) "
    "and seat 1 counters (顶底, worth 4k = 8); seats 2 and 3 decline. The second roll is 3 "
    "and 5, so the 6th tile from the tail (smaller die 3 x 2), 9s, is turned: 9s is the 财神 "
    "and 白板 plays as 9s. The dealer must throw its single 中 first; everybody throws what "
    "they draw, and seat 1 draws 8s to complete 123m 456m 789m 234p 678s with the pair 55p "
    "by self-draw. No 财神 stands in for another tile (there is none in any hand): 硬, x2. "
    "The dealer pays (8 + 4) x 2 = 24, seats 2 and 3 pay 2 x 2 = 4 each: seat 1 collects 32."
)

HANDS = [
    "12457m12457p124578s7z",  # the dealer: 17 tiles
    "123m456m789m234p55p67s",  # seat 1 waits on 5s / 8s
    "235689m23568p23568s",
    "13469m134689p13467s",
]


def example() -> tuple[str, HandState, list[Event]]:
    rules = Wenzhou()
    preset = arrange(
        rules,
        dealer=0,
        hands=HANDS,
        draws="1z2z3z4z8s",
        indicator="9s",
        wild_dice=(3, 5),
    )
    state, events = new_hand(rules, 1, TableContext(dealer=0, streak=1), preset)
    script: list[Action] = [
        Decide(0, "buy"),
        Decide(1, "counter"),
        Decide(2, "decline"),
        Decide(3, "decline"),
        Discard(0, parse_one("7z")),
    ]
    idle = ((1, "1z"), (2, "2z"), (3, "3z"), (0, "4z"))  # each throws the honour it draws
    script += [Discard(seat, parse_one(t)) for seat, t in idle]
    script.append(Hu(1))
    for action in script:
        state, more = step(state, action)
        events += more
    return DESCRIPTION, state, events
