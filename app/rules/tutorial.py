"""The guided first hand (新手教学, docs/practice.md): a fixed, friendly 丽水 wall.

The learner sits at seat 0 and deals (庄家, 14 tiles); house bots hold the other seats. The
wall is arranged (`app.rules.scenario.arrange`) so that, played as the guide says, the hand
goes:

1. the learner holds a 白板, which is the 财神 (the turned tile is 白板: 白板 is the wild and
   nothing substitutes for it), and throws the lone 东 (1z);
2. seat 1 draws 8s and throws it: the learner holds 88s and is offered 碰;
3. after the 碰 the learner throws 9s and is ready (听牌): 123m 456p 33p 7m + 财神;
4. the bots draw and throw honours (no seat can claim them, and the learner cannot win on
   them), then the learner draws 8m and wins by self-draw (自摸): 78m + 财神 is a run.

The bots hold complete-looking hands with nothing to claim on the learner's discards, so
they neither 碰 nor 吃 nor win before the learner. A learner who plays otherwise plays on
an ordinary hand: the unlisted tiles follow in tile order.
"""

from __future__ import annotations

from app.rules.scenario import arrange
from app.rules.state import Preset
from app.rules.variants import get_ruleset

VARIANT = "lishui"
LEARNER = 0  # the learner's seat, and the dealer
HANDS = (
    "123m7m456p33p88s9s1z5z",  # the learner: 14 tiles, 白板 (5z) is the 财神
    "234567m9m123p678p",
    "123456s234s789p1p",
    "456m345s789s567p9p",
)
DRAWS = "8s2z3z4z8m"  # seat 1, then (after the 碰) seats 1, 2, 3 and the learner
INDICATOR = "5z"  # 白板 turned: 白板 is the 财神
DISCARDS = ("1z", "9s")  # what the guide asks the learner to throw, in order
WINNING_TILE = "8m"


def tutorial_preset() -> Preset:
    """The guided hand's wall, dice and wild dice."""
    return arrange(
        get_ruleset(VARIANT), dealer=LEARNER, hands=HANDS, draws=DRAWS, indicator=INDICATOR,
        dice=(3, 2), wild_dice=(2, 3),
    )
