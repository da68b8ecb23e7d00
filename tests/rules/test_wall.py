"""The wall: seeded shuffle, dice, dealing, front and tail draws, the turned indicator."""

import random

import pytest

from app.rules.tiles import full_set
from app.rules.wall import Wall, deal, first_dealer, roll_dice, shuffled


def test_the_shuffle_is_a_function_of_the_seed() -> None:
    a = shuffled(full_set(), random.Random(7))
    assert a == shuffled(full_set(), random.Random(7))
    assert a != shuffled(full_set(), random.Random(8))
    assert sorted(a) == sorted(full_set())


@pytest.mark.parametrize(
    ("dice", "seat"),
    [((1, 4), 0), ((4, 5), 0), ((1, 1), 1), ((3, 3), 1), ((5, 5), 1), ((1, 2), 2), ((5, 6), 2),
     ((2, 2), 3), ((4, 4), 3), ((6, 6), 3)],
)
def test_the_first_dealer_is_counted_by_the_dice(dice: tuple[int, int], seat: int) -> None:
    assert first_dealer(dice) == seat


def test_dice_are_two_dice() -> None:
    rng = random.Random(1)
    rolls = [roll_dice(rng) for _ in range(500)]
    assert {d for r in rolls for d in r} == {1, 2, 3, 4, 5, 6}


def test_the_dealer_gets_one_tile_more_in_rounds_of_four() -> None:
    wall = Wall.of(tuple(range(136)))
    hands, rest = deal(wall, dealer=2, hand_size=13)
    assert [len(h) for h in hands] == [13, 13, 14, 13]
    assert hands[2][:4] == [0, 1, 2, 3] and hands[3][:4] == [4, 5, 6, 7]  # from the dealer on
    assert hands[2][-1] == 52  # the dealer's extra tile comes last
    assert rest.head == 53 and rest.remaining == 83
    hands16, _ = deal(wall, dealer=0, hand_size=16)
    assert [len(h) for h in hands16] == [17, 16, 16, 16]


def test_front_and_tail_draws_and_the_reserve() -> None:
    wall = Wall.of(tuple(range(10))).with_reserve(3)
    tile, wall = wall.draw_front()
    assert tile == 0 and wall.live == 6
    tile, wall = wall.draw_tail()
    assert tile == 9 and wall.remaining == 8 and wall.live == 5
    for _ in range(5):
        _, wall = wall.draw_front()
    assert wall.live == 0 and wall.remaining == 3
    with pytest.raises(IndexError):
        wall.draw_front()
    tile, wall = wall.draw_tail()  # the reserve serves replacements
    assert tile == 8


def test_the_indicator_leaves_the_wall() -> None:
    wall = Wall.of(tuple(range(20)))
    tile, rest = wall.take_from_tail(3)
    assert tile == 17
    assert 17 not in rest.remaining_tiles() and rest.remaining == 19
    assert [rest.draw_tail()[0], rest.draw_tail()[1].draw_tail()[0]] == [19, 18]
    assert rest.draw_tail()[1].draw_tail()[1].draw_tail()[0] == 16  # draws skip it
