"""The expert bot decides from what its seat sees: changing only what the seat cannot see
(another seat's concealed tiles, the wall's order) never changes its decision."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.bots import GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.expert import ExpertBot
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.seen import HIDDEN, see
from app.rules.state import HandState, Meld
from app.rules.variants import VARIANTS, get_ruleset


def _position(variant: str, seed: int, steps: int) -> tuple[HandState, int] | None:
    """A hand played `steps` decisions in (greedy and random seats mixed), and the seat that
    decides next; None when the hand ended before."""
    rng = random.Random(seed)
    bots = [GreedyBot() if rng.random() < 0.6 else RandomBot(random.Random(seed + s))
            for s in range(4)]
    state, _ = new_hand(get_ruleset(variant), seed, TableContext(dealer=seed % 4))
    for _ in range(steps):
        if state.phase == "ended":
            return None
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        state, _ = step(state, bots[seat].choose(state, seat, legal_actions(state, seat)))
    if state.phase == "ended":
        return None
    return state, state.turn if state.phase == "turn" else pending_seats(state)[0]


def _hidden_changed(state: HandState, seat: int, rng: random.Random) -> HandState:
    """`state` with the other seats' concealed tiles and the wall's tiles dealt anew among
    themselves (each hand keeps its size), and the wall in another order."""
    other = state.clone()
    wall = state.wall
    pool = list(wall.tiles[wall.head : wall.tail])
    for s in range(4):
        if s != seat:
            for tile, n in enumerate(state.concealed[s]):
                pool += [tile] * n
    rng.shuffle(pool)
    for s in range(4):
        if s != seat:
            size = sum(state.concealed[s])
            hand = [0] * len(state.concealed[s])
            for tile in pool[:size]:
                hand[tile] += 1
            del pool[:size]
            other.concealed[s] = hand
    tiles = wall.tiles[: wall.head] + tuple(pool) + wall.tiles[wall.tail :]
    other.wall = wall._replace(tiles=tiles)
    return other


@settings(max_examples=150, deadline=None)
@given(
    variant=st.sampled_from(sorted(VARIANTS)),
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 140),
    shuffle=st.integers(0, 2**31),
)
def test_the_expert_decides_the_same_whatever_its_seat_cannot_see(
    variant: str, seed: int, steps: int, shuffle: int
) -> None:
    found = _position(variant, seed, steps)
    if found is None:
        return
    state, seat = found
    legal = legal_actions(state, seat)
    other = _hidden_changed(state, seat, random.Random(shuffle))
    assert see(other, seat, legal) == see(state, seat, legal)
    assert ExpertBot().choose(other, seat, legal) == ExpertBot().choose(state, seat, legal)


def test_a_view_hides_another_seats_concealed_kong_and_shows_the_own() -> None:
    state, _ = new_hand(get_ruleset("lishui"), 5, TableContext())
    kong = Meld("concealed_kong", (3, 3, 3, 3), 3)
    state.melds = [[kong], [], [], []]
    assert see(state, 0, []).melds[0] == (kong,)
    hidden = see(state, 1, []).melds[0][0]
    assert hidden.tiles == () and hidden.plays_as == HIDDEN
    assert see(state, 1, []).visible()[3] == see(state, 1, []).concealed[3]


def test_a_view_holds_only_the_own_concealed_tiles() -> None:
    state, _ = new_hand(get_ruleset("huzhou"), 9, TableContext())
    view = see(state, 2, legal_actions(state, 2))
    assert view.concealed == tuple(state.concealed[2])
    assert view.hand_counts == tuple(sum(h) for h in state.concealed)
    assert not hasattr(view, "wall") and view.wall_remaining == state.wall.remaining
