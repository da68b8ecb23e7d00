"""Properties of the hand state machine, on random play of the Lishui ruleset."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.actions import (
    Action,
    AddedKong,
    Chow,
    ConcealedKong,
    Discard,
    Escape,
    ExposedKong,
    Hu,
    Pass,
    Pung,
)
from app.rules.context import TableContext
from app.rules.errors import IllegalAction
from app.rules.hand import (
    full_census,
    legal_actions,
    new_hand,
    pending_seats,
    replay,
    step,
    tile_census,
)
from app.rules.state import HandState
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.variants.lishui import Lishui
from app.rules.views import seat_view
from app.rules.wall import Wall

RULES = Lishui()
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def random_play(seed: int, stop_after: int | None = None) -> tuple[HandState, list[Action], list]:
    rng = random.Random(seed)
    ctx = TableContext(dealer=seed % 4, streak=seed % 5)
    state, events = new_hand(RULES, seed, ctx)
    actions: list[Action] = []
    while state.phase != "ended" and (stop_after is None or len(actions) < stop_after):
        seat = rng.choice(pending_seats(state))
        action = rng.choice(legal_actions(state, seat))
        state, more = step(state, action)
        actions.append(action)
        events += more
    return state, actions, events


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_every_tile_is_accounted_for_after_every_step(seed: int) -> None:
    rng = random.Random(seed)
    state, _ = new_hand(RULES, seed, TableContext(dealer=seed % 4))
    full = full_census(RULES)
    assert tile_census(state) == full
    while state.phase != "ended":
        seat = rng.choice(pending_seats(state))
        state, _ = step(state, rng.choice(legal_actions(state, seat)))
        assert tile_census(state) == full


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_replaying_the_actions_from_the_seed_gives_identical_events(seed: int) -> None:
    state, actions, events = random_play(seed)
    again, replayed = replay(RULES, seed, state.ctx, actions)
    assert replayed == events
    assert again.settlement == state.settlement


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_settlements_are_zero_sum(seed: int) -> None:
    state, _, _ = random_play(seed)
    assert state.settlement is not None
    assert sum(state.settlement.net()) == 0


def _candidate_actions(state: HandState, rng: random.Random) -> list[Action]:
    """Legal actions and a spread of plausible and hostile ones."""
    candidates: list[Action] = []
    for seat in range(4):
        candidates += legal_actions(state, seat)
        tile = rng.randrange(42)
        candidates += [
            Discard(seat, tile),
            Chow(seat, rng.randrange(27)),
            Pung(seat),
            ExposedKong(seat),
            ConcealedKong(seat, tile),
            AddedKong(seat, tile),
            Hu(seat),
            Pass(seat),
        ]
    candidates += [Discard(7, 0), Pass(-1), Hu(4), Discard(0, -3), Discard(0, 99)]
    return candidates


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.integers(min_value=0, max_value=150))
def test_legal_actions_apply_and_everything_else_is_refused_unchanged(seed: int, at: int) -> None:
    state, _, _ = random_play(seed, stop_after=at)
    rng = random.Random(seed ^ at)
    for action in _candidate_actions(state, rng):
        before = copy.deepcopy(state)  # not a clone: a clone shares the lists step replaces
        legal = 0 <= action.seat < 4 and action in legal_actions(state, action.seat)
        if legal:
            after, events = step(state, action)
            assert events or after.window is not None and after.window.answers
        else:
            with pytest.raises(IllegalAction) as refused:
                step(state, action)
            assert refused.value.code
        assert state == before, "step changed the state it was given"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_step_of_a_hand_changes_an_earlier_state(variant: str) -> None:
    """`step` works on a copy that shares what it only replaces (melds, flowers, decisions,
    penalties): every state of a hand, kongs and flowers included, stays as it was."""
    ruleset = get_ruleset(variant)
    for seed in range(3):
        rng = random.Random(seed)
        state, _ = new_hand(ruleset, seed, TableContext(dealer=seed % 4))
        kept = [(state, copy.deepcopy(state))]
        while state.phase != "ended":
            seat = rng.choice(pending_seats(state))
            legal = legal_actions(state, seat)
            melds = [a for a in legal if not isinstance(a, (Discard, Pass))]
            state, _ = step(state, rng.choice(melds or legal))  # claims and kongs whenever offered
            kept.append((state, copy.deepcopy(state)))
        for i, (state, snapshot) in enumerate(kept):
            assert state == snapshot, f"{variant} seed {seed}: state {i} changed later"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_step_in_place_plays_the_hand_a_step_on_a_copy_plays(variant: str) -> None:
    """Self-play and replay step in place: the same events and end state as stepping on a
    copy, claims and kongs included; an illegal action in place changes nothing."""
    ruleset = get_ruleset(variant)
    for seed in range(3):
        ctx = TableContext(dealer=seed % 4)
        rng = random.Random(seed)
        state, events = new_hand(ruleset, seed, ctx)
        mine, mine_events = new_hand(ruleset, seed, ctx)
        while state.phase != "ended":
            seat = rng.choice(pending_seats(state))
            legal = legal_actions(state, seat)
            melds = [a for a in legal if not isinstance(a, (Discard, Pass))]
            action = rng.choice(melds or legal)
            before = copy.deepcopy(mine)
            with pytest.raises(IllegalAction):
                step(mine, Discard((seat + 1) % 4 if mine.phase == "turn" else seat, 41),
                     in_place=True)
            assert mine == before
            state, more = step(state, action)
            same, mine_more = step(mine, action, in_place=True)
            assert same is mine and mine_more == more
            events += more
            mine_events += mine_more
        assert mine == state and mine_events == events


def test_an_escape_is_accepted_at_any_time_and_ends_the_hand() -> None:
    state, _, _ = random_play(11, stop_after=20)
    after, events = step(state, Escape(2))
    assert after.phase == "ended" and after.outcome == "escape"
    assert events[-1].kind == "hand_ended"
    with pytest.raises(IllegalAction) as refused:
        step(after, Discard(0, 0))
    assert refused.value.code == "hand_over"


def test_an_out_of_turn_discard_is_refused_with_its_code() -> None:
    state, _ = new_hand(RULES, 5, TableContext(dealer=0))
    tile = next(t for t, c in enumerate(state.concealed[1]) if c)
    with pytest.raises(IllegalAction) as refused:
        step(state, Discard(1, tile))
    assert refused.value.code == "not_your_turn"
    missing = next(t for t, c in enumerate(state.concealed[0][:34]) if not c)
    with pytest.raises(IllegalAction) as refused:
        step(state, Discard(0, missing))
    assert refused.value.code == "tile_not_in_hand"


def _hidden_shuffle(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same state with every tile `seat` cannot see redistributed: the wall order and the
    other seats' concealed tiles (each keeping its size)."""
    other = state.clone()
    pool = list(state.wall.remaining_tiles())
    sizes = {}
    for s in range(4):
        if s != seat:
            tiles = [t for t, c in enumerate(other.concealed[s]) for _ in range(c)]
            sizes[s] = len(tiles)
            pool += tiles
    rng.shuffle(pool)
    for s, size in sizes.items():
        counts = [0] * 42
        for t in pool[:size]:
            counts[t] += 1
        pool = pool[size:]
        other.concealed[s] = counts
    w = state.wall
    tiles = w.tiles[: w.head] + tuple(pool) + w.tiles[w.tail :]
    other.wall = Wall(tiles, w.head, w.tail, w.reserve)
    return other


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.integers(min_value=0, max_value=120), st.integers(min_value=0, max_value=3))
def test_a_seats_view_does_not_depend_on_what_it_cannot_see(seed: int, at: int, seat: int) -> None:
    state, _, _ = random_play(seed, stop_after=at)
    if state.phase == "ended":
        return
    view = seat_view(state, seat)
    shuffled = _hidden_shuffle(state, seat, random.Random(seed))
    assert seat_view(shuffled, seat) == view
    assert all(v["hand"] is None for v in view["seats"] if v["seat"] != seat)
    assert "wall" not in json.dumps(view).replace("wall_remaining", "").replace("wall_live", "")


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_events_for_a_seat_hide_other_seats_tiles(seed: int) -> None:
    _, _, events = random_play(seed)
    for seat in range(4):
        for event in events:
            seen = event.for_seat(seat).to_dict()
            owner = seen.get("seat")
            if event.kind in ("dealt", "drew") and owner != seat:
                assert seen["tiles" if event.kind == "dealt" else "tile"] is None
            if event.kind == "melded" and seen["meld"] == "concealed_kong" and owner != seat:
                assert seen["tiles"] is None


# --- claim windows on a prepared wall ----------------------------------------------------

from dataclasses import replace

from app.rules.scenario import arrange
from app.rules.tiles import parse_one

TWO_WAIT_ON_5M: dict[str, Any] = {
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}


def _after_dealer_discards_5m(rules: Lishui) -> HandState:
    state, _ = new_hand(rules, 1, TableContext(dealer=0), arrange(rules, **TWO_WAIT_ON_5M))
    state, _ = step(state, Discard(0, parse_one("5m")))
    assert state.phase == "claim"
    assert Hu(2) in legal_actions(state, 2) and Hu(3) in legal_actions(state, 3)
    return state


def test_two_wins_on_one_discard_go_to_the_nearest_seat() -> None:
    state = _after_dealer_discards_5m(RULES)
    state, events = step(state, Hu(3))
    assert not events and state.phase == "claim"  # seat 2, nearer, has not answered yet
    state, events = step(state, Hu(2))
    assert [e.seat for e in events if e.kind == "won"] == [2]
    assert state.wins[0].from_seat == 0


def test_the_nearest_seat_passing_lets_the_next_one_win() -> None:
    state = _after_dealer_discards_5m(RULES)
    state, _ = step(state, Pass(2))
    state, events = step(state, Hu(3))
    assert [e.seat for e in events if e.kind == "won"] == [3]


def test_the_window_closes_as_soon_as_the_nearest_win_is_in() -> None:
    state = _after_dealer_discards_5m(RULES)
    state, events = step(state, Hu(2))
    assert state.phase == "ended" and [e.seat for e in events if e.kind == "won"] == [2]


def test_a_multi_win_variant_pays_every_winner_on_one_discard() -> None:
    rules = replace(RULES, multi_win=True)
    state = _after_dealer_discards_5m(rules)
    state, _ = step(state, Hu(3))
    state, events = step(state, Hu(2))
    won = [e for e in events if e.kind == "won"]
    assert [e.seat for e in won] == [2, 3]
    assert all(parse_one("5m") in e.hand for e in won)
    assert tile_census(state) == full_census(rules)
    # the revealed hands at the end are the winners' winning hands, the tile included
    (ended,) = [e for e in events if e.kind == "hand_ended"]
    for w in won:
        assert sorted(ended.hands[w.seat]) == sorted(w.hand)
