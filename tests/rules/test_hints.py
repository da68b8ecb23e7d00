"""The readiness hints (听牌) a seat is told of its own hand agree with the engine: every wait
listed completes the hand by the variant's own test, none is missed, a discard marked ready
leaves the hand waiting on exactly those tiles, and nothing depends on what the seat cannot
see (another seat's concealed tiles, the wall)."""

from __future__ import annotations

import random

import pytest

from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.hints import Wait, ready_discards, waits
from app.rules.selfplay import bot_factory
from app.rules.state import HandState
from app.rules.tiles import NUM_KINDS, parse
from app.rules.variants import VARIANTS, get_ruleset


def _states(variant: str, seed: int, every: int = 3) -> list[tuple[HandState, int]]:
    """Every `every`th turn of a greedy self-play hand: (state, the seat to discard)."""
    ruleset = get_ruleset(variant)
    state, _ = new_hand(ruleset, seed, TableContext())
    bot = bot_factory("greedy")(seed, 0)
    out, turns = [], 0
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        if state.phase == "turn":
            turns += 1
            if turns % every == 0:
                out.append((state, seat))
        state, _ = step(state, bot.choose(state, seat, legal_actions(state, seat)))
    return out


def _with(state: HandState, seat: int, drop: int | None, add: int | None) -> tuple[list[int], int]:
    counts, wilds = state.effective(seat)
    for tile, sign in ((drop, -1), (add, 1)):
        if tile is None:
            continue
        kind = state.plays_as(tile)
        if kind is None:
            wilds += sign
        else:
            counts[kind] += sign
    return counts, wilds


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_ready_discards_are_exactly_the_engines(variant: str) -> None:
    checked = ready = 0
    for seed in range(6):
        for state, seat in _states(variant, seed):
            marked = {r.tile: r for r in ready_discards(state, seat)}
            held = [t for t in range(NUM_KINDS) if state.concealed[seat][t]]
            for tile in held:
                wins = [
                    w for w in range(NUM_KINDS) if state.plays_as(w) is not None
                    and max(_with(state, seat, tile, w)[0]) <= 4
                    and state.ruleset.can_win(state, seat, *_with(state, seat, tile, w))
                ]
                listed = [w.tile for w in marked[tile].waits] if tile in marked else []
                assert listed == wins, (variant, seed, tile)
                checked += 1
            ready += len(marked)
            assert set(marked) <= set(held)
    assert checked > 100 and ready > 0  # some hands got ready in these games


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_hints_never_depend_on_what_the_seat_cannot_see(variant: str) -> None:
    """Shuffle the other seats' concealed tiles among themselves and the wall: the hints of
    the seat (its waits' unseen counts included) do not move."""
    rng = random.Random(7)
    for state, seat in _states(variant, 11, every=2):
        before = ready_discards(state, seat)
        other = state.copy() if hasattr(state, "copy") else state
        others = [s for s in range(4) if s != seat]
        a, b = rng.sample(others, 2)
        moved = next((t for t in range(NUM_KINDS) if other.concealed[a][t]), None)
        if moved is None:
            continue
        concealed = [c[:] for c in other.concealed]
        concealed[a][moved] -= 1
        concealed[b][moved] += 1
        other.concealed = concealed
        assert ready_discards(other, seat) == before


def test_nine_gates_waits_on_every_tile_of_its_suit() -> None:
    """九莲宝灯's shape, 1112345678999m, waits on each of 1m-9m; with three 1m and three 9m
    of its own, one copy of each is unseen, four of the others less the one it holds."""
    state = _states("lishui", 0)[0][0]
    wild = state.wild.wild
    assert wild is not None and wild >= 9  # this deal's wild is no character
    hand = [0] * len(state.concealed[1])
    for tile in parse("1112345678999m"):
        hand[tile] += 1
    concealed = [c[:] for c in state.concealed]
    concealed[1] = hand
    state.concealed = concealed
    found = waits(state, 1)
    assert [w.tile for w in found] == parse("123456789m")
    seen_elsewhere = {w.tile: sum(1 for r in state.river if r.tile == w.tile and not r.claimed)
                      for w in found}
    assert found[0] == Wait(parse("1m")[0], 1 - seen_elsewhere[parse("1m")[0]])
    assert found[4] == Wait(parse("5m")[0], 3 - seen_elsewhere[parse("5m")[0]])


def test_special_hands_count_and_a_hand_not_ready_has_no_waits() -> None:
    """丽水's 不搭 (fourteen different tiles, each two of a suit three apart) is ready as the
    variant says: 258m147p369s1234z waits on 发 and 中 only (白 plays as the wild's face,
    7m here, too close to 8m); three triplets and four loose tiles wait on nothing."""
    state = _states("lishui", 1)[0][0]
    assert (state.wild.wild, state.wild.substitute) == (parse("7m")[0], parse("5z")[0])
    for hand_text, expected in (("258m147p369s1234z", parse("67z")), ("1119m2225p3336s1z", [])):
        hand = [0] * len(state.concealed[2])
        for tile in parse(hand_text):
            hand[tile] += 1
        concealed = [c[:] for c in state.concealed]
        concealed[2] = hand
        state.concealed = concealed
        assert [w.tile for w in waits(state, 2)] == expected, hand_text
