"""The fast greedy bot (issue 18) chooses exactly as the bot before it did.

`bench/greedy_before.py` keeps the old bot and the shanten functions it called; the new bot
asks `shanten_after_discard` once per turn instead of `shanten` once per candidate discard.
Every decision of seeded hands of every variant, played by the greedy bot and by random bots
(more varied hands: wilds thrown, odd claims), must get the same choice from both.
"""

from __future__ import annotations

import random

import pytest

from app.rules.bots import Bot, GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.shanten import UNHELD, shanten, shanten_after_discard
from app.rules.tiles import counts_of, full_set, parse
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import roll_dice
from bench import greedy_before
from bench.greedy_before import GreedyBotBefore


def _compare(variant: str, seed: int, players: str, decisions: int = 300) -> None:
    """Play seeded hands until `decisions` decisions were seen (whole hands); at every one,
    both greedy bots must choose alike."""
    ruleset = get_ruleset(variant)
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    old, new = GreedyBotBefore(), GreedyBot()
    compared = 0
    while compared < decisions:
        hand_seed = master.getrandbits(63)
        mover: Bot = new if players == "greedy" else RandomBot(random.Random(hand_seed))
        state, _ = new_hand(ruleset, hand_seed, ctx)
        while state.phase != "ended":
            seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
            legal = legal_actions(state, seat)
            choice = new.choose(state, seat, legal)
            assert choice == old.choose(state, seat, legal), (variant, hand_seed, state.phase)
            compared += 1
            state, _ = step(state, mover.choose(state, seat, legal))
        ctx = ruleset.next_context(state)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_greedy_bot_chooses_as_before_in_greedy_hands(variant: str) -> None:
    _compare(variant, 5, "greedy")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_greedy_bot_chooses_as_before_in_random_hands(variant: str) -> None:
    _compare(variant, 6, "random")


def test_shanten_after_each_discard_is_the_shanten_of_the_hand_left() -> None:
    rng = random.Random(12)
    wall = full_set()
    close = [t for t in wall if t < 12 or t in (27, 28)]  # many tiles in few suits
    checked = 0
    while checked < 400:
        # a hand that discards, and one a tile over it (what each draw would leave)
        size = rng.choice([2, 5, 8, 11, 14, 17, 3, 6, 9, 12, 15, 18])
        wilds = rng.randrange(min(4, size) + 1)
        counts = counts_of(rng.sample(wall if checked % 2 else close, size - wilds))
        seven = checked % 3 == 0
        after = shanten_after_discard(counts, wilds, seven_pairs=seven)
        for kind in range(34):
            if not counts[kind]:
                assert after[kind] == UNHELD
                continue
            counts[kind] -= 1
            expected = greedy_before.shanten(counts, wilds, seven_pairs=seven)
            assert shanten(counts, wilds, seven_pairs=seven) == expected
            assert after[kind] == expected
            counts[kind] += 1
        checked += 1


def test_shanten_after_discard_needs_a_hand_that_discards() -> None:
    with pytest.raises(ValueError):
        shanten_after_discard(counts_of(parse("123m456p789s1z")), 0)  # 13 tiles
    assert shanten_after_discard(counts_of(parse("123m456p789s11z")), 0)[27] == 0
