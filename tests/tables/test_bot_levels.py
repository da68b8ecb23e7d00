"""The level of a table's house bots (app/tables/levels.py): a house bot's seat is played
by the bot of the table's level; a player's seat on 托管 by `AutoplayBot` at every level."""

from __future__ import annotations

import itertools

import pytest
from prometheus_client import REGISTRY

from app.rules.actions import Chow
from app.rules.bots import AutoplayBot, GreedyBot
from app.rules.expert import ExpertBot
from app.rules.hand import legal_actions, replay, step
from app.rules.variants import get_ruleset
from app.tables.actor import TableActor
from app.tables.messages import Autoplay
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData
from tests.tables.test_actor import TIMERS, Harness, play_by_itself


def at_level(level: str, seed: int = 1000) -> Harness:
    h = Harness(seed=seed)
    h.table = TableActor(
        "t1", get_ruleset("lishui"), [11, 12, 13, 14], h.clock, h.send, h.on_hand_end,
        timers=TIMERS, seed_source=itertools.count(seed).__next__, bot_level=level,
    )
    return h


def decisions(record: HandRecordData) -> list[tuple[object, int, list[object], object]]:
    """Each recorded action with the state and legal actions it was chosen from."""
    state, _ = replay(get_ruleset(record.variant), record.seed, record.ctx, [], record.preset)
    out = []
    for action in record.actions:
        legal = legal_actions(state, action.seat)
        out.append((state, action.seat, legal, action))
        state, _ = step(state, action)
    return out


async def test_a_table_of_expert_bots_plays_every_decision_as_the_expert() -> None:
    h = at_level("expert")
    h.table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    await play_by_itself(h, 4)
    expert, greedy = ExpertBot(), GreedyBot()
    differs = 0
    for record in h.records:
        for state, seat, legal, action in decisions(record):
            assert expert.choose(state, seat, legal) == action  # type: ignore[arg-type]
            differs += greedy.choose(state, seat, legal) != action  # type: ignore[arg-type]
    assert differs > 0  # not the greedy bot: it would have chosen otherwise somewhere


async def test_the_default_level_is_the_greedy_bot_as_before() -> None:
    h = Harness(seed=1000)
    assert h.table.bot_level == "standard"
    h.table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    await play_by_itself(h, 2)
    greedy = GreedyBot()
    for record in h.records:
        for state, seat, legal, action in decisions(record):
            assert greedy.choose(state, seat, legal) == action  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["beginner", "expert"])
async def test_a_players_seat_on_autoplay_is_played_alike_at_every_level(level: str) -> None:
    h = at_level(level)
    for seat in range(4):
        await h.handle(Autoplay(seat, True))
    await play_by_itself(h, 3)
    autoplay = AutoplayBot()
    for record in h.records:
        for state, seat, legal, action in decisions(record):
            assert autoplay.choose(state, seat, legal) == action  # type: ignore[arg-type]


def timed(level: str) -> float:
    """House bot decisions timed so far at `level` (`mahjong_bot_decision_seconds`)."""
    value = REGISTRY.get_sample_value("mahjong_bot_decision_seconds_count", {"level": level})
    return value or 0.0


async def test_every_choice_of_a_house_bot_is_timed_under_its_level_and_autoplay_is_not() -> None:
    h = at_level("expert")
    h.table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    before = {level: timed(level) for level in ("beginner", "standard", "expert")}
    await play_by_itself(h, 2)
    choices = sum(len(record.actions) for record in h.records)
    assert choices > 0
    assert timed("expert") - before["expert"] == choices
    assert timed("standard") == before["standard"] and timed("beginner") == before["beginner"]
    people = at_level("expert")
    for seat in range(4):
        await people.handle(Autoplay(seat, True))
    await play_by_itself(people, 1)
    assert people.records and timed("expert") - before["expert"] == choices  # 托管: not a bot


async def test_a_table_of_beginner_bots_never_chows_and_slips_where_greedy_would_not() -> None:
    h = at_level("beginner")
    h.table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    await play_by_itself(h, 4)
    greedy = GreedyBot()
    slips = 0
    for record in h.records:
        for state, seat, legal, action in decisions(record):
            assert not isinstance(action, Chow)  # 新手 never claims a 吃
            slips += greedy.choose(state, seat, legal) != action  # type: ignore[arg-type]
    assert slips > 0
