"""The duplicate harness (bench/bench_strength.py) and the bot levels by name."""

from __future__ import annotations

import statistics

import pytest

from app.rules import selfplay
from app.rules.bots import BeginnerBot, GreedyBot
from app.rules.expert import ExpertBot
from bench import bench_strength


@pytest.mark.parametrize("variant", ["lishui", "huzhou", "shanghai"])
def test_the_duplicate_report_adds_up(variant: str) -> None:
    walls = 3
    result = bench_strength.measure(variant, walls, 5, "expert", "greedy")
    assert len(result.wall_means) == walls and len(result.hand_nets) == 4 * walls
    for w in range(walls):  # a wall's figure is the mean of its four seatings
        assert result.wall_means[w] == statistics.fmean(result.hand_nets[4 * w : 4 * w + 4])
    # every seating's points only move between the seats (湖州's house rewards aside)
    assert result.seating_totals == result.house
    assert result.candidate.hands == 4 * walls and result.baseline.hands == 12 * walls
    for side in (result.candidate, result.baseline):
        for rate in (side.wins, side.deal_ins, side.self_draws):
            assert 0 <= side.rate(rate) <= 1
        assert side.self_draws <= side.wins
        assert all(t >= 0 for t in side.times) and side.times
    low, high = result.mean - result.half_width(), result.mean + result.half_width()
    assert low <= result.mean <= high
    lines = result.lines()
    assert "per-wall means" in lines[1] and lines[3].split()[0] == "expert"


def test_a_bot_against_itself_is_even_on_every_wall() -> None:
    """Greedy is deterministic: its four seatings are one and the same game, so the seat
    the candidate holds takes each seat's result once and the wall's mean is 0."""
    result = bench_strength.measure("lishui", 4, 2, "greedy", "greedy")
    assert result.wall_means == [0.0] * 4
    assert result.candidate.wins * 3 == result.baseline.wins


def test_the_levels_are_known_by_name_in_both_languages() -> None:
    assert isinstance(selfplay.bot_factory("beginner")(1, 0), BeginnerBot)
    assert isinstance(selfplay.bot_factory("新手")(1, 0), BeginnerBot)
    assert isinstance(selfplay.bot_factory("standard")(1, 0), GreedyBot)
    assert isinstance(selfplay.bot_factory("普通")(1, 0), GreedyBot)
    assert isinstance(selfplay.bot_factory("expert")(1, 0), ExpertBot)
    assert isinstance(selfplay.bot_factory("高手")(1, 0), ExpertBot)
    with pytest.raises(ValueError, match="unknown bots"):
        selfplay.bot_factory("grandmaster")


def test_self_play_takes_a_bot_per_seat() -> None:
    factory = selfplay.bot_factory("strong,greedy,beginner,random")
    kinds = [type(factory(7, s)).__name__ for s in range(4)]
    assert kinds == ["ExpertBot", "GreedyBot", "BeginnerBot", "RandomBot"]
    report = selfplay.run("wenzhou", 3, 1, "strong,greedy,greedy,greedy")
    assert report.hands == 3
    with pytest.raises(ValueError, match="one per seat"):
        selfplay.bot_factory("expert,greedy")


def test_the_commands_refuse_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        selfplay.main(["--bots", "expert,nobody,greedy,greedy"])
    assert "unknown bots 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_strength.main(["--candidate", "nobody", "--walls", "1"])
    assert "unknown bots 'nobody'" in capsys.readouterr().err


def test_the_command_prints_a_table_per_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_strength.main(["--variant", "fuzhou", "--walls", "2", "--candidate", "高手"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("fuzhou: 高手 vs 3 x greedy, 2 walls x 4 seatings = 8 hands")
    assert "95% CI" in out and "fuzhou: 2/2 walls" in err
