"""A tournament's pool and prizes (app/tournaments/prizes.py): the fees less the rake, the
house's top-up to a guarantee, the prizes by the prize table to players only, paying the
pool exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.tournaments.prizes import Pool, pool, prizes


def test_the_pool_is_the_fees_less_the_rake_or_the_guarantee() -> None:
    # 61 players at 100 silver, a 5% rake: 6,100 in, 305 to the house, 5,795 to win
    assert pool(100, 61, 500, 0) == Pool(fees=6100, rake=305, guarantee=0)
    assert pool(100, 61, 500, 0).total == 5795
    # a guarantee of 10,000: the house adds 4,205 (and still takes its rake)
    assert pool(100, 61, 500, 10_000) == Pool(fees=6100, rake=305, guarantee=4205)
    assert pool(100, 61, 500, 10_000).total == 10_000
    # no rake, a guarantee already covered; a free event lives on its guarantee
    assert pool(100, 61, 0, 5000) == Pool(fees=6100, rake=0, guarantee=0)
    assert pool(0, 64, 0, 3000).total == 3000
    assert pool(33, 3, 333, 0) == Pool(fees=99, rake=3, guarantee=0)  # 3.2967: rounded down
    for bad in [(-1, 8, 0, 0), (100, 8, 10_001, 0), (100, 8, -1, 0), (100, 8, 0, -5)]:
        with pytest.raises(ValueError):
            pool(*bad)


def test_prizes_follow_the_table_round_down_and_give_the_rest_to_first() -> None:
    # 5,795 by 50/30/20: 2,897.5 / 1,738.5 / 1,159, rounded down, the 1 left to first place
    assert prizes(5795, [50, 30, 20], [7, 3, 9, 1], bots=set()) == {7: 2898, 3: 1738, 9: 1159}


def test_house_bots_win_nothing_and_the_next_player_takes_their_place() -> None:
    assert prizes(1000, [60, 40], [50, 7, 51, 3], bots={50, 51}) == {7: 600, 3: 400}


def test_places_nobody_takes_are_left_out_and_the_pool_still_paid() -> None:
    # two players finished, three places: 50/30 of 80 -> 625 / 375
    assert prizes(1000, [50, 30, 20], [4, 60, 2, 61], bots={60, 61}) == {4: 625, 2: 375}
    with pytest.raises(ValueError):
        prizes(1000, [50, 30, 20], [60, 61], bots={60, 61})
    for table in ([], [50, 0], [-1]):
        with pytest.raises(ValueError):
            prizes(1000, table, [1, 2], bots=set())


@given(
    total=st.integers(0, 10**12),
    shares=st.lists(st.integers(1, 10_000), min_size=1, max_size=64),
    players=st.integers(1, 256),
)
def test_the_prizes_always_sum_to_the_pool_in_place_order(total: int, shares: list[int], players: int) -> None:
    paid = prizes(total, shares, list(range(players)), bots=set())
    assert sum(paid.values()) == total
    assert list(paid) == list(range(min(players, len(shares))))
    amounts = list(paid.values())
    assert all(a >= 0 for a in amounts)
    # a place never pays more than one with a larger share, apart from first's remainder
    for i in range(1, len(amounts)):
        for j in range(1, len(amounts)):
            if shares[i] >= shares[j]:
                assert amounts[i] >= amounts[j]
