"""福州 worked example: RULES.md Example D."""

from __future__ import annotations

from app.rules.actions import Action, ConcealedKong, Discard, Hu, Pass
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse, parse_one
from app.rules.variants.fuzhou import Fuzhou

DESCRIPTION = (
    "Example D. Seat 0 deals (no streak; the table's base is 1). Seat 1 is dealt 白 (a "
    "flower in 福州, like every honour), 春 and 兰: in 补花 it lays them out and draws three "
    "replacements from the tail. The next tail tile, 9s, is turned: 9s is the 金. The dealer "
    "throws 1s; seat 1 draws 8s, declares a concealed kong (暗杠) of 2p, draws 1s from the "
    "tail and throws it (seat 2 declines to chow it), waiting on 6s. Everybody throws what "
    "they draw until seat 1 draws 6s and wins by self-draw: 123m 456m 789m 678s 55s with the "
    "kong. It holds no 金, three "
    "flowers and one 暗杠: 花分 3 + 2 = 5, a plain win, so each other seat pays "
    "2 x (1 + 5) = 12."
)


def example() -> tuple[str, HandState, list[Event]]:
    rules = Fuzhou()
    preset = arrange(
        rules,
        dealer=0,
        hands=[
            parse("13679m134679p23578s1s"),
            parse("2222p123m456m789m5z1f6f"),  # 白 春 兰 are laid out in 补花
            parse("124578m14689p23467s"),
            parse("2345689m3578p14568s"),
        ],
        draws="8s1p3p5p6s",
        replacements="5s5s7s9s1s",  # 补花 x3, the 金, the kong's replacement
        indicator=None,
    )
    state, events = new_hand(rules, 4, TableContext(dealer=0, streak=0), preset)
    script: list[Action] = [
        Discard(0, parse_one("1s")),
        ConcealedKong(1, parse_one("2p")),
        Discard(1, parse_one("1s")),
        Pass(2),  # seat 2 could chow the 1s
        Discard(2, parse_one("1p")),
        Discard(3, parse_one("3p")),
        Discard(0, parse_one("5p")),
        Hu(1),
    ]
    for action in script:
        state, more = step(state, action)
        events += more
    return DESCRIPTION, state, events
