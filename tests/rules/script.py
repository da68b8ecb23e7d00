"""Helpers shared by the variant rule tests: play a script of actions on a prepared hand
and read its settlement. Every step checks that every tile is still accounted for."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from app.rules.actions import Action, Discard, Pass
from app.rules.errors import IllegalAction
from app.rules.hand import full_census, pending_seats, step, tile_census
from app.rules.state import HandState
from app.rules.tiles import parse_one

PASS = "pass"  # in a script: every seat the open claim window waits for passes


def T(text: str) -> int:
    return parse_one(text)


def play(state: HandState, *script: Action | str) -> HandState:
    """Apply a script of actions; every tile stays accounted for after every step."""
    for item in script:
        if item == PASS:
            assert state.phase in ("claim", "rob"), f"no claim window to pass ({state.phase})"
            while state.phase in ("claim", "rob"):
                state, _ = step(state, Pass(pending_seats(state)[0]))
        else:
            assert not isinstance(item, str)
            state, _ = step(state, item)
        assert tile_census(state) == full_census(state.ruleset)
    return state


def play_events(state: HandState, *actions: Action) -> tuple[HandState, list]:
    events: list = []
    for action in actions:
        state, more = step(state, action)
        events += more
    return state, events


def idle(state: HandState, turns: int) -> HandState:
    """`turns` turns in which the seat in turn throws the tile it just drew and every claim
    on it is declined."""
    for _ in range(turns):
        assert state.phase == "turn" and state.drawn is not None, state.phase
        state = play(state, Discard(state.turn, state.drawn))
        if state.phase == "claim":
            state = play(state, PASS)
    return state


def discard(seat: int, tile: str) -> Discard:
    return Discard(seat, T(tile))


def refused(state: HandState, action: Action) -> str:
    """The code `step` refuses `action` with; the state it was given is left untouched."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as info:
        step(state, action)
    assert state == before
    return info.value.code


def net(state: HandState) -> tuple[int, int, int, int]:
    """The hand's net points per seat; every settlement is whole points and zero-sum."""
    assert state.phase == "ended" and state.settlement is not None
    for t in state.settlement.transfers:
        assert isinstance(t.points, int) and t.points > 0 and t.payer != t.payee
    totals = state.settlement.net()
    assert sum(totals) == 0
    return totals


def paid(state: HandState) -> dict[tuple[int, int], int]:
    """(payer, payee) -> points over the whole settlement."""
    out: Counter[tuple[int, int]] = Counter()
    assert state.settlement is not None
    for t in state.settlement.transfers:
        out[(t.payer, t.payee)] += t.points
    return dict(out)
