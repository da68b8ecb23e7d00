"""The guided first hand's wall (app/rules/tutorial.py, docs/practice.md): played as the guide
says against the house bots (the greedy bot, claims included), the learner is offered 碰 on
seat 1's 8s, is ready after throwing 9s, and wins by self-draw on 8m; the bots claim nothing
and nobody else wins. Each seat is dealt exactly the hand written down, and the 财神 is 白板."""

from __future__ import annotations

from app.rules.actions import Action, Discard, Hu, Pass, Pung
from app.rules.bots import GreedyBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.tiles import parse, parse_one
from app.rules.tutorial import (
    DISCARDS,
    HANDS,
    INDICATOR,
    LEARNER,
    VARIANT,
    WINNING_TILE,
    tutorial_preset,
)
from app.rules.variants import get_ruleset


def _learner(legal: list[Action], throws: list[str]) -> Action:
    """The guide's advice: 胡, else 碰, else the next tile of its list, else pass."""
    for kind in (Hu, Pung):
        found = [a for a in legal if isinstance(a, kind)]
        if found:
            return found[0]
    if any(isinstance(a, Discard) for a in legal):
        return Discard(LEARNER, parse_one(throws.pop(0)))
    return next(a for a in legal if isinstance(a, Pass))


def test_the_guided_wall_plays_out_as_the_guide_says() -> None:
    state, _ = new_hand(get_ruleset(VARIANT), 1, TableContext(dealer=LEARNER), tutorial_preset())
    for seat, hand in enumerate(HANDS):
        dealt = [kind for kind, n in enumerate(state.concealed[seat]) for _ in range(n)]
        assert dealt == sorted(parse(hand))
    assert state.wild.wild == parse_one(INDICATOR) and state.wild.substitute is None

    bot = GreedyBot()
    throws = list(DISCARDS)
    offered: list[str] = []
    bots_did: list[str] = []
    while state.phase != "ended":
        seat = pending_seats(state)[0]
        legal = legal_actions(state, seat)
        if seat == LEARNER:
            offered += [type(a).__name__ for a in legal if not isinstance(a, (Discard, Pass))]
            action = _learner(legal, throws)
        else:
            action = bot.choose(state, seat, legal)
            bots_did.append(type(action).__name__)
        state, events = step(state, action)

    assert offered == ["Pung", "Hu"]  # 碰 on 8s, then the win, and nothing else
    assert throws == []
    assert set(bots_did) <= {"Discard", "Pass"}  # no bot claims
    won = events[-2]
    assert getattr(won, "seat", None) == LEARNER and getattr(won, "self_draw", False) is True
    assert getattr(won, "tile", None) == parse_one(WINNING_TILE)
    assert state.outcome == "win"
