"""丽水 Lishui rules (RULES.md sections 1 and 2), one scenario per rule line.

Every scenario is exact: `arrange` builds the wall so that the deal, the draws, the tail
(replacement) draws and the 财神 indicator are the ones written in the test. Unless a test says
otherwise the dealer is seat 0, the indicator is 9s (so 9s is the 财神 with 3 live copies and
白板 5z plays as an ordinary 9s), and the base is 3 (the dealer's first hand).

Numbers asserted are what a player would see: who pays whom, the net points, the specials
named on the win, the actions offered.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import pytest

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
from app.rules.events import Penalized, WildTurned
from app.rules.explain import explain_win
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import WHITE, parse, parse_one
from app.rules.variants.lishui import SPECIALS, Lishui, LishuiOptions
from app.rules.wall import roll_dice, shuffled
from app.rules.winning import is_standard_win
from tests.rules.script import PASS, T, discard, idle, net, paid, play, play_events, refused

R = Lishui()
WILD = parse_one("9s")  # the 财神 of the default scenario

# Quiet hands: suited tiles only, far from any win, no 财神 and no 白板. They cannot claim an
# honour (no honour held) and no seat holding them can win on anything in these scenarios.
QA = "12358m1369p2478s"
QB = "23469m2478p1358s"
QC = "14679m1358p2368s"

# A plain hand waiting on 1s / 4s (123m 456m 789p 11p + 23s).
WAIT_1S_4S = "123m456m789p11p23s"


# --------------------------------------------------------------------------- helpers


def deal(
    hands: Sequence[str],
    *,
    dealer: int = 0,
    streak: int = 0,
    draws: str | Sequence[int] = "",
    replacements: str | Sequence[int] = "",
    indicator: str = "9s",
    wild_dice: tuple[int, int] = (3, 4),
    ruleset: Lishui = R,
) -> HandState:
    """A hand whose deal, front draws, tail draws and 财神 indicator are exactly these."""
    preset = arrange(
        ruleset,
        dealer=dealer,
        hands=hands,
        draws=draws,
        replacements=replacements,
        indicator=indicator,
        wild_dice=wild_dice,
    )
    state, _ = new_hand(ruleset, 0, TableContext(dealer=dealer, streak=streak), preset)
    assert tile_census(state) == full_census(ruleset)
    return state


def win_score(state: HandState) -> tuple[set[str], int]:
    assert state.outcome == "win" and len(state.wins) == 1
    score = state.ruleset.score(state, state.wins[0])
    return set(score.specials), score.multiplier


def reasons(state: HandState) -> list[tuple[int, str]]:
    return [(p.seat, p.reason) for p in state.penalties if isinstance(p, Penalized)]


def full_wall(
    hands: Sequence[str], *, last: str, ruleset: Lishui = R, indicator: str = "9s"
) -> HandState:
    """A hand in which every live tile is specified: the rest of the set, spread out so that
    no two consecutive draws are alike (no accidental 被跟), then `last` as the final normal
    draw (it is the very last tile of the wall: with no kong in the hand, the front reaches
    it last). The indicator is the 2nd tile from the tail (the dealer's second roll is 1+1)."""
    rest = Counter(ruleset.tile_set())
    rest.subtract(t for h in hands for t in parse(h))
    rest.subtract([T(indicator), T(last)])
    assert all(c >= 0 for c in rest.values())
    ordered = sorted(rest.elements())
    spread = [t for offset in range(5) for t in ordered[offset::5]]
    assert all(a != b for a, b in pairwise(spread)) and spread[-1] != T(last)
    return deal(
        hands, draws=spread, replacements=last, indicator=indicator, wild_dice=(1, 1),
        ruleset=ruleset,
    )


def run_to_last_draw(state: HandState) -> HandState:
    """Everybody throws what they draw (and passes every claim) until the last live tile of
    the wall has been drawn."""
    while state.wall.live > 0:
        state = idle(state, 1)
    assert state.phase == "turn"
    return state


# --------------------------------------------------------------------------- the 财神


def test_wild_is_the_nth_tile_from_the_tail_by_the_dealers_second_roll():
    preset = arrange(R, dealer=0, hands=[QA + "7z", QB, QC, WAIT_1S_4S],
                     indicator="9s", wild_dice=(3, 4))
    assert preset.wall[-7] == WILD
    state, events = new_hand(R, 0, TableContext(), preset)
    assert (state.wild.wild, state.wild.indicator, state.wild.substitute) == (WILD, WILD, WHITE)
    assert WildTurned((3, 4), WILD, WILD, WHITE) in events
    # the same wall with another second roll turns another tile: the N-th from the tail
    for dice in ((1, 1), (2, 5), (6, 6)):
        other, _ = new_hand(R, 0, TableContext(), dataclasses.replace(preset, wild_dice=dice))
        assert other.wild.wild == other.wild.indicator == preset.wall[-sum(dice)]


@pytest.mark.parametrize("seed", range(12))
def test_wild_of_a_shuffled_hand_comes_from_the_second_roll(seed):
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4))
    rng = random.Random(seed)
    roll_dice(rng)
    wall = shuffled(R.tile_set(), rng)
    second = roll_dice(rng)
    assert state.wild.dice == second
    assert state.wild.indicator == wall[-sum(second)]
    expected_sub = None if state.wild.indicator == WHITE else WHITE
    assert state.wild.substitute == expected_sub


def test_wild_has_three_live_copies_and_the_indicator_is_out_of_play():
    state = deal([QA + "7z", QB, QC, WAIT_1S_4S])
    left = state.wall.remaining_tiles()
    assert len(left) == 136 - 53 - 1
    assert left.count(WILD) == 3  # no hand holds a 9s; the 4th is the indicator
    assert tile_census(state) == full_census(R)
    # nothing ever draws it: run the wall down, the last tile drawn is not the indicator
    state = full_wall([QA + "7z", QB, QC, WAIT_1S_4S], last="6z")
    state = run_to_last_draw(play(state, discard(0, "7z")))
    assert state.drawn == T("6z") and state.wall.remaining == 0
    assert tile_census(state) == full_census(R)


# --------------------------------------------------------------------------- 白板


def test_white_dragon_discarded_is_an_ordinary_tile_claimed_as_the_face():
    # wild 9s: 5z plays as 9s. Seat 1 holds 78s (a run with 9s), seat 2 holds 5z5z.
    s1 = "78s" + "23469m2478p13z"
    s2 = "5z5z" + "14679m1358p23z"
    state = deal([QA + "5z", s1, s2, "12358m1369p2368s"])
    state = play(state, discard(0, "5z"))
    assert reasons(state) == []  # not a 误打财神
    assert legal_actions(state, 1) == [Chow(1, T("7s")), Pass(1)]
    assert legal_actions(state, 2) == [Pung(2), Pass(2)]
    assert pending_seats(state) == [1, 2]
    state = play(state, Pass(1), Pung(2))
    meld = state.melds[2][0]
    assert (meld.kind, meld.tiles, meld.plays_as) == ("pung", (WHITE,) * 3, WILD)


def test_white_dragon_in_hand_chows_as_the_face():
    # seat 1 holds 8s + 5z and chows the dealer's 7s as 7-8-9s
    state = deal([QA + "7s", "8s5z" + "23469m2478p13z", QC, QB])
    state = play(state, discard(0, "7s"))
    assert legal_actions(state, 1) == [Chow(1, T("7s")), Pass(1)]
    state = play(state, Chow(1, T("7s")))
    meld = state.melds[1][0]
    assert (meld.kind, sorted(meld.tiles), meld.plays_as) == ("chow", parse("78s5z"), T("7s"))


def test_white_dragon_konged_as_the_face():
    state = deal([QA + "5z", QB, QC, "5z5z5z" + "1257m1246p12z"], replacements="3z")
    state = play(state, discard(0, "5z"))
    assert pending_seats(state) == [3]
    assert legal_actions(state, 3) == [Pung(3), ExposedKong(3), Pass(3)]
    state = play(state, ExposedKong(3))
    meld = state.melds[3][0]
    assert (meld.kind, meld.tiles, meld.plays_as) == ("exposed_kong", (WHITE,) * 4, WILD)
    assert (state.turn, state.drawn, state.from_tail) == (3, T("3z"), True)


def test_white_dragon_completes_a_win_only_as_the_face():
    # 123m 456m 789m 11p 7s 5z: 5z is a 9s, so the hand waits on 8s only (as a wild it would
    # also take 6s)
    hand = "123m456m789m11p7s5z"
    state = deal([QA + "7z", QB, hand, QC], draws="1z6s")
    state = idle(play(state, discard(0, "7z")), 1)
    assert state.turn == 2 and state.drawn == T("6s")
    assert Hu(2) not in legal_actions(state, 2)
    state = deal([QA + "7z", QB, hand, QC], draws="1z2z3z4z6z8s")
    state = idle(play(state, discard(0, "7z")), 5)
    assert state.drawn == T("8s") and Hu(2) in legal_actions(state, 2)
    state = play(state, Hu(2))
    assert win_score(state) == (set(), 2)
    assert net(state) == (-6, -2, 10, -2)


def test_white_dragon_is_simply_the_face_for_pure_suit():
    # all 条 with 5z standing for 9s: 清一色
    state = deal(["123s456s78s5z11s23s" + "6z", QA, QB, QC], draws="1z2z3z4s")
    state = play(state, discard(0, "6z"))
    state = play(idle(state, 3), Hu(0))
    assert win_score(state) == ({"pure_suit"}, 8)
    assert net(state) == (72, -24, -24, -24)


def test_turned_white_dragon_makes_white_the_wild_with_no_substitute():
    # indicator 5z: 5z is the 财神 (3 live); 9s is an ordinary tile
    state = deal([QA + "5z", QB, "5z" + "123m456m789m11p7s", "9s9s" + "14679m1358p23s"],
                 indicator="5z", draws="1z6s")
    assert (state.wild.wild, state.wild.substitute) == (WHITE, None)
    assert state.wall.remaining_tiles().count(WHITE) == 1  # 4 - indicator - dealer's - seat 2's
    # a 5z thrown is a 误打财神 and is dead: seat 2 (5z + 7s) would win on anything
    state = play(state, discard(0, "5z"))
    assert reasons(state) == [(0, "wild_discard")]
    assert state.phase == "turn" and state.turn == 1
    # seat 2's 5z is a wild: 7s + 5z + a drawn 6s is a run
    state = idle(state, 1)
    assert state.drawn == T("6s") and Hu(2) in legal_actions(state, 2)


def test_turned_white_dragon_leaves_the_face_an_ordinary_tile():
    state = deal([QA + "9s", QB, QC, "9s9s" + "1257m1246p123z"], indicator="5z")
    state = play(state, discard(0, "9s"))
    assert reasons(state) == []
    assert legal_actions(state, 3) == [Pung(3), Pass(3)]


# --------------------------------------------------------------------------- 误打财神


def test_wild_discard_is_allowed_dead_and_costs_one_to_each_other_seat():
    # the thrown 财神 would complete seat 1's hand and seat 2 holds 5z5z (a pair of 9s), yet
    # nobody may claim it
    state = deal([QA + "9s", WAIT_1S_4S, "5z5z23469m2478p13s", QC], draws="1z2z3z1s")
    assert Discard(0, WILD) in legal_actions(state, 0)
    state, events = play_events(state, Discard(0, WILD))
    assert Penalized(0, "wild_discard", WILD) in events
    assert reasons(state) == [(0, "wild_discard")]
    assert state.phase == "turn" and state.turn == 1 and pending_seats(state) == [1]
    # settled at the end of the hand, with the win: seat 1 wins on the dealer's 1s
    state = play(idle(state, 3), discard(0, "1s"), Hu(1))
    # seat 1 (non-dealer) wins on the dealer's 1s: dealer 3x1 + 1, others 1 each;
    # the dealer pays 1 more to each other seat for the 财神 thrown
    assert paid(state)[(0, 1)] == 3 + 1 + 1
    assert net(state) == (-4 - 3, 6 + 1, -1 + 1, -1 + 1)


def test_wild_discard_forbidden_by_option():
    strict = Lishui(options=LishuiOptions(wild_discard_penalized=False))
    state = deal([QA + "9s", QB, QC, WAIT_1S_4S], ruleset=strict)
    assert Discard(0, WILD) not in legal_actions(state, 0)
    assert refused(state, Discard(0, WILD)) == "wild_discard_forbidden"


# --------------------------------------------------------------------------- winning shapes


SEVEN_PAIRS_WAIT_7S = "55m33p55p7s1111z22z"  # four 1z count as two pairs
BU_DA_WAIT_7Z = "147m259p36s12346z"  # 13 tiles all apart; the 14th: 7z (or 9s / 5z)


@pytest.mark.parametrize(
    ("hand", "extra", "quiet", "win", "specials", "self_mult", "discard_mult"),
    [
        pytest.param(WAIT_1S_4S, "6z", "1z2z3z", "1s", set(), 2, 1, id="standard"),
        pytest.param(SEVEN_PAIRS_WAIT_7S, "6z", "3z4z7z", "7s", {"seven_pairs"}, 4, 2,
                     id="seven_pairs"),
        pytest.param(BU_DA_WAIT_7Z, "1z", "6z2z3z", "7z", {"bu_da"}, 4, 2, id="bu_da"),
        pytest.param("147m258p3s12346z9s", "1z", "6z2z3z", "7z", {"bu_da"}, 4, 2,
                     id="bu_da_wild_fills_a_gap"),
        pytest.param("555m777m222p66s22z", "7z", "1z3z4z", "2z", {"all_pungs"}, 4, 2,
                     id="all_pungs"),
        pytest.param("123456789p55p67p", "1z", "2z3z4z", "8p", {"pure_suit"}, 8, 4,
                     id="pure_suit"),
        # a 财神 counts as the tile it stands for: it spoils neither 清一色 nor 大对子
        pytest.param("123p456p789p55p6p9s", "1z", "2z3z4z", "7p", {"pure_suit"}, 8, 4,
                     id="pure_suit_with_a_wild"),
        pytest.param("555m777m22p66s33z9s", "7z", "1z4z6z", "6s", {"all_pungs"}, 4, 2,
                     id="all_pungs_with_a_wild"),
        # honours cannot make runs: 字一色 always comes with 大对子 (or 七对子)
        pytest.param("111z222z333z44z66z", "7z", "5z5z5z", "6z", {"all_honours", "all_pungs"},
                     12, 6, id="all_honours"),
    ],
)
def test_dealer_wins_by_self_draw_and_on_a_discard(
    hand, extra, quiet, win, specials, self_mult, discard_mult
):
    # self-draw: the dealer throws its extra tile, the others throw what they draw
    state = deal([hand + extra, QA, QB, QC], draws=quiet + win)
    state = play(idle(play(state, discard(0, extra)), 3), Hu(0))
    assert win_score(state) == (specials, self_mult)
    assert net(state) == (9 * self_mult, -3 * self_mult, -3 * self_mult, -3 * self_mult)
    # on a discard: seat 3 draws the winning tile and throws it; it pays the 犯枪 point
    state = deal([hand + extra, QA, QB, QC], draws=quiet[:-2] + win)
    state = idle(play(state, discard(0, extra)), 2)
    state = play(state, Discard(3, T(win)))
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == (specials, discard_mult)
    assert paid(state) == {(1, 0): 3 * discard_mult, (2, 0): 3 * discard_mult,
                           (3, 0): 3 * discard_mult + 1}
    assert net(state)[0] == 9 * discard_mult + 1


def test_a_plain_self_drawn_win_is_named_zimo_and_a_plain_win_on_a_discard_pinghu():
    """Seed 000: "平胡 胡他人打出的牌" and "平胡一倍，自摸的牌型若非特殊牌型則是二倍": the score
    sheet names a plain self-drawn win 自摸 (x2); only a plain win on a discard is 平胡 (x1)."""
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], draws="1z2z3z1s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    sheet = explain_win(state, state.wins[0])
    assert [(it.key, it.name, it.value) for it in sheet.items] == [("self_drawn", "自摸", 2)]
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], draws="1z2z1s")
    state = idle(play(state, discard(0, "6z")), 2)
    state = play(play(state, Discard(3, T("1s"))), Hu(0))
    sheet = explain_win(state, state.wins[0])
    assert [(it.key, it.name, it.value) for it in sheet.items] == [("plain", "平胡", 1)]


def test_non_dealer_wins_seven_pairs_and_bu_da_on_a_discard():
    for hand, win, special in ((SEVEN_PAIRS_WAIT_7S, "7s", "seven_pairs"),
                               (BU_DA_WAIT_7Z, "7z", "bu_da")):
        state = deal([QA + "6z", QB, hand, QC], draws=win)
        state = play(state, discard(0, "6z"))
        state = play(state, Discard(1, T(win)))
        state = play(state, Hu(2))
        assert win_score(state) == ({special}, 2)
        # dealer base 3 x 2, the discarder (non-dealer) 1 x 2 + 1, the other 1 x 2
        assert net(state) == (-6, -3, 11, -2)


def test_a_wild_may_stand_for_a_fifth_copy():
    # 1111z + 9s: the 财神 pairs with the fourth 1z (天胡 on the dealt hand)
    state = deal(["1111z9s123m456m789p", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == ({"heavenly"}, 8)


def test_four_alike_are_not_a_pung_in_seven_pairs():
    state = deal([SEVEN_PAIRS_WAIT_7S + "6z", QA, QB, QC], draws="3z4z7z7s")
    state = idle(play(state, discard(0, "6z")), 3)
    counts, wilds = state.effective(0)
    assert not is_standard_win(counts, wilds)
    assert Hu(0) in legal_actions(state, 0)


def test_bu_da_needs_three_apart_and_different_honours():
    # 147m 259p 36s + 1234 6z + 2s: 2s is next to 3s, so 2s completes nothing
    state = deal([BU_DA_WAIT_7Z + "1z", QA, QB, QC], draws="5z5z5z2s")
    state = idle(play(state, discard(0, "1z")), 3)
    assert state.drawn == T("2s") and Hu(0) not in legal_actions(state, 0)
    # a second 6z: honours must all differ
    state = deal([BU_DA_WAIT_7Z + "1z", QA, QB, QC], draws="5z5z5z6z")
    state = idle(play(state, discard(0, "1z")), 3)
    assert Hu(0) not in legal_actions(state, 0)


# --------------------------------------------------------------------------- multipliers


def test_multiplier_table_matches_the_rule_book():
    assert SPECIALS == {
        "pure_suit": (8, 4),
        "all_honours": (8, 4),
        "seven_pairs": (4, 2),
        "all_pungs": (4, 2),
        "bu_da": (4, 2),
        "wild_meets_wild": (4, None),
        "robbing_kong": (None, 4),
        "heavenly": (8, None),
        "earthly": (4, None),
        "kong_win": (4, None),
    }


def test_wild_meets_wild_when_the_drawn_winning_tile_is_a_second_wild():
    hand = "123m456m789p11p2s9s"  # 财神 held; waits on anything next to 2s, or a 财神
    state = deal([hand + "6z", QA, QB, QC], draws="1z2z3z9s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    assert win_score(state) == ({"wild_meets_wild"}, 4)
    assert net(state) == (36, -12, -12, -12)
    # the same hand completed by a real 3s: plain
    state = deal([hand + "6z", QA, QB, QC], draws="1z2z3z3s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    assert win_score(state) == (set(), 2)


def test_wild_meets_wild_needs_a_wild_already_held():
    # 123m 456m 789p 11p + 23s: a single 财神 drawn completes it but meets no other 财神
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], draws="1z2z3z9s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    assert win_score(state) == (set(), 2)


def test_wild_meets_wild_adds_to_bu_da():
    state = deal(["147m258p3s12346z9s" + "1z", QA, QB, QC], draws="6z2z3z9s")
    state = play(idle(play(state, discard(0, "1z")), 3), Hu(0))
    assert win_score(state) == ({"wild_meets_wild", "bu_da"}, 8)
    assert net(state) == (72, -24, -24, -24)


def test_pure_suit_seven_pairs_self_drawn_adds_to_twelve():
    # 11223344556677p also reads 123p 123p 456p 456p 77p (清一色 8): the 七对子 reading pays more
    state = deal(["112233445566p7p" + "1z", QA, QB, QC], draws="2z3z4z7p")
    state = play(idle(play(state, discard(0, "1z")), 3), Hu(0))
    assert win_score(state) == ({"pure_suit", "seven_pairs"}, 12)
    assert net(state) == (108, -36, -36, -36)


def test_all_pungs_with_a_pung_meld():
    # seat 1 pungs the dealer's 2z, throws 2p and wins 555m 777m 2p 66s on seat 2's 6s
    state = deal([QA + "2z", "555m777m222p66s2z2z", QB, QC], draws="6s")
    state = play(state, discard(0, "2z"), Pung(1), discard(1, "2p"))
    assert (state.phase, state.turn, state.drawn) == ("turn", 2, T("6s"))
    state = play(state, Discard(2, T("6s")), Hu(1))
    assert win_score(state) == ({"all_pungs"}, 2)
    assert paid(state) == {(0, 1): 6, (2, 1): 3, (3, 1): 2}


def test_no_all_pungs_with_a_chow_meld():
    state = deal([QA + "3p", "555m777m24p66s22z1z", QB, QC], draws="6s")
    state = play(state, discard(0, "3p"), Chow(1, T("2p")), discard(1, "1z"))
    state = play(state, Discard(2, T("6s")), Hu(1))
    assert win_score(state) == (set(), 1)
    assert paid(state) == {(0, 1): 3, (2, 1): 2, (3, 1): 1}


def test_heavenly_win():
    state = deal(["123m456m789p11p234s", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == ({"heavenly"}, 8)
    assert net(state) == (72, -24, -24, -24)


def test_earthly_win_on_a_non_dealers_first_draw():
    state = deal([QA + "6z", QB, WAIT_1S_4S, QC], draws="1z1s")
    state = idle(play(state, discard(0, "6z")), 1)
    assert state.turn == 2 and state.drawn == T("1s")
    state = play(state, Hu(2))
    assert win_score(state) == ({"earthly"}, 4)
    assert net(state) == (-12, -4, 20, -4)


def test_no_earthly_win_on_a_later_draw():
    # the same hand self-drawn on seat 2's second draw: plain 2 (dealer 6, others 2)
    state = deal([QA + "6z", QB, WAIT_1S_4S, QC], draws="1z2z3z4z7z1s")
    state = play(idle(play(state, discard(0, "6z")), 5), Hu(2))
    assert win_score(state) == (set(), 2)
    assert net(state) == (-6, -2, 10, -2)


def test_kong_win_on_the_replacement_after_a_concealed_kong():
    state = deal(["1111z123m456m78p11p", QA, QB, QC], replacements="9p")
    assert ConcealedKong(0, T("1z")) in legal_actions(state, 0)
    state = play(state, ConcealedKong(0, T("1z")))
    assert state.drawn == T("9p") and state.from_tail
    state = play(state, Hu(0))
    assert win_score(state) == ({"kong_win"}, 4)
    assert net(state) == (36, -12, -12, -12)


def test_kong_win_on_the_replacement_after_an_exposed_kong():
    # seat 2 kongs the dealer's 1z and completes 123m 456m 789p 11p on the replacement
    state = deal([QA + "1z", QB, "111z123m456m789p1p", QC], replacements="1p")
    state = play(state, discard(0, "1z"))
    assert legal_actions(state, 2) == [Pung(2), ExposedKong(2), Pass(2)]
    state = play(state, ExposedKong(2))
    assert (state.turn, state.drawn, state.from_tail) == (2, T("1p"), True)
    state = play(state, Hu(2))
    assert win_score(state) == ({"kong_win"}, 4)
    assert net(state) == (-12, -4, 20, -4)


# --------------------------------------------------------------------------- examples A and B


def test_example_a_dealer_second_hand_self_draws_seven_pairs():
    state = deal([SEVEN_PAIRS_WAIT_7S + "6z", QA, QB, QC], streak=1, draws="3z4z7z7s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    assert win_score(state) == ({"seven_pairs"}, 4)
    assert paid(state) == {(1, 0): 20, (2, 0): 20, (3, 0): 20}
    assert net(state) == (60, -20, -20, -20)


def test_example_b_non_dealer_self_draws_seven_pairs_against_base_five():
    state = deal([QA + "6z", QB, SEVEN_PAIRS_WAIT_7S, QC], streak=1, draws="3z4z7z6z3z7s")
    state = play(idle(play(state, discard(0, "6z")), 5), Hu(2))
    assert win_score(state) == ({"seven_pairs"}, 4)
    assert paid(state) == {(0, 2): 20, (1, 2): 4, (3, 2): 4}
    assert net(state) == (-20, -4, 28, -4)


# --------------------------------------------------------------------------- payments


def test_dealer_wins_on_a_discard_the_discarder_pays_one_more():
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], draws="1z2z1s")
    state = idle(play(state, discard(0, "6z")), 2)
    state = play(state, discard(3, "1s"))
    assert legal_actions(state, 0) == [Hu(0), Chow(0, T("1s")), Pass(0)]
    state = play(state, Hu(0))
    assert paid(state) == {(1, 0): 3, (2, 0): 3, (3, 0): 4}


def test_non_dealer_wins_on_a_non_dealers_discard():
    state = deal([QA + "6z", QB, WAIT_1S_4S, QC], draws="4s")
    state = play(state, discard(0, "6z"), discard(1, "4s"))
    assert legal_actions(state, 2) == [Hu(2), Chow(2, T("2s")), Pass(2)]
    state = play(state, Hu(2))
    assert paid(state) == {(0, 2): 3, (1, 2): 2, (3, 2): 1}


def test_non_dealer_wins_on_the_dealers_discard():
    state = deal([QA + "4s", QB, WAIT_1S_4S, QC])
    state = play(state, discard(0, "4s"), Hu(2))  # seat 1 (a chow) has not answered: 胡 wins
    assert paid(state) == {(0, 2): 4, (1, 2): 1, (3, 2): 1}
    assert net(state) == (-4, -1, 6, -1)


def test_non_dealer_self_draw_with_dealer_base_seven():
    state = deal([QA + "6z", QB, WAIT_1S_4S, QC], streak=2, draws="1z2z3z4z7z1s")
    state = play(idle(play(state, discard(0, "6z")), 5), Hu(2))
    assert paid(state) == {(0, 2): 14, (1, 2): 2, (3, 2): 2}


# --------------------------------------------------------------------------- 被跟


def test_followed_four_times_the_first_seat_pays_each_other_seat_one():
    state = deal([WAIT_1S_4S + "7z", QA, QB, QC], draws="7z7z7z1s")
    state = play(state, discard(0, "7z"))
    state, events = play_events(state, Discard(1, T("7z")), Discard(2, T("7z")))
    assert reasons(state) == []
    state, events = play_events(state, Discard(3, T("7z")))
    assert Penalized(0, "followed", T("7z")) in events
    assert reasons(state) == [(0, "followed")]
    state = play(state, Hu(0))  # the penalty settles with the win
    # win: 6 from each; penalty: 1 to each
    assert net(state) == (18 - 3, -5, -5, -5)


def test_followed_mid_hand():
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], draws="1z2z3z7z7z7z7z1s")
    state = idle(play(state, discard(0, "6z")), 3)
    state = play(state, discard(0, "7z"))  # draws 7z, throws it: seats 1-3 follow
    state = idle(state, 3)
    assert reasons(state) == [(0, "followed")]
    state = play(state, Hu(0))
    assert net(state) == (18 - 3, -5, -5, -5)


def test_not_followed_when_a_claim_interrupts():
    # 5p by seats 0, 1, 2 (seat 3 chows seat 2's 5p), then 5p by seat 3: no 被跟
    s3 = "2457m345p2368s16z"
    state = deal([QA + "5p", QB, QC, s3], draws="5p6z")
    state = play(state, discard(0, "5p"), discard(1, "5p"))
    assert (state.phase, state.turn, state.drawn) == ("turn", 2, T("6z"))
    state = play(state, discard(2, "5p"))
    assert pending_seats(state) == [3]
    assert legal_actions(state, 3) == [Chow(3, T("3p")), Pass(3)]
    state = play(state, Chow(3, T("3p")), discard(3, "5p"))
    assert [r.tile for r in state.river[-4:]] == [T("5p")] * 4
    assert reasons(state) == []


def test_follow_penalty_can_be_switched_off():
    relaxed = Lishui(options=LishuiOptions(follow_penalty=False))
    state = deal([WAIT_1S_4S + "7z", QA, QB, QC], draws="7z7z7z", ruleset=relaxed)
    state = play(state, discard(0, "7z"), discard(1, "7z"), discard(2, "7z"), discard(3, "7z"))
    assert reasons(state) == []


# --------------------------------------------------------------------------- 统包

# Seat 0 (A, the dealer) feeds 3m, 3p, 3s to seat 1 (B), who chows 123m, 123p, 123s and is then
# left with 67m 55s (waits 5m / 8m). A ends with 456m 789p 456s 11z 77z (waits 1z / 7z).
TB_A = "3m3p3s456m789p11z56s7z"
TB_B = "12m12p12s67m55s234z"
TB_S2 = QB
TB_S3 = QC


def feed_three_chows(state: HandState) -> HandState:
    """A throws 3m, 3p, 3s; B chows each and throws an honour; seats 2 and 3 throw what they
    draw; A keeps its draws. Ends with seat 2 to move after B's third discard."""
    for fed, low, honour in (("3m", "1m", "2z"), ("3p", "1p", "3z"), ("3s", "1s", "4z")):
        if fed != "3m":
            state = idle(state, 2)
        state = play(state, discard(0, fed))
        assert Chow(1, T(low)) in legal_actions(state, 1)
        state = play(state, Chow(1, T(low)), discard(1, honour))
    assert [m.kind for m in state.melds[1]] == ["chow"] * 3
    assert all(m.from_seat == 0 for m in state.melds[1])
    return state


def tongbao_hand(draws: str, ruleset: Lishui = R) -> HandState:
    return deal([TB_A, TB_B, TB_S2, TB_S3], draws=draws, ruleset=ruleset)


def test_tongbao_fed_seat_self_draws_the_feeder_pays_all():
    state = feed_three_chows(tongbao_hand("6z2z7z6z3z4s6z4z2z8m"))
    state = idle(state, 3)  # seats 2, 3 and A throw
    assert state.turn == 1 and state.drawn == T("8m")
    state = play(state, Hu(1))
    # B (non-dealer) self-draws plain 2: shares dealer 6, seat 2 2, seat 3 2, all paid by A
    assert paid(state) == {(0, 1): 10}
    assert net(state) == (-10, 10, 0, 0)


def test_tongbao_feeder_wins_the_fed_seat_pays_all():
    state = feed_three_chows(tongbao_hand("6z2z7z6z3z4s6z4z1z"))
    state = idle(state, 2)
    assert state.turn == 0 and state.drawn == T("1z")
    state = play(state, Hu(0))
    assert paid(state) == {(1, 0): 18}


def test_tongbao_fed_seat_wins_on_a_third_seats_discard():
    state = feed_three_chows(tongbao_hand("6z2z7z6z3z4s6z8m"))
    state = idle(state, 1)
    state = play(state, discard(3, "8m"))
    assert legal_actions(state, 1) == [Hu(1), Pass(1)]
    state = play(state, Hu(1))
    # shares: dealer 3, seat 2 1, seat 3 1 + the 犯枪 point: all paid by A
    assert paid(state) == {(0, 1): 6}
    relaxed = Lishui(options=LishuiOptions(tongbao_covers_deal_in=False))
    state = feed_three_chows(tongbao_hand("6z2z7z6z3z4s6z8m", ruleset=relaxed))
    state = play(idle(state, 1), discard(3, "8m"), Hu(1))
    assert paid(state) == {(0, 1): 5, (3, 1): 1}


def test_without_tongbao_each_loser_pays_its_own_share():
    plain = Lishui(options=LishuiOptions(tongbao=False))
    state = feed_three_chows(tongbao_hand("6z2z7z6z3z4s6z4z2z8m", ruleset=plain))
    state = play(idle(state, 3), Hu(1))
    assert paid(state) == {(0, 1): 6, (2, 1): 2, (3, 1): 2}


# --------------------------------------------------------------------------- 抢杠

# Seat 0 throws 5p: seat 1 may chow (46p), seat 2 may pung (55p), seat 3 may win (46p waits 5p).
CL_S0 = QA + "5p"
CL_S1 = "23469m2468p1358s"
CL_S2 = "1479m55p13678s23z"
CL_S3 = "123m456m789m11s46p"


def test_robbing_an_added_kong_the_robbed_seat_pays_everything():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3], draws="6z7z6z5p")
    state = play(state, discard(0, "5p"), Pass(3), Pass(1), Pung(2), discard(2, "2z"))
    state = idle(state, 3)
    assert state.turn == 2 and state.drawn == T("5p")
    assert AddedKong(2, T("5p")) in legal_actions(state, 2)
    state = play(state, AddedKong(2, T("5p")))
    assert state.phase == "rob" and pending_seats(state) == [3]
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]
    state = play(state, Hu(3))
    assert win_score(state) == ({"robbing_kong"}, 4)
    # shares: dealer 3x4, seat 1 1x4, seat 2 1x4, + the 犯枪 point: all from seat 2
    assert paid(state) == {(2, 3): 21}
    assert net(state) == (0, 0, -21, 21)
    assert state.melds[2][0].kind == "pung"  # the kong did not happen


def test_an_added_kong_not_robbed_completes_with_a_replacement():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3], draws="6z7z6z5p", replacements="4z")
    state = play(state, discard(0, "5p"), Pass(3), Pass(1), Pung(2), discard(2, "2z"))
    state = play(idle(state, 3), AddedKong(2, T("5p")), Pass(3))
    assert state.melds[2][0].kind == "added_kong"
    assert (state.phase, state.turn, state.drawn, state.from_tail) == ("turn", 2, T("4z"), True)


def test_robbing_the_kong_adds_to_other_specials():
    # seat 3: six pairs + a 财神, robs 5p: 抢杠 4 + 七对子 2 = 6
    s3 = "11m22m44p66p77s11z9s"
    state = deal([CL_S0, CL_S1, CL_S2, s3], draws="6z7z6z5p")
    state = play(state, discard(0, "5p"), Pass(3), Pass(1), Pung(2), discard(2, "2z"))
    state = play(state, PASS)  # seat 3 could pair the 2z with its 财神
    state = play(idle(state, 3), AddedKong(2, T("5p")), Hu(3))
    assert win_score(state) == ({"robbing_kong", "seven_pairs"}, 6)
    assert paid(state) == {(2, 3): 18 + 6 + 6 + 1}


def test_the_dealer_robs_a_kong():
    # the dealer waits on 5p (46p); seat 2 pungs seat 1's 5p and later adds the fourth
    s0 = "123m456m789m11s46p7z"
    state = deal([s0, QB, CL_S2, QA], draws="5p6z7z6z5p")
    state = play(state, discard(0, "7z"))
    state = play(state, discard(1, "5p"))
    assert legal_actions(state, 0) == [Hu(0), Pass(0)] and Pung(2) in legal_actions(state, 2)
    state = play(state, Pass(0), Pung(2), discard(2, "2z"))
    state = play(idle(state, 3), AddedKong(2, T("5p")))
    assert pending_seats(state) == [0]
    state = play(state, Hu(0))
    # each share is base 3 x 4; seat 2 pays all three and the 犯枪 point
    assert paid(state) == {(2, 0): 12 * 3 + 1}


def test_a_concealed_kong_cannot_be_robbed():
    s2 = "1479m555p1368s23z"
    state = deal([QA + "6z", CL_S1, s2, CL_S3], draws="7z5p", replacements="4z")
    state = idle(play(state, discard(0, "6z")), 1)
    assert state.drawn == T("5p")
    state = play(state, ConcealedKong(2, T("5p")))
    assert (state.phase, state.turn, state.drawn) == ("turn", 2, T("4z"))
    assert state.melds[2][0].kind == "concealed_kong"


def test_robbing_the_kong_overrides_tongbao():
    # B (fed three chows by A) robs seat 2's added kong of 8m: seat 2 pays, not A
    s2 = "23488m2478p1358s"
    state = deal([TB_A, TB_B, s2, TB_S3], draws="6z8m2z7z6z3z4s8m")
    state = play(state, discard(0, "3m"), Chow(1, T("1m")), discard(1, "2z"))
    state = idle(state, 1)  # seat 2 throws 6z
    state = play(state, discard(3, "8m"), Pung(2), discard(2, "8s"))
    state = idle(state, 1)  # seat 3 throws 2z; A draws 7z
    state = play(state, discard(0, "3p"), Chow(1, T("1p")), discard(1, "3z"))
    state = idle(state, 2)  # seats 2 and 3 throw 6z, 3z; A draws 4s
    state = play(state, discard(0, "3s"), Chow(1, T("1s")), discard(1, "4z"))
    assert state.turn == 2 and state.drawn == T("8m")
    state = play(state, AddedKong(2, T("8m")))
    assert pending_seats(state) == [1]
    state = play(state, Hu(1))
    assert win_score(state) == ({"robbing_kong"}, 4)
    # shares: dealer A 3x4, seat 2 4, seat 3 4, + the 犯枪 point: all paid by seat 2
    assert paid(state) == {(2, 1): 21}
    assert net(state) == (0, 21, -21, 0)
    assert [(m.kind, m.from_seat) for m in state.melds[1]] == [("chow", 0)] * 3


# --------------------------------------------------------------------------- claims


def test_win_beats_pung_and_chow_and_waits_for_the_winner():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"))
    assert legal_actions(state, 1) == [Chow(1, T("4p")), Pass(1)]
    assert legal_actions(state, 2) == [Pung(2), Pass(2)]
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]
    state = play(state, Chow(1, T("4p")), Pung(2))
    assert state.phase == "claim" and pending_seats(state) == [3]
    state = play(state, Hu(3))
    assert state.wins[0].seat == 3 and state.melds[1] == [] and state.melds[2] == []
    assert paid(state) == {(0, 3): 4, (1, 3): 1, (2, 3): 1}


def test_pung_beats_chow():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Pass(3), Chow(1, T("4p")))
    assert state.phase == "claim" and pending_seats(state) == [2]
    state = play(state, Pung(2))
    assert state.melds[1] == [] and [m.kind for m in state.melds[2]] == ["pung"]
    assert (state.phase, state.turn, state.drawn) == ("turn", 2, None)
    assert Hu(2) not in legal_actions(state, 2)


def test_chow_when_the_others_pass():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Pass(3), Pass(2), Chow(1, T("4p")))
    assert [(m.kind, m.plays_as, m.from_seat) for m in state.melds[1]] == [("chow", T("4p"), 0)]
    assert (state.phase, state.turn) == ("turn", 1)


def test_first_in_turn_wins_when_two_seats_can_win():
    s1 = "234m567m678s22z46p"  # also waits on 5p
    state = deal([CL_S0, s1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"))
    assert Hu(1) in legal_actions(state, 1) and Hu(3) in legal_actions(state, 3)
    state = play(state, Hu(3))
    assert state.phase == "claim"  # seat 1, nearer the discarder, has not answered
    state = play(state, Hu(1))
    assert [w.seat for w in state.wins] == [1]
    assert paid(state) == {(0, 1): 4, (2, 1): 1, (3, 1): 1}
    # if the nearer seat passes, the farther one wins
    state = deal([CL_S0, s1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Hu(3), Pass(1))
    assert [w.seat for w in state.wins] == [3]


def test_no_chow_across_nine_and_one():
    state = deal([QA + "1m", "89m2478p1358s467z", QC, QB])
    state = play(state, discard(0, "1m"))
    assert (state.phase, pending_seats(state)) == ("turn", [1])


def test_wilds_are_never_used_to_claim():
    # seat 1 holds 7s and two 财神 (9s): no 7-8-9 chow on 8s, no pung of a 5z (which is a 9s)
    s1 = "7s9s9s2346m2478p13z"
    for thrown in ("8s", "5z"):
        state = deal([QA + thrown, s1, QC, QB])
        state = play(state, discard(0, thrown))
        assert (state.phase, pending_seats(state)) == ("turn", [1])


def test_refused_claims_leave_the_state_unchanged():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    assert refused(state, discard(1, "2m")) == "not_your_turn"
    assert refused(state, Pung(0)) == "not_offered"
    assert refused(state, discard(0, "9m")) == "tile_not_in_hand"
    assert refused(state, Hu(0)) == "cannot_win"
    state = play(state, discard(0, "5p"))
    assert refused(state, Pass(0)) == "not_your_turn"  # the discarder
    assert refused(state, Chow(2, T("4p"))) == "not_offered"  # only the next seat chows
    assert refused(state, Pung(3)) == "not_offered"
    assert refused(state, Chow(1, T("3p"))) == "not_offered"
    assert refused(state, discard(1, "2m")) == "not_offered"
    state = play(state, Pass(1))
    assert refused(state, Chow(1, T("4p"))) == "already_answered"
    assert refused(state, Pass(1)) == "already_answered"
    state = play(state, Hu(3))
    assert refused(state, Pass(2)) == "hand_over"
    assert refused(state, Escape(2)) == "hand_over"


# --------------------------------------------------------------------------- end of the wall

# The dealer throws a 财神 first (误打财神); the other two live 财神 sit in seats 1 and 2.
EW_S0 = QA + "9s"
EW_S1 = "23469m2478p1359s"
EW_S2 = "14679m1358p2369s"


def test_last_discard_can_only_be_won_on():
    s3 = "123m456m789p11z22z"  # waits 1z / 2z
    state = full_wall([EW_S0, EW_S1, EW_S2, s3], last="1z")
    state = play(state, Discard(0, WILD))
    state = run_to_last_draw(state)
    assert (state.turn, state.drawn) == (2, T("1z"))
    assert not any(isinstance(a, (ConcealedKong, AddedKong)) for a in legal_actions(state, 2))
    state = play(state, discard(2, "1z"))
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]  # no 碰 on the last discard
    state = play(state, Hu(3))
    # win: dealer 3, seat 1 1, seat 2 (犯枪) 2; 误打财神: the dealer pays 1 to each
    assert net(state) == (-3 - 3, -1 + 1, -2 + 1, 6 + 1)


def test_last_discard_not_won_is_a_draw_and_only_penalties_are_paid():
    s3 = "123m456m789p111z2z"  # holds three 1z but does not win on the fourth
    state = full_wall([EW_S0, EW_S1, EW_S2, s3], last="1z")
    state = play(state, Discard(0, WILD))
    state = run_to_last_draw(state)
    state = play(state, discard(2, "1z"))
    assert state.outcome == "draw"  # no 碰 / 杠 offered: the hand is drawn at once
    assert net(state) == (-3, 1, 1, 1)
    assert R.next_context(state) == TableContext(dealer=1, streak=0)


def test_last_discard_passed_is_a_draw():
    s3 = "123m456m789p11z22z"
    state = full_wall([EW_S0, EW_S1, EW_S2, s3], last="1z")
    state = run_to_last_draw(play(state, Discard(0, WILD)))
    state = play(state, discard(2, "1z"), Pass(3))
    assert state.outcome == "draw"
    assert net(state) == (-3, 1, 1, 1)


# --------------------------------------------------------------------------- dealer and base


@pytest.mark.parametrize(("streak", "base"), [(0, 3), (1, 5), (2, 7), (3, 9), (4, 9), (9, 9)])
def test_base_by_dealer_streak(streak, base):
    assert R.base(TableContext(dealer=2, streak=streak)) == base


def test_dealer_win_keeps_the_deal_and_raises_the_streak():
    state = deal([WAIT_1S_4S + "6z", QA, QB, QC], streak=2, draws="1z2z3z1s")
    state = play(idle(play(state, discard(0, "6z")), 3), Hu(0))
    assert net(state) == (42, -14, -14, -14)  # base 7, plain self-draw 2
    nxt = R.next_context(state)
    assert nxt == TableContext(dealer=0, streak=3) and R.base(nxt) == 9


def test_another_seat_wins_the_next_seat_deals():
    state = deal([QA + "6z", QB, WAIT_1S_4S, QC], dealer=0, streak=3, draws="1z1s")
    state = play(idle(play(state, discard(0, "6z")), 1), Hu(2))
    assert R.next_context(state) == TableContext(dealer=1, streak=0)


def test_dealer_three_keeps_the_deal_by_winning_and_passes_it_to_seat_zero():
    state = deal([QA, QB, QC, WAIT_1S_4S + "6z"], dealer=3, draws="1z2z3z1s")
    state = play(idle(play(state, discard(3, "6z")), 3), Hu(3))
    assert net(state) == (-6, -6, -6, 18)
    assert R.next_context(state) == TableContext(dealer=3, streak=1)
    state = play(deal([QA, QB, QC, WAIT_1S_4S + "6z"], dealer=3), Escape(1))
    assert R.next_context(state) == TableContext(dealer=0, streak=0)


# --------------------------------------------------------------------------- escape


@pytest.mark.parametrize(
    ("escaper", "expected"),
    [
        (0, {(0, 1): 17, (0, 2): 17, (0, 3): 16}),
        (2, {(2, 3): 17, (2, 0): 17, (2, 1): 16}),
    ],
)
def test_escape_pays_ten_times_base_split_by_turn_order(escaper, expected):
    state = deal([QA + "6z", QB, QC, WAIT_1S_4S], streak=1)
    state = play(state, Escape(escaper))
    assert state.outcome == "escape"
    assert paid(state) == expected


def test_escape_cancels_every_other_payment():
    state = deal([QA + "9s", QB, QC, WAIT_1S_4S])
    state = play(state, Discard(0, WILD))
    assert reasons(state) == [(0, "wild_discard")]
    state = play(state, Escape(1))
    assert paid(state) == {(1, 2): 10, (1, 3): 10, (1, 0): 10}


def test_escape_during_a_claim_window():
    state = deal([CL_S0, CL_S1, CL_S2, CL_S3])
    state = play(state, discard(0, "5p"), Escape(3))
    assert state.outcome == "escape" and state.wins == []
    assert net(state) == (10, 10, 10, -30)


# --------------------------------------------------------------------------- zero-sum


@pytest.mark.parametrize("seed", range(16))
def test_random_play_is_zero_sum_and_keeps_every_tile(seed):
    rng = random.Random(seed)
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4, streak=seed % 5))
    while state.phase != "ended":
        seat = pending_seats(state)[0]
        actions = legal_actions(state, seat)
        wins = [a for a in actions if isinstance(a, Hu)]
        action = wins[0] if wins and rng.random() < 0.5 else rng.choice(actions)
        state, _ = step(state, action)
        assert tile_census(state) == full_census(R)
    net(state)
