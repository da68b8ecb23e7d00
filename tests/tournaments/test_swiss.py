"""The Swiss draw and the standings (app/tournaments/swiss.py): round 1 from the committed
seed as anyone can redraw it, later rounds by the standings with the seats turning, the
tie-breaks in their order, and the final table and final places."""

from __future__ import annotations

import hashlib
import random

import pytest

from app.tournaments.swiss import (
    Score,
    Table,
    final_places,
    final_table,
    first_round,
    next_round,
    standings,
)

SEED = bytes(range(32))


def test_round_one_is_the_seeds_shuffle_in_fours_as_anyone_redraws_it() -> None:
    tables = first_round(SEED, 16)
    assert [t.number for t in tables] == [1, 2, 3, 4]
    drawn = [e for t in tables for e in t.seats]
    assert sorted(drawn) == list(range(16)) and drawn != list(range(16))
    # what a player checks with the published entries, the seed and Python's own shuffle
    # (the wall's Fisher-Yates is CPython's `Random.shuffle`, written out)
    mine = list(range(16))
    random.Random(int.from_bytes(SEED, "big")).shuffle(mine)
    assert drawn == mine
    assert first_round(SEED, 16) == tables  # the same seed, the same draw
    assert first_round(hashlib.sha256(SEED).digest(), 16) != tables


@pytest.mark.parametrize("entrants", [0, 4, 7, 10, 260])
def test_a_field_that_cannot_be_seated_is_refused(entrants: int) -> None:
    with pytest.raises(ValueError, match="8 to 256 entrants in fours"):
        first_round(SEED, entrants)


# round 1 drawn by hand: tables (0 1 2 3) and (4 5 6 7)
FIRST = (Table(1, (0, 1, 2, 3)), Table(2, (4, 5, 6, 7)))


def test_the_standings_take_points_then_wins_then_the_best_round_then_the_draw() -> None:
    rounds = [
        {0: Score(30, 2), 1: Score(-10), 2: Score(-20), 3: Score(0),
         4: Score(10, 1), 5: Score(10, 1), 6: Score(-10), 7: Score(-10)},
        {0: Score(-30), 1: Score(10, 1), 2: Score(20, 1), 3: Score(0),
         4: Score(10, 1), 5: Score(10), 6: Score(10, 1), 7: Score(-25)},
    ]
    table = standings(FIRST, rounds)
    assert [(s.entrant, s.points, s.wins, s.best_round) for s in table] == [
        (4, 20, 2, 10),   # 4 and 5 tie on points: 4 won more hands
        (5, 20, 1, 10),
        (0, 0, 2, 30),    # five at 0 points: 0 won two hands
        (2, 0, 1, 20),    # 2, 1 and 6 won one: 2's best round was the best
        (1, 0, 1, 10),    # 1 and 6 tie on everything: 1 was drawn earlier
        (6, 0, 1, 10),
        (3, 0, 0, 0),
        (7, -35, 0, -10),
    ]
    assert [s.place for s in table] == list(range(1, 9))
    assert [s.drawn for s in table] == [4, 5, 0, 2, 1, 6, 3, 7]
    # before any round: the draw's order
    assert [s.entrant for s in standings(FIRST, [])] == list(range(8))


def test_later_rounds_seat_the_standings_in_fours_and_turn_the_seats() -> None:
    table = standings(FIRST, [{4: Score(20), 5: Score(10), 0: Score(5), 2: Score(1),
                               1: Score(-1), 6: Score(-5), 3: Score(-10), 7: Score(-20)}])
    # ranks 4 5 0 2 | 1 6 3 7; in round 2 the k-th of a table sits at seat (k + 2) % 4
    assert next_round(table, 2) == (Table(1, (0, 2, 4, 5)), Table(2, (3, 7, 1, 6)))
    assert next_round(table, 3) == (Table(1, (5, 0, 2, 4)), Table(2, (6, 3, 7, 1)))
    with pytest.raises(ValueError):
        next_round(table, 1)


def test_the_final_table_takes_the_best_players_and_decides_the_first_four_places() -> None:
    table = standings(FIRST, [{4: Score(20), 5: Score(10), 0: Score(5), 2: Score(1),
                               1: Score(-1), 6: Score(-5), 3: Score(-10), 7: Score(-20)}])
    bots = {5, 2}  # house bots that filled two seats: never at a final of players
    final = final_table(table, bots, 4)
    assert final.seats == (4, 0, 1, 6)  # round 4: the k-th at seat k
    # the final table alone orders the finalists, ties by the Swiss place
    places = final_places(table, final, {4: Score(-10), 0: Score(10, 1), 1: Score(10), 6: Score(-10)})
    assert places == (0, 1, 4, 6, 5, 2, 3, 7)
    assert final_places(table, None, None) == (4, 5, 0, 2, 1, 6, 3, 7)
    # fewer than four players: the best bots fill the final
    assert sorted(final_table(table, {4, 5, 0, 2, 1, 6}, 4).seats) == [3, 4, 5, 7]
