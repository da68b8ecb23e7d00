"""Titles by silver (the 丽水 ladder), 湖州 levels by points, and each seat's result of a hand."""

from __future__ import annotations

import pytest

from app.rules.actions import Escape
from app.rules.context import TableContext
from app.rules.hand import new_hand, step
from app.rules.selfplay import bot_factory, play_hand
from app.rules.variants import VARIANTS
from app.store.ranks import SeatResult, level_of, results_from, title_of

# RULES.md 2: 菜鸟 0-5999, 生手 6000-11999 ... 万赌之王 104857600 and up
LADDER = [
    (0, 5999, "菜鸟"),
    (6000, 11999, "生手"),
    (12000, 23999, "赌客"),
    (24000, 95999, "赌棍"),
    (96000, 191999, "赌鬼"),
    (192000, 383999, "老手"),
    (384000, 767999, "高人"),
    (768000, 3071999, "老千"),
    (3072000, 6143999, "千王"),
    (6144000, 12287999, "赌王"),
    (12288000, 24575999, "赌神"),
    (24576000, 52428799, "赌圣"),
    (52428800, 104857599, "赌仙"),
]

# RULES.md 4: 积分 threshold -> (level, base score)
LEVELS = [
    (0, "科员", 2), (6, "助科", 2), (18, "副科", 3), (42, "科长", 4), (90, "助处", 6),
    (186, "副处", 10), (378, "处长", 15), (762, "助局", 20), (1530, "副局", 30),
    (3066, "局长", 50), (6138, "助市", 80), (12282, "副市", 150), (24570, "市长", 300),
    (49146, "助省", 500), (98298, "副省", 800), (196602, "省长", 1500), (393210, "麻将王", 3000),
]


@pytest.mark.parametrize(("low", "high", "title"), LADDER)
def test_every_title_holds_from_its_lowest_to_its_highest_balance(
    low: int, high: int, title: str
) -> None:
    assert title_of(low) == title_of(high) == title
    assert title_of(high + 1) != title


def test_the_top_title_has_no_ceiling() -> None:
    assert title_of(104857600) == title_of(10**15) == "万赌之王"
    assert title_of(104857599) == "赌仙"


@pytest.mark.parametrize(("index", "level"), list(enumerate(LEVELS)))
def test_every_level_starts_at_its_threshold(index: int, level: tuple[int, str, int]) -> None:
    threshold, name, base = level
    assert level_of(threshold) == (name, base)
    if index + 1 < len(LEVELS):
        assert level_of(LEVELS[index + 1][0] - 1) == (name, base)
    if index > 0:
        assert level_of(threshold - 1) == LEVELS[index - 1][1:]


def test_the_top_level_has_no_ceiling_and_points_below_0_read_as_0() -> None:
    assert level_of(10**9) == ("麻将王", 3000)
    assert level_of(-5) == ("科员", 2)


def test_results_of_a_hand_won_on_a_discard() -> None:
    run = play_hand(VARIANTS["lishui"], 1, TableContext(), bot_factory("greedy"))
    state = run.state
    assert state.outcome == "win" and state.settlement is not None
    (win,) = state.wins
    assert not win.self_draw and win.from_seat is not None
    results = results_from(state)
    net = state.settlement.net()
    for seat, result in enumerate(results):
        assert result.won == (seat == win.seat)
        assert result.dealt_in == (seat == win.from_seat)
        assert not result.self_draw and not result.escaped and not result.disconnected
        assert result.points == net[seat]
    assert sum(r.points for r in results) == 0 and results[win.seat].points > 0


def test_results_of_a_self_drawn_hand_count_the_self_draw_and_no_deal_in() -> None:
    run = play_hand(VARIANTS["lishui"], 10, TableContext(), bot_factory("greedy"))
    (win,) = run.state.wins
    assert win.self_draw
    results = results_from(run.state, disconnected=[2])
    assert results[win.seat] == SeatResult(
        won=True, self_draw=True, disconnected=win.seat == 2, points=results[win.seat].points
    )
    assert not any(r.dealt_in for r in results)
    assert [r.disconnected for r in results] == [False, False, True, False]


def test_results_of_an_escape() -> None:
    state, _ = new_hand(VARIANTS["lishui"], 5, TableContext())
    state, _ = step(state, Escape(2))
    results = results_from(state)
    assert [r.escaped for r in results] == [False, False, True, False]
    assert not any(r.won or r.dealt_in or r.self_draw for r in results)
    # 丽水: 10 x base 3, divided among the other three
    assert [r.points for r in results] == [10, 10, -30, 10]


def test_results_need_a_finished_hand() -> None:
    state, _ = new_hand(VARIANTS["lishui"], 5, TableContext())
    with pytest.raises(ValueError):
        results_from(state)
