"""湖州 Huzhou rules (RULES.md sections 1 and 4), one scenario per rule line.

Every scenario is exact: `arrange` builds the wall so that the deal, the draws and the tail
(replacement) draws are the ones written in the test. The 前导牌 (wild indicator) is the first
tile after the deal, so `deal` puts it first among the front draws. Unless a test says
otherwise the dealer is seat 0, the indicator is 6z (发), so the 财神 is 5z (白, all four copies
live), and every seat has 0 积分 (level 科员: base 2).

Numbers asserted are what a player would see: who pays whom, the net points, the specials
named on the win, the actions offered.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from app.rules import selfplay
from app.rules.actions import (
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
from app.rules.events import WildTurned, Won
from app.rules.examples import huzhou as huzhou_example
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.state import HandState, WildSetup
from app.rules.tiles import parse, parse_one
from app.rules.variants.huzhou import LEVELS, Huzhou, HuzhouOptions, level_of, wild_for
from app.rules.wall import roll_dice, shuffled
from tests.rules.script import PASS, T, discard, idle, paid, play, refused

R = Huzhou()
W = parse_one("5z")  # the 财神 of the default scenario (indicator 6z)

# Quiet hands: suited tiles only, far from any win, no 财神. They cannot claim an honour and no
# seat holding them can win on anything in these scenarios.
QA = "12358m1369p2478s"
QB = "23469m2478p1358s"
QC = "14679m1358p2368s"

# A plain hand waiting on 1s / 4s (123m 456m 789p 11p + 23s): no 财神.
WAIT = "123m456m789p11p23s"
# The same with a 财神 for one 1p (pair 1p + 财神): waits on 1s, 4s and 1p.
WAIT_W = "123m456m789p1p5z23s"


# --------------------------------------------------------------------------- helpers


def deal(
    hands: Sequence[str],
    *,
    dealer: int = 0,
    points: tuple[int, int, int, int] = (0, 0, 0, 0),
    draws: str = "",
    replacements: str = "",
    indicator: str = "6z",
    ruleset: Huzhou = R,
) -> HandState:
    """A hand whose deal, 前导牌, front draws and tail draws are exactly these."""
    preset = arrange(
        ruleset, dealer=dealer, hands=hands, draws=indicator + draws, replacements=replacements
    )
    ctx = TableContext(dealer=dealer, seat_points=points)
    state, _ = new_hand(ruleset, 0, ctx, preset)
    assert tile_census(state) == full_census(ruleset)
    return state


def net(state: HandState) -> tuple[int, int, int, int]:
    """The hand's net points per seat; every settlement is whole points and zero-sum."""
    assert state.phase == "ended" and state.settlement is not None
    for t in state.settlement.transfers:
        assert isinstance(t.points, int) and t.points > 0 and t.payer != t.payee
    totals = state.settlement.net()
    assert sum(totals) == 0 and state.settlement.house == (0, 0, 0, 0)
    return totals


def win_score(state: HandState) -> tuple[set[str], int]:
    assert state.outcome == "win" and len(state.wins) == 1
    score = state.ruleset.score(state, state.wins[0])
    return set(score.specials), score.multiplier


def run_to_last_draw(state: HandState) -> HandState:
    """Everybody throws what they draw (and passes every claim) until the last live tile of
    the wall has been drawn."""
    while state.wall.live > 0:
        state = idle(state, 1)
    assert state.phase == "turn"
    return state


# --------------------------------------------------------------------------- tiles and deal


def test_136_tiles_no_flowers_hands_of_13_and_the_dealer_14():
    assert sorted(R.tile_set()) == sorted(list(range(34)) * 4)
    assert R.flower_kinds == frozenset() and not R.with_flowers
    for dealer in range(4):
        state, _ = new_hand(R, dealer, TableContext(dealer=dealer))
        sizes = [sum(c) for c in state.concealed]
        assert sizes == [14 if s == dealer else 13 for s in range(4)]
        assert all(not f for f in state.flowers)
        assert (state.phase, state.turn) == ("turn", dealer) or state.outcome == "win"


def test_the_first_dealer_is_seat_zero_whatever_the_dice():
    dice = itertools.product(range(1, 7), repeat=2)
    assert {R.first_dealer(d) for d in dice} == {0}
    assert Huzhou(options=HuzhouOptions(first_dealer=2)).first_dealer((3, 4)) == 2


# --------------------------------------------------------------------------- the 财神


def test_the_indicator_is_the_next_tile_to_be_drawn_after_the_deal():
    preset = arrange(R, dealer=0, hands=[QA + "7z", QB, QC, WAIT], draws="5m1z2z")
    assert preset.wall[53] == T("5m")  # 14 + 3 x 13 tiles dealt: the 54th tile
    state, events = new_hand(R, 0, TableContext(), preset)
    assert state.wild == WildSetup(T("5p"), T("5m"), None, None)
    assert WildTurned(None, T("5m"), T("5p"), None) in events
    assert state.wall.remaining == 136 - 53 - 1
    assert tile_census(state) == full_census(R)  # the indicator stays counted, on show
    # draws skip it: seat 1 draws the tile after it
    state = play(state, discard(0, "7z"))
    assert (state.turn, state.drawn) == (1, T("1z"))
    state = idle(state, 1)
    assert (state.turn, state.drawn) == (2, T("2z"))


@pytest.mark.parametrize(
    ("indicator", "wild"),
    [
        ("5m", "5p"), ("5p", "5s"), ("5s", "5m"), ("1m", "1p"), ("9p", "9s"), ("9s", "9m"),
        ("1z", "2z"), ("2z", "3z"), ("3z", "4z"), ("4z", "1z"),
        ("7z", "6z"), ("6z", "5z"), ("5z", "7z"),
    ],
)
def test_the_wild_is_the_next_in_suit_wind_or_dragon_order(indicator, wild):
    assert wild_for(T(indicator)) == T(wild)
    state = deal([QA + "7z", QB, QC, WAIT], indicator=indicator)
    assert (state.wild.indicator, state.wild.wild, state.wild.substitute) == (
        T(indicator), T(wild), None)


@pytest.mark.parametrize("seed", range(8))
def test_a_shuffled_hand_turns_the_54th_tile(seed):
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4))
    rng = random.Random(seed)
    roll_dice(rng)
    wall = shuffled(R.tile_set(), rng)
    assert state.wild.indicator == wall[53]
    assert state.wild.wild == wild_for(wall[53]) and state.wild.substitute is None
    assert state.wall.head == 54


def test_all_four_copies_of_the_wild_are_live_and_the_indicator_is_never_drawn():
    state = deal([QA + "7z", QB, QC, WAIT], indicator="5m")
    assert state.wall.remaining_tiles().count(T("5p")) == 4 - 1  # QC holds one 5p
    assert state.wall.remaining_tiles().count(T("5m")) == 4 - 3  # QA, WAIT, the indicator
    state = run_to_last_draw(play(state, discard(0, "7z")))
    assert state.wall.remaining == 0
    assert sum(state.draws) == 82  # every live tile was drawn once; the indicator never
    assert tile_census(state) == full_census(R)


def test_a_wild_is_never_used_to_claim():
    # seat 1 holds 7s and two 财神 and one 3z: no 7-8-9 chow on 8s, no 碰 on 3z
    s1 = "7s3z1z5z5z2346m2478p"
    for thrown in ("8s", "3z"):
        state = deal([QA + thrown, s1, QC, QB])
        state = play(state, discard(0, thrown))
        assert (state.phase, pending_seats(state)) == ("turn", [1])
        assert refused(state, Pung(1)) == "not_offered"


def test_a_wild_may_be_discarded_and_is_dead():
    # seat 1 would win with one more 财神 (WAIT), seat 2 holds 5z5z: nobody may claim it
    state = deal([QA + "5z", WAIT, "5z5z" + "23469m2478p13s", QC])
    assert Discard(0, W) in legal_actions(state, 0)
    state = play(state, Discard(0, W))
    assert state.phase == "turn" and state.turn == 1 and pending_seats(state) == [1]


def test_wild_discard_forbidden_by_option():
    strict = Huzhou(options=HuzhouOptions(wild_discard_allowed=False))
    state = deal([QA + "5z", QB, QC, WAIT], ruleset=strict)
    assert Discard(0, W) not in legal_actions(state, 0)
    assert refused(state, Discard(0, W)) == "wild_discard_forbidden"


def test_replacement_draws_come_from_the_tail():
    state = deal(["1111z12358m1369p8s", QA, QB, QC], replacements="3z")
    state = play(state, ConcealedKong(0, T("1z")))
    assert (state.turn, state.drawn, state.from_tail) == (0, T("3z"), True)
    assert state.wall.remaining == 136 - 53 - 1 - 1


# --------------------------------------------------------------------------- winning shapes


def test_standard_win_with_a_wild_standing_for_a_fifth_copy():
    # 1111z + 财神: the 财神 pairs with the fourth 东 (天胡 on the dealt hand)
    state = deal(["1111z5z123m456m789p", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == ({"heavenly"}, 2)
    assert net(state) == (24, -8, -8, -8)


def test_no_seven_pairs_in_huzhou():
    hand = "11m22m33p44p55s66s7s"  # seven pairs with 7s: not a standard shape
    state = deal([QA + "7z", QB, hand, QC], draws="1z2z3z4z1z7s")
    state = idle(play(state, discard(0, "7z")), 5)
    assert state.drawn == T("7s") and Hu(2) not in legal_actions(state, 2)
    assert refused(state, Hu(2)) == "cannot_win"


def test_four_wilds_win_at_once_on_a_draw():
    # seat 2 holds three 财神 and draws the fourth on its second draw: it wins without a word
    s2 = "5z5z5z" + "1479m1368p23s"
    state = deal([QA + "7z", QB, s2, QC], draws="1z2z3z4z7z5z")
    state = idle(play(state, discard(0, "7z")), 4)
    assert (state.turn, state.drawn) == (1, T("7z"))
    state, events = step(state, discard(1, "7z"))
    assert state.outcome == "win" and state.wins[0].instant
    assert [(e.seat, e.self_draw) for e in events if isinstance(e, Won)] == [(2, True)]
    assert win_score(state) == ({"four_wilds"}, 2)
    # 自摸 2 x base 2, doubled: 8 from each
    assert net(state) == (-8, -8, 24, -8)


def test_four_wilds_on_a_first_draw_is_also_earthly():
    s2 = "5z5z5z" + "1479m1368p23s"
    state = deal([QA + "7z", QB, s2, QC], draws="1z5z")
    state = idle(play(state, discard(0, "7z")), 1)
    assert state.outcome == "win"
    assert win_score(state) == ({"four_wilds", "earthly"}, 4)
    assert net(state) == (-16, -16, 48, -16)
    plain = Huzhou(options=HuzhouOptions(four_wilds_on_first_draw_earthly=False))
    state = deal([QA + "7z", QB, s2, QC], draws="1z5z", ruleset=plain)
    state = idle(play(state, discard(0, "7z")), 1)
    assert win_score(state) == ({"four_wilds"}, 2)


def test_four_wilds_on_a_kong_replacement_is_also_a_kong_win():
    s2 = "5z5z5z" + "222z" + "1479m8p23s"
    state = deal([QA + "7z", QB, s2, QC], draws="1z2z", replacements="5z")
    state = idle(play(state, discard(0, "7z")), 1)
    assert state.drawn == T("2z")
    state = play(state, ConcealedKong(2, T("2z")))
    assert state.outcome == "win"
    assert win_score(state) == ({"four_wilds", "kong_win"}, 4)
    assert net(state) == (-16, -16, 48, -16)


# --------------------------------------------------------------------------- 截和


CL_S0 = QA + "5p"  # the dealer throws 5p
CL_S1 = "234m567m678s22z46p"  # waits 5p (no 财神)
CL_S2 = "1479m55p13678s23z"  # may 碰 5p
CL_S3 = "123m456m789m11s46p"  # waits 5p (no 财神)


def test_first_in_turn_wins_when_two_seats_can_win():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"))
    assert legal_actions(state, 1) == [Hu(1), Chow(1, T("4p")), Pass(1)]
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]
    state = play(state, Hu(3))
    assert state.phase == "claim"  # seat 1, nearer the discarder, has not answered
    state = play(state, Hu(1))
    assert [w.seat for w in state.wins] == [1]
    # no 财神: doubled; the discarder 2 x 2 x 2, the others 1 x 2 x 2
    assert paid(state) == {(0, 1): 8, (2, 1): 4, (3, 1): 4}
    # if the nearer seat passes, the farther one wins; only one seat ever wins
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Hu(3), Pass(1))
    assert [w.seat for w in state.wins] == [3]
    assert paid(state) == {(0, 3): 8, (1, 3): 4, (2, 3): 4}


def test_a_win_beats_a_pung():
    state = deal([CL_S0, QB, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Pung(2))
    assert state.phase == "claim" and pending_seats(state) == [3]
    state = play(state, Hu(3))
    assert state.wins[0].seat == 3 and state.melds[2] == []


# --------------------------------------------------------------------------- levels and base


@pytest.mark.parametrize(
    ("points", "title", "base"),
    [
        (-5, "科员", 2), (0, "科员", 2), (5, "科员", 2), (6, "助科", 2), (17, "助科", 2),
        (18, "副科", 3), (42, "科长", 4), (89, "科长", 4), (90, "助处", 6), (186, "副处", 10),
        (378, "处长", 15), (762, "助局", 20), (1530, "副局", 30), (3066, "局长", 50),
        (6138, "助市", 80), (12282, "副市", 150), (24570, "市长", 300), (49146, "助省", 500),
        (98298, "副省", 800), (196602, "省长", 1500), (393209, "省长", 1500),
        (393210, "麻将王", 3000), (10**9, "麻将王", 3000),
    ],
)
def test_level_of(points, title, base):
    assert level_of(points) == (title, base)


def test_the_level_table_matches_the_rule_book():
    assert [(t, n, b) for t, n, b in LEVELS] == [
        (0, "科员", 2), (6, "助科", 2), (18, "副科", 3), (42, "科长", 4), (90, "助处", 6),
        (186, "副处", 10), (378, "处长", 15), (762, "助局", 20), (1530, "副局", 30),
        (3066, "局长", 50), (6138, "助市", 80), (12282, "副市", 150), (24570, "市长", 300),
        (49146, "助省", 500), (98298, "副省", 800), (196602, "省长", 1500),
        (393210, "麻将王", 3000),
    ]


@pytest.mark.parametrize(
    ("points", "base"),
    [((0, 0, 0, 0), 2), ((500, 20, 100, 7000), 3), ((7000, 400, 100, 800), 6),
     ((400000, 400000, 400000, 200000), 1500)],
)
def test_the_base_is_the_lowest_level_players(points, base):
    assert R.base(TableContext(seat_points=points)) == base


def test_payments_use_the_lowest_level_players_base():
    # seat 1 is 副科 (20 积分, base 3): seat 2 wins on the dealer's discard holding a 财神
    state = deal([QA + "4s", QB, WAIT_W, QC], points=(500, 20, 100, 7000))
    state = play(state, discard(0, "4s"), Hu(2))
    assert win_score(state) == (set(), 1)
    assert paid(state) == {(0, 2): 6, (1, 2): 3, (3, 2): 3}


# --------------------------------------------------------------------------- payments


def test_win_on_a_discard_the_discarder_pays_two_base_the_others_one():
    state = deal([QA + "4s", QB, WAIT_W, QC])
    state = play(state, discard(0, "4s"))
    assert legal_actions(state, 2) == [Hu(2), Pass(2)]
    state = play(state, Hu(2))  # seat 1's chow has not answered: 胡 wins at once
    assert win_score(state) == (set(), 1)
    assert paid(state) == {(0, 2): 4, (1, 2): 2, (3, 2): 2}
    assert net(state) == (-4, -2, 8, -2)


def test_win_on_a_non_dealers_discard():
    state = deal([QA + "7z", QB, QC, WAIT_W], draws="1z1s")
    state = play(state, discard(0, "7z"))
    state = idle(state, 1)  # seat 1 throws 1z
    assert (state.turn, state.drawn) == (2, T("1s"))
    state = play(state, discard(2, "1s"), Hu(3))
    assert paid(state) == {(2, 3): 4, (0, 3): 2, (1, 3): 2}


def test_self_draw_every_other_seat_pays_two_base():
    # seat 2 self-draws 1s on its second draw (no 地胡), holding a 财神
    state = deal([QA + "7z", QB, WAIT_W, QC], draws="1z2z3z4z7z1s")
    state = play(idle(play(state, discard(0, "7z")), 5), Hu(2))
    assert win_score(state) == (set(), 1)
    assert net(state) == (-4, -4, 12, -4)


def test_the_dealer_self_draws_and_pays_as_anybody():
    state = deal([WAIT_W + "7z", QA, QB, QC], draws="1z2z3z1s")
    state = play(idle(play(state, discard(0, "7z")), 3), Hu(0))
    assert net(state) == (12, -4, -4, -4)


def test_no_wild_in_the_hand_doubles():
    state = deal([QA + "4s", QB, WAIT, QC])
    state = play(state, discard(0, "4s"), Hu(2))
    assert win_score(state) == ({"no_wild"}, 2)
    assert paid(state) == {(0, 2): 8, (1, 2): 4, (3, 2): 4}
    state = deal([QA + "7z", QB, WAIT, QC], draws="1z2z3z4z7z1s")
    state = play(idle(play(state, discard(0, "7z")), 5), Hu(2))
    assert win_score(state) == ({"no_wild"}, 2)
    assert net(state) == (-8, -8, 24, -8)


def test_a_wild_thrown_earlier_does_not_spoil_no_wild():
    # the dealer throws its only 财神, then self-draws a wait without one
    state = deal([WAIT + "5z", QA, QB, QC], draws="1z2z3z1s")
    state = play(idle(play(state, Discard(0, W)), 3), Hu(0))
    assert win_score(state) == ({"no_wild"}, 2)


def test_a_wild_standing_for_itself_still_counts_as_a_wild():
    # 5z5z is the pair, the 财神 as themselves (财神归位): by default still a 财神 in the hand
    hand = "123m456m789p23s5z5z"
    state = deal([QA + "4s", QB, hand, QC])
    state = play(state, discard(0, "4s"), Hu(2))
    assert win_score(state) == (set(), 1)
    homed = Huzhou(options=HuzhouOptions(wild_as_itself_is_no_wild=True))
    state = deal([QA + "4s", QB, hand, QC], ruleset=homed)
    state = play(state, discard(0, "4s"), Hu(2))
    assert win_score(state) == ({"no_wild"}, 2)
    assert paid(state) == {(0, 2): 8, (1, 2): 4, (3, 2): 4}
    # with the option, a 财神 that must stand for another tile still spoils it
    state = deal([QA + "4s", QB, WAIT_W, QC], ruleset=homed)
    state = play(state, discard(0, "4s"), Hu(2))
    assert win_score(state) == (set(), 1)


def test_kong_win_doubles():
    # the dealer conceals 1111z at once and completes 123m 456m 789p + 1p 财神 on the replacement
    state = deal(["1111z123m456m78p1p5z", QA, QB, QC], replacements="9p")
    state = play(state, ConcealedKong(0, T("1z")))
    assert (state.drawn, state.from_tail) == (T("9p"), True)
    state = play(state, Hu(0))
    assert win_score(state) == ({"kong_win"}, 2)
    assert net(state) == (24, -8, -8, -8)


def test_kong_win_after_an_exposed_kong_without_a_wild_doubles_twice():
    # seat 2 kongs the dealer's 1z and completes 123m 456m 789p 11p on the replacement
    state = deal([QA + "1z", QB, "111z123m456m789p1p", QC], replacements="1p")
    state = play(state, discard(0, "1z"))
    assert legal_actions(state, 2) == [Pung(2), ExposedKong(2), Pass(2)]
    state = play(state, ExposedKong(2))
    assert (state.turn, state.drawn, state.from_tail) == (2, T("1p"), True)
    state = play(state, Hu(2))
    assert win_score(state) == ({"kong_win", "no_wild"}, 4)
    assert net(state) == (-16, -16, 48, -16)


def test_heavenly_win_doubles_and_multiplies_with_no_wild():
    state = deal(["123m456m789p11p234s", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == ({"heavenly", "no_wild"}, 4)
    assert net(state) == (48, -16, -16, -16)
    state = play(deal(["123m456m789p1p5z234s", QA, QB, QC]), Hu(0))
    assert win_score(state) == ({"heavenly"}, 2)
    assert net(state) == (24, -8, -8, -8)


def test_earthly_win_on_a_non_dealers_first_draw():
    state = deal([QA + "7z", QB, WAIT_W, QC], draws="1z1s")
    state = idle(play(state, discard(0, "7z")), 1)
    assert (state.turn, state.drawn) == (2, T("1s"))
    state = play(state, Hu(2))
    assert win_score(state) == ({"earthly"}, 2)
    assert net(state) == (-8, -8, 24, -8)
    state = deal([QA + "7z", QB, WAIT, QC], draws="1z1s")
    state = play(idle(play(state, discard(0, "7z")), 1), Hu(2))
    assert win_score(state) == ({"earthly", "no_wild"}, 4)
    assert net(state) == (-16, -16, 48, -16)


def test_no_earthly_win_on_a_later_draw():
    state = deal([QA + "7z", QB, WAIT_W, QC], draws="1z2z3z4z7z1s")
    state = play(idle(play(state, discard(0, "7z")), 5), Hu(2))
    assert win_score(state) == (set(), 1)


def test_example_c_two_wilds_and_a_kong_win_each_other_seat_pays_four_base():
    # seat 1 (two 财神) draws the fourth 东, conceals the kong and wins on the replacement
    s1 = "111z5z5z123m456s7s9p"
    points = (120, 45, 1600, 95)  # the lowest level is seat 1's 科长: base 4
    state = deal([QA + "7z", s1, QB, QC], draws="1z", replacements="8s", points=points)
    state = play(state, discard(0, "7z"))
    assert (state.turn, state.drawn) == (1, T("1z"))
    assert Hu(1) not in legal_actions(state, 1)  # no 地胡: the hand is not complete yet
    state = play(state, ConcealedKong(1, T("1z")))
    assert (state.drawn, state.from_tail) == (T("8s"), True)
    state = play(state, Hu(1))
    assert win_score(state) == ({"kong_win"}, 2)
    assert paid(state) == {(0, 1): 16, (2, 1): 16, (3, 1): 16}  # 2 x 2 = 4 x base 4
    assert net(state) == (-16, 48, -16, -16)


def test_the_worked_example_is_example_c():
    description, state, events = huzhou_example.example()
    assert "杠开" in description
    assert state.settlement is not None and state.settlement.net() == (-16, 48, -16, -16)
    won = [e for e in events if isinstance(e, Won)]
    assert [(e.seat, e.specials, e.multiplier) for e in won] == [(1, ("kong_win",), 2)]


# --------------------------------------------------------------------------- 拉杠和

# Seat 0 throws 5p; seat 2 pungs it and later adds the fourth 5p; seat 3 waits on 5p.
RK_S2 = "1479m55p13678s23z"
RK_S3_W = "123m456m789m1s5z46p"  # pair 1s + 财神: waits 5p (and 1s)


def robbed(s3: str, ruleset: Huzhou = R) -> HandState:
    state = deal([QA + "5p", QB, RK_S2, s3], draws="6z7z6z5p", ruleset=ruleset)
    state = play(state, discard(0, "5p"))
    assert Hu(3) in legal_actions(state, 3)
    state = play(state, Pass(3), Pung(2), discard(2, "2z"))
    state = idle(state, 3)
    assert state.turn == 2 and state.drawn == T("5p")
    state = play(state, AddedKong(2, T("5p")))
    assert state.phase == "rob" and pending_seats(state) == [3]
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]
    return play(state, Hu(3))


def test_robbing_an_added_kong_the_robbed_seat_pays_twelve_base():
    state = robbed(RK_S3_W)
    assert win_score(state) == ({"robbing_kong"}, 1)
    assert paid(state) == {(2, 3): 24}
    assert net(state) == (0, 0, -24, 24)
    assert state.melds[2][0].kind == "pung"  # the kong did not happen


def test_robbing_the_kong_is_multiplied_by_the_doublings():
    state = robbed("123m456m789m11s46p")
    assert win_score(state) == ({"robbing_kong", "no_wild"}, 2)
    assert paid(state) == {(2, 3): 48}
    flat = Huzhou(options=HuzhouOptions(robbing_kong_doubles=False))
    state = robbed("123m456m789m11s46p", ruleset=flat)
    assert win_score(state) == ({"robbing_kong", "no_wild"}, 1)
    assert paid(state) == {(2, 3): 24}


def test_an_added_kong_not_robbed_completes_with_a_replacement():
    state = deal([QA + "5p", QB, RK_S2, RK_S3_W], draws="6z7z6z5p", replacements="4z")
    state = play(state, discard(0, "5p"), Pass(3), Pung(2), discard(2, "2z"))
    state = play(idle(state, 3), AddedKong(2, T("5p")), Pass(3))
    assert state.melds[2][0].kind == "added_kong"
    assert (state.phase, state.turn, state.drawn, state.from_tail) == ("turn", 2, T("4z"), True)


def test_a_concealed_kong_cannot_be_robbed():
    s2 = "1479m555p1368s23z"
    state = deal([QA + "7z", QB, s2, RK_S3_W], draws="1z5p", replacements="4z")
    state = idle(play(state, discard(0, "7z")), 1)
    assert state.drawn == T("5p")
    state = play(state, ConcealedKong(2, T("5p")))
    assert (state.phase, state.turn, state.drawn) == ("turn", 2, T("4z"))


# --------------------------------------------------------------------------- 起手四财神


def test_dealt_four_wilds_win_before_the_dealers_first_discard():
    s2 = "5z5z5z5z" + "1479m1368p2s"
    preset = arrange(R, dealer=0, hands=[QA + "7z", QB, s2, QC], draws="6z")
    state, events = new_hand(R, 0, TableContext(), preset)
    assert state.outcome == "win" and not any(r.seat == 0 for r in state.river)
    win = state.wins[0]
    assert (win.seat, win.instant, win.dealt_hand, win.self_draw) == (2, True, True, True)
    assert [(e.seat, e.specials, e.multiplier) for e in events if isinstance(e, Won)] == [
        (2, ("four_wilds", "dealt_four_wilds"), 2)]
    # paid as 自摸 with the 四财神 doubling only (no 地胡): 2 x 2 x 2 from each
    assert net(state) == (-8, -8, 24, -8)
    assert state.settlement is not None
    assert state.settlement.house_silver == (0, 0, 500000, 0)
    assert state.settlement.house == (0, 0, 0, 0)


def test_the_dealer_dealt_four_wilds():
    state = deal(["5z5z5z5z12358m1369p8s", QA, QB, QC])
    assert state.outcome == "win" and state.wins[0].seat == 0
    assert win_score(state) == ({"four_wilds", "dealt_four_wilds"}, 2)
    assert net(state) == (24, -8, -8, -8)
    assert state.settlement is not None and state.settlement.house_silver == (500000, 0, 0, 0)


def test_dealt_four_wilds_with_the_heavenly_doubling_by_option():
    generous = Huzhou(options=HuzhouOptions(dealt_four_wilds_heavenly=True))
    s2 = "5z5z5z5z" + "1479m1368p2s"
    state = deal([QA + "7z", QB, s2, QC], ruleset=generous)
    assert win_score(state) == ({"four_wilds", "dealt_four_wilds", "earthly"}, 4)
    assert net(state) == (-16, -16, 48, -16)


def test_four_wilds_drawn_later_get_no_silver():
    s2 = "5z5z5z" + "1479m1368p23s"
    state = deal([QA + "7z", QB, s2, QC], draws="1z2z3z4z7z5z")
    state = idle(play(state, discard(0, "7z")), 5)
    assert state.outcome == "win"
    assert state.settlement is not None and state.settlement.house_silver == (0, 0, 0, 0)


# --------------------------------------------------------------------------- end of the wall


def test_last_discard_can_only_be_won_on():
    s3 = "123m456m789p11z22z"  # waits 1z / 2z, no 财神
    state = deal([QA + "7z", QB, QC, s3], replacements="1z")
    state = run_to_last_draw(play(state, discard(0, "7z")))
    assert (state.turn, state.drawn, state.wall.remaining) == (2, T("1z"), 0)
    assert not any(isinstance(a, (ConcealedKong, AddedKong)) for a in legal_actions(state, 2))
    state = play(state, discard(2, "1z"))
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]  # no 碰 on the last discard
    state = play(state, Hu(3))
    assert paid(state) == {(2, 3): 8, (0, 3): 4, (1, 3): 4}


def test_a_drawn_hand_pays_nothing_and_the_dealer_deals_again():
    s3 = "123m456m789p111z2z"  # three 东, but the fourth completes nothing
    state = deal([QA + "7z", QB, QC, s3], replacements="1z", points=(30, 8, 50, 12))
    state = run_to_last_draw(play(state, discard(0, "7z")))
    state = play(state, discard(2, "1z"))
    assert state.outcome == "draw"
    assert net(state) == (0, 0, 0, 0) and state.settlement is not None
    assert state.settlement.transfers == ()
    assert R.next_context(state) == TableContext(dealer=0, streak=1, seat_points=(30, 8, 50, 12))


def test_after_a_drawn_hand_a_departure_passes_the_deal():
    # "after a draw the dealer stays if nobody left the table, else the next seat deals"
    s3 = "123m456m789p111z2z"
    state = deal([QA, QB, QC, s3 + "7z"], dealer=3, replacements="1z", points=(30, 8, 50, 12))
    state = run_to_last_draw(play(state, discard(3, "7z")))
    state = play(state, Discard(state.turn, state.drawn))
    if state.phase == "claim":
        state = play(state, PASS)
    assert state.outcome == "draw"
    assert R.next_context(state) == TableContext(dealer=3, streak=1, seat_points=(30, 8, 50, 12))
    assert R.next_context(state, departed=True) == TableContext(
        dealer=0, streak=0, seat_points=(30, 8, 50, 12))


def test_a_departure_changes_nothing_after_a_win_or_an_escape():
    state = play(deal([QA + "4s", QB, WAIT_W, QC]), discard(0, "4s"), Hu(2))
    assert R.next_context(state, departed=True) == R.next_context(state)  # the winner deals
    state = play(deal([QA, QB, QC, WAIT_W + "7z"], dealer=3), Escape(1))
    assert R.next_context(state, departed=True).dealer == 0  # the escaper left: it passes


# --------------------------------------------------------------------------- dealer


def test_the_winner_deals_next():
    state = deal([QA + "4s", QB, WAIT_W, QC], points=(10, 0, 3, 7))
    state = play(state, discard(0, "4s"), Hu(2))
    assert R.next_context(state) == TableContext(dealer=2, streak=0, seat_points=(6, 0, 11, 5))


def test_the_dealer_who_wins_deals_again():
    state = deal([QA, QB, QC, WAIT_W + "7z"], dealer=3, draws="1z2z3z1s")
    state = play(idle(play(state, discard(3, "7z")), 3), Hu(3))
    assert net(state) == (-4, -4, -4, 12)
    assert R.next_context(state) == TableContext(dealer=3, streak=1, seat_points=(0, 0, 0, 12))


def test_an_escape_passes_the_deal():
    state = play(deal([QA, QB, QC, WAIT_W + "7z"], dealer=3), Escape(1))
    assert R.next_context(state).dealer == 0
    stay = Huzhou(options=HuzhouOptions(escape_passes_deal=False))
    state = play(deal([QA, QB, QC, WAIT_W + "7z"], dealer=3, ruleset=stay), Escape(1))
    assert stay.next_context(state).dealer == 3


def test_points_carry_only_by_option():
    fixed = Huzhou(options=HuzhouOptions(carry_points=False))
    state = deal([QA + "4s", QB, WAIT_W, QC], points=(10, 0, 3, 7), ruleset=fixed)
    state = play(state, discard(0, "4s"), Hu(2))
    assert fixed.next_context(state) == TableContext(dealer=2, seat_points=(10, 0, 3, 7))


# --------------------------------------------------------------------------- escape


@pytest.mark.parametrize(
    ("escaper", "points", "expected"),
    [
        (0, (0, 0, 0, 0), {(0, 1): 6, (0, 2): 5, (0, 3): 5}),  # 8 x 2 = 16
        (2, (0, 0, 0, 0), {(2, 3): 6, (2, 0): 5, (2, 1): 5}),
        (1, (50, 100, 20, 400), {(1, 2): 8, (1, 3): 8, (1, 0): 8}),  # base 3: 24
    ],
)
def test_escape_pays_eight_times_base_split_by_turn_order(escaper, expected, points):
    state = deal([QA + "7z", QB, QC, WAIT], points=points)
    state = play(state, Escape(escaper))
    assert state.outcome == "escape" and state.wins == []
    assert paid(state) == expected


def test_escape_during_a_claim_window():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Escape(3))
    assert state.outcome == "escape"
    assert net(state) == (6, 5, 5, -16)


# --------------------------------------------------------------------------- refusals


def test_refused_actions_leave_the_state_unchanged():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    assert refused(state, discard(1, "2m")) == "not_your_turn"
    assert refused(state, Pung(0)) == "not_offered"
    assert refused(state, discard(0, "9m")) == "tile_not_in_hand"
    assert refused(state, Hu(0)) == "cannot_win"
    state = play(state, discard(0, "5p"))
    assert refused(state, Chow(2, T("4p"))) == "not_offered"
    assert refused(state, Pung(3)) == "not_offered"
    state = play(state, Hu(1))
    assert refused(state, Pass(2)) == "hand_over"


# --------------------------------------------------------------------------- self-play


def test_self_play_keeps_every_invariant():
    report = selfplay.run("huzhou", 100, 11, "random", check=True, ruleset=R)
    assert report.hands == 100
    report = selfplay.run("huzhou", 30, 12, "greedy", check=True, ruleset=R)
    assert report.hands == 30 and report.wins > 0


@pytest.mark.parametrize("seed", range(6))
def test_random_play_is_zero_sum_and_keeps_every_tile(seed):
    rng = random.Random(seed)
    points = (rng.randrange(0, 2000), rng.randrange(0, 200), rng.randrange(0, 50), 0)
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4, seat_points=points))
    while state.phase != "ended":
        seat = pending_seats(state)[0]
        actions = legal_actions(state, seat)
        wins = [a for a in actions if isinstance(a, Hu)]
        action = wins[0] if wins and rng.random() < 0.5 else rng.choice(actions)
        state, _ = step(state, action)
        assert tile_census(state) == full_census(R)
    net(state)


def test_tiles_spec_sanity():
    # the quiet hands hold no 财神 and no honour
    for hand in (QA, QB, QC):
        assert all(t < 27 for t in parse(hand))
