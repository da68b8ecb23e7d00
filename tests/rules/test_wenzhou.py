"""温州 Wenzhou rules (RULES.md sections 1 and 3), one scenario per rule line.

Every scenario is exact: `arrange` builds the wall so that the deal, the draws, the tail
(replacement) draws and the 财神 indicator are the ones written in the test. Unless a test says
otherwise the dealer is seat 0 on a first deal (k = 1, base 2), the dealer declines to buy
(买底), the second roll is 3 + 4 so the 6th tile from the tail (smaller die 3 x 2) is turned,
and that tile is 9s: 9s is the 财神 (3 live copies) and 白板 5z plays as an ordinary 9s.

Numbers asserted are what a player would see: who pays whom, the net points, the specials
named on the win, the actions offered and the codes refused actions get.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from app.rules import selfplay
from app.rules.actions import (
    AddedKong,
    Chow,
    ConcealedKong,
    Decide,
    Discard,
    Escape,
    Hu,
    Pass,
    Pung,
)
from app.rules.context import TableContext
from app.rules.events import Decided, WildTurned
from app.rules.examples.wenzhou import example
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import WHITE, parse, parse_one
from app.rules.variants.wenzhou import SPECIALS, Wenzhou, WenzhouOptions
from app.rules.wall import roll_dice, shuffled
from app.rules.winning import is_standard_win
from tests.rules.script import PASS, T, discard, idle, net, play, refused

R = Wenzhou()
WILD = parse_one("9s")  # the 财神 of the default scenario

# Quiet hands: 16 different suited tiles, no 财神, no 白板, no honour, far from any win and
# without a pair, so they claim no honour and no seat holding them wins in these scenarios.
QA = "12457m12457p124578s"
QB = "235689m23568p23568s"
QC = "13469m134689p13467s"

# A plain 16-tile hand waiting on 5s / 8s (123m 456m 789m 234p 55p + 67s): 硬 (no 财神).
WAIT_5S_8S = "123m456m789m234p55p67s"


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
    buy: bool = False,
    counter: Sequence[int] = (),
    ruleset: Wenzhou = R,
) -> HandState:
    """A hand whose deal, front draws, tail draws and 财神 indicator are exactly these, with
    the 买底 / 顶底 decisions made: the dealer buys or not, then `counter` seats counter."""
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
    if state.phase == "decide":
        state = decide(state, buy, counter)
    assert state.phase == "turn"
    assert tile_census(state) == full_census(ruleset)
    return state


def decide(state: HandState, buy: bool, counter: Sequence[int] = ()) -> HandState:
    dealer = state.dealer
    state, _ = step(state, Decide(dealer, "buy" if buy else "decline"))
    if buy:
        for seat in [(dealer + i) % 4 for i in (1, 2, 3)]:
            state, _ = step(state, Decide(seat, "counter" if seat in counter else "decline"))
    return state


def discards(state: HandState, seat: int) -> list[int]:
    """The tiles the seat may discard now."""
    return sorted(a.tile for a in legal_actions(state, seat) if isinstance(a, Discard))


def paid(state: HandState, reason: str | None = None) -> dict[tuple[int, int], int]:
    """(payer, payee) -> points over the whole settlement (or for one reason)."""
    out: Counter[tuple[int, int]] = Counter()
    assert state.settlement is not None
    for t in state.settlement.transfers:
        if reason is None or t.reason == reason:
            out[(t.payer, t.payee)] += t.points
    return dict(out)


def win_score(state: HandState) -> tuple[tuple[str, ...], int]:
    assert state.outcome == "win" and len(state.wins) == 1
    score = state.ruleset.score(state, state.wins[0])
    return score.specials, score.multiplier


# --------------------------------------------------------------------------- tiles and deal


def test_136_tiles_no_flowers_hands_of_16_and_the_dealer_17():
    assert len(R.tile_set()) == 136 and not R.with_flowers and not R.flower_kinds
    state = deal([QA + "7z", QB, QC, WAIT_5S_8S], dealer=0)
    assert [sum(state.concealed[s]) for s in range(4)] == [17, 16, 16, 16]
    state = deal([QB, QA + "7z", QC, WAIT_5S_8S], dealer=1)
    assert [sum(state.concealed[s]) for s in range(4)] == [16, 17, 16, 16]
    assert state.turn == 1  # the dealer discards first


def test_a_win_is_17_tiles_the_pair_and_five_sets():
    # 123m 456m 789m 234p 55p (牛) 678s: 17 tiles
    counts = [0] * 34
    for t in parse("123m456m789m234p55p678s"):
        counts[t] += 1
    state = deal(["123m456m789m234p55p678s", QA, QB, QC])
    assert R.can_win(state, 0, counts, 0) and Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert len(state.hand_tiles(0)) == 17


# --------------------------------------------------------------------------- the 财神


def test_indicator_is_the_smaller_die_times_two_from_the_tail():
    preset = arrange(R, dealer=0, hands=[QA + "7z", QB, QC, WAIT_5S_8S], indicator="9s",
                     wild_dice=(3, 4))
    assert preset.wall[-6] == WILD
    state, _ = new_hand(R, 0, TableContext(), preset)
    state, events = step(state, Decide(0, "decline"))
    assert (state.wild.wild, state.wild.indicator, state.wild.substitute) == (WILD, WILD, WHITE)
    assert state.wild.dice == (3, 4)
    assert WildTurned((3, 4), WILD, WILD, WHITE) in events
    # the same wall with another second roll turns the (smaller die x 2)-th tile from the tail
    for dice, n in (((1, 1), 2), ((5, 2), 4), ((6, 6), 12), ((4, 6), 8)):
        other, _ = new_hand(R, 0, TableContext(), dataclasses.replace(preset, wild_dice=dice))
        other = decide(other, False)
        assert other.wild.wild == other.wild.indicator == preset.wall[-n]


@pytest.mark.parametrize("seed", range(8))
def test_indicator_of_a_shuffled_hand_comes_from_the_second_roll(seed):
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4))
    state = decide(state, False)
    rng = random.Random(seed)
    roll_dice(rng)
    wall = shuffled(R.tile_set(), rng)
    second = roll_dice(rng)
    assert state.wild.dice == second
    assert state.wild.indicator == wall[-2 * min(second)]
    assert state.wild.substitute == (None if state.wild.indicator == WHITE else WHITE)


def test_wild_has_three_live_copies_and_the_indicator_is_out_of_play():
    state = deal([QA + "7z", QB, QC, WAIT_5S_8S])
    left = state.wall.remaining_tiles()
    assert len(left) == 136 - 65 - 1
    assert left.count(WILD) == 3  # no hand holds a 9s; the 4th is the indicator
    assert tile_census(state) == full_census(R)


def test_wild_cannot_be_discarded():
    state = deal([QA + "9s", QB, QC, WAIT_5S_8S])
    assert WILD not in discards(state, 0)
    assert refused(state, Discard(0, WILD)) == "wild_discard_forbidden"


def test_white_dragon_plays_as_the_face_and_completes_only_as_the_face():
    # 7s + 5z (= 9s) waits on 8s only (as a wild 5z would also take 6s)
    hand = "123m456m789m234p55p7s5z"
    state = deal([QA + "7z", hand, QB, QC], draws="6s")
    state = play(state, discard(0, "7z"))
    assert state.drawn == T("6s") and Hu(1) not in legal_actions(state, 1)
    state = deal([QA + "7z", hand, QB, QC], draws="1z2z3z4z8s")
    state = idle(play(state, discard(0, "7z")), 4)
    assert state.drawn == T("8s") and Hu(1) in legal_actions(state, 1)
    state = play(state, Hu(1))
    assert win_score(state) == (("hard",), 2)  # 白板 is simply a 9s: no 财神 stands in
    assert net(state) == (-4, 12, -4, -4)  # and it earns no 财神分


def test_white_dragon_pung_plays_as_the_face():
    state = deal([QA + "5z", "5z5z" + "235689m2358p2356s", QB, QC])
    state = play(state, discard(0, "5z"))
    assert legal_actions(state, 1) == [Pung(1), Pass(1)]
    state = play(state, Pung(1))
    meld = state.melds[1][0]
    assert (meld.kind, meld.tiles, meld.plays_as) == ("pung", (WHITE,) * 3, WILD)


def test_turned_white_dragon_makes_white_the_wild():
    state = deal([QA + "5z", QB, QC, "9s9s" + "123m456m789m234p4s5s"], indicator="5z")
    assert (state.wild.wild, state.wild.substitute) == (WHITE, None)
    assert state.wall.remaining_tiles().count(WHITE) == 2  # 4 - the indicator - the dealer's
    assert WHITE not in discards(state, 0)  # a 财神 now
    assert refused(state, discard(0, "5z")) == "wild_discard_forbidden"
    # 9s is an ordinary tile: seat 3 may pung it
    state = deal([QA + "9s", QB, QC, "9s9s" + "123m456m789m234p4s5s"], indicator="5z")
    state = play(state, discard(0, "9s"))
    assert legal_actions(state, 3) == [Pung(3), Pass(3)]


# --------------------------------------------------------------------------- the tail reserve


def test_sixteen_tail_tiles_are_kept_for_kong_replacements():
    state = deal([QA + "7z", QB, QC, WAIT_5S_8S])
    assert state.wall.remaining == 70 and state.wall.reserve == 16 and state.wall.live == 54


KONG_DEALER = "1111z12457m12457p24s7z"


def test_a_kong_replacement_comes_from_the_reserve_and_the_live_wall_stays():
    state = deal([KONG_DEALER, QB, QC, WAIT_5S_8S], replacements="3z")
    state = play(state, ConcealedKong(0, T("1z")))
    assert (state.turn, state.drawn, state.from_tail) == (0, T("3z"), True)
    assert (state.wall.remaining, state.wall.reserve, state.wall.live) == (69, 15, 54)


def test_option_a_fixed_reserve_makes_each_kong_shorten_the_live_wall():
    fixed = Wenzhou(options=WenzhouOptions(kongs_use_reserve=False))
    state = deal([KONG_DEALER, QB, QC, WAIT_5S_8S], replacements="3z", ruleset=fixed)
    state = play(state, ConcealedKong(0, T("1z")))
    assert (state.wall.remaining, state.wall.reserve, state.wall.live) == (69, 16, 53)


# Every live tile is laid out. The three live 财神 sit in seats 1 and 2 (they are never drawn),
# seat 3 waits on 1z / 2z, and the last live tile (the 54th draw, seat 2's) is a 1z.
EW_S0 = QA + "7z"
EW_S1 = "235689m23568p2356s9s"
EW_S2 = "13469m134689p134s9s9s"
EW_S3 = "123m456m789m123p11z22z"


def full_wall(last: str = "1z", ruleset: Wenzhou = R) -> HandState:
    hands = [EW_S0, EW_S1, EW_S2, EW_S3]
    rest = Counter(ruleset.tile_set())
    rest.subtract(t for h in hands for t in parse(h))
    rest.subtract([WILD, T(last)])
    assert all(c >= 0 for c in rest.values()) and rest[WILD] == 0
    ordered = sorted(rest.elements())
    spread = [t for offset in range(5) for t in ordered[offset::5]]
    return deal(hands, draws=spread[:53] + [T(last)], ruleset=ruleset)


def run_to_last_draw(state: HandState) -> HandState:
    while state.wall.live > 0:
        state = idle(state, 1)
    assert state.phase == "turn"
    return state


def test_the_last_discard_can_only_be_won_on():
    state = run_to_last_draw(play(full_wall(), discard(0, "7z")))
    assert (state.turn, state.drawn, state.wall.remaining) == (2, T("1z"), 16)
    assert sum(state.draws) == 54
    state = play(state, discard(2, "1z"))
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]  # no 碰 on the last discard
    state = play(state, Hu(3))
    assert win_score(state) == (("hard",), 2)
    # the dealer 2 x 2, seat 1 2 x 2, seat 2 (放冲) 2 x 2 x 2; then 财神分 (seat 1 holds one
    # 财神, seat 2 two): each earns 1 per 财神 from each other seat, net
    assert paid(state, "win") == {(0, 3): 4, (1, 3): 4}
    assert paid(state, "deal_in") == {(2, 3): 8}
    assert paid(state, "wild_bonus") == {(0, 1): 1, (0, 2): 2, (1, 2): 1, (3, 1): 1, (3, 2): 2}
    assert net(state) == (-4 - 3, -4 + 1, -8 + 5, 16 - 3)


def test_an_exhausted_wall_is_a_draw_paying_only_the_wild_bonus():
    state = run_to_last_draw(play(full_wall(), discard(0, "7z")))
    state = play(state, discard(2, "1z"), Pass(3))
    assert state.outcome == "draw"
    assert {t.reason for t in state.settlement.transfers} == {"wild_bonus"}
    assert net(state) == (-3, 1, 5, -3)
    assert R.next_context(state) == TableContext(dealer=0, streak=1)


# --------------------------------------------------------------------------- 出牌先出风字


def test_a_single_honour_must_be_discarded_first():
    state = deal([QA + "1z", QB, QC, WAIT_5S_8S])
    assert discards(state, 0) == [T("1z")]
    assert refused(state, discard(0, "1m")) == "discard_restricted"


def test_with_several_single_honours_any_of_them():
    state = deal(["1245m12457p124578s1z3z", QB, QC, WAIT_5S_8S])
    assert discards(state, 0) == [T("1z"), T("3z")]


def test_pairs_and_more_of_an_honour_may_be_kept():
    for honours in ("11z", "111z"):
        suited = parse("12457m12457p124578s")[: 17 - len(parse(honours))]
        state = deal([suited + parse(honours), QB, QC, WAIT_5S_8S])
        assert discards(state, 0) == sorted(set(suited + parse(honours)))


def test_the_latest_discard_if_held_singly_must_follow():
    # seat 1 holds 2z and 3z singly; the dealer throws 2z: seat 1 must throw its 2z
    state = deal([QA + "2z", "235689m23568p236s2z3z", QC, WAIT_5S_8S], draws="4s")
    state = play(state, discard(0, "2z"))
    assert state.turn == 1 and discards(state, 1) == [T("2z")]
    assert refused(state, discard(1, "3z")) == "discard_restricted"
    # the latest discard is an honour seat 1 does not hold: any of its single honours
    state = deal([QA + "6z", "235689m23568p236s2z3z", QC, WAIT_5S_8S], draws="4s")
    state = play(state, discard(0, "6z"))
    assert discards(state, 1) == [T("2z"), T("3z")]


def test_following_is_an_option():
    loose = Wenzhou(options=WenzhouOptions(follow_latest_honour=False))
    state = deal([QA + "2z", "235689m23568p236s2z3z", QC, WAIT_5S_8S], draws="4s", ruleset=loose)
    state = play(state, discard(0, "2z"))
    assert discards(state, 1) == [T("2z"), T("3z")]


def test_the_wild_and_the_white_dragon_are_exempt():
    # a single 白板 (playing as 9s) does not have to go first
    state = deal([QA + "5z", QB, QC, WAIT_5S_8S])
    assert discards(state, 0) == sorted(set(parse(QA + "5z")))
    # with 1z the 财神, a single 1z is a 财神: never discarded, never forcing
    state = deal([QA + "1z", QB, QC, WAIT_5S_8S], indicator="1z")
    assert discards(state, 0) == sorted(set(parse(QA)))
    # with 5z the 财神, a single 5z neither
    state = deal([QA + "5z", QB, QC, WAIT_5S_8S], indicator="5z")
    assert discards(state, 0) == sorted(set(parse(QA)))


def test_honours_first_can_be_switched_off():
    free = Wenzhou(options=WenzhouOptions(honours_first=False))
    state = deal([QA + "1z", QB, QC, WAIT_5S_8S], ruleset=free)
    assert discards(state, 0) == sorted(set(parse(QA + "1z")))


# --------------------------------------------------------------------------- multipliers


def test_multiplier_table_matches_the_rule_book():
    assert SPECIALS == {
        "hard": 2,
        "soft_eight_pairs": 2,
        "hard_eight_pairs": 4,
        "three_wilds": 4,
        "heavenly": 4,
        "earthly": 4,
        "single_wait": 4,
    }
    assert WenzhouOptions().three_wilds_any_shape_multiplier == 2


def self_draw_by_seat_1(hand: str, tile: str, **kw) -> HandState:
    """Seat 1 holds `hand`; the dealer throws 7z, seat 1 throws its first draw (1z), seats 2,
    3 and the dealer throw 2z, 3z, 4z, and seat 1 draws `tile` (not its first draw)."""
    state = deal([QA + "7z", hand, QB, QC], draws="1z2z3z4z" + tile, **kw)
    state = idle(play(state, discard(0, "7z")), 4)
    assert state.turn == 1 and state.drawn == T(tile)
    return state


def test_soft_win_a_wild_stands_in_for_another_tile_x1():
    # 6s + 财神 + 7s: the 财神 is a 5s or an 8s
    state = play(self_draw_by_seat_1("123m456m789m234p55p6s9s", "7s"), Hu(1))
    assert win_score(state) == ((), 1)
    # base 2 from each; 财神分: seat 1's 财神 earns 1 from each
    assert paid(state, "win") == {(0, 1): 2, (2, 1): 2, (3, 1): 2}
    assert net(state) == (-3, 9, -3, -3)


def test_hard_win_no_wild_x2():
    state = play(self_draw_by_seat_1(WAIT_5S_8S, "8s"), Hu(1))
    assert win_score(state) == (("hard",), 2)
    assert net(state) == (-4, 12, -4, -4)


def test_hard_win_with_the_wild_as_its_own_face_x2():
    # 7s 8s + 财神 as a 9s: 789s, no 财神 stands in for another tile
    state = play(self_draw_by_seat_1("123m456m789m234p55p7s9s", "8s"), Hu(1))
    assert win_score(state) == (("hard",), 2)
    assert net(state) == (-5, 15, -5, -5)
    # the same hand completed by a 6s: 678s with the 财神 as an 8s: soft
    state = play(self_draw_by_seat_1("123m456m789m234p55p7s9s", "6s"), Hu(1))
    assert win_score(state) == ((), 1)


EIGHT_PAIRS_WAIT = "11m44m77m22p55p88p33s6s9m"  # seven pairs + 6s + 9m: waits 6s / 9m


def test_eight_pairs_wins_and_hard_eight_pairs_is_x4():
    state = self_draw_by_seat_1(EIGHT_PAIRS_WAIT, "9m")
    counts, wilds = state.effective(1)
    assert not is_standard_win(counts, wilds)
    state = play(state, Hu(1))
    assert win_score(state) == (("hard_eight_pairs",), 4)
    assert net(state) == (-8, 24, -8, -8)


def test_soft_eight_pairs_on_a_discard_x2():
    # 3s + 财神 make the seventh pair; the dealer throws 9m
    state = deal([QA + "9m", "11m44m77m22p55p88p3s9s6s9m", QB, QC])
    state = play(state, discard(0, "9m"))
    assert legal_actions(state, 1) == [Hu(1), Pass(1)]
    state = play(state, Hu(1))
    assert win_score(state) == (("soft_eight_pairs",), 2)
    # the dealer (放冲) 2 x 2 x 2, the others 2 x 2; 财神分 1 from each
    assert paid(state, "deal_in") == {(0, 1): 8}
    assert paid(state, "win") == {(2, 1): 4, (3, 1): 4}
    assert net(state) == (-9, 19, -5, -5)


def test_eight_pairs_with_the_wild_as_odd_tile_is_soft_unless_the_option_says_otherwise():
    hand = "11m44m77m22p55p88p33s66s"  # eight pairs: any tile is the odd one

    def wild_drawn(ruleset: Wenzhou) -> HandState:
        # seat 1 could win on every tile; it passes them all until it draws a 财神
        state = deal([QA + "7z", hand, QB, QC], draws="1z2z3z4z9s", ruleset=ruleset)
        state = play(state, discard(0, "7z"), PASS)
        assert Hu(1) in legal_actions(state, 1)
        state = idle(state, 4)
        assert state.turn == 1 and state.drawn == WILD
        return play(state, Hu(1))

    assert win_score(wild_drawn(R)) == (("soft_eight_pairs",), 2)
    face = Wenzhou(options=WenzhouOptions(hard_eight_pairs_wild_as_face=True))
    assert win_score(wild_drawn(face)) == (("hard_eight_pairs",), 4)


def test_three_wilds_win_with_any_shape_on_ones_own_turn_x2():
    hand = "9s9s" + "235689m2356p2356s"  # two 财神 and nothing near a win
    state = self_draw_by_seat_1(hand, "9s")
    counts, wilds = state.effective(1)
    assert wilds == 3 and not is_standard_win(counts, wilds)
    assert Hu(1) in legal_actions(state, 1)
    state = play(state, Hu(1))
    assert win_score(state) == (("three_wilds_any_shape",), 2)
    # 2 x 2 from each, and 3 财神 earn 3 from each
    assert net(state) == (-7, 21, -7, -7)


THREE_WILDS_HAND = "9s9s9s" + "23569m2356p2356s"  # three 财神 and no shape


def test_three_wilds_without_a_shape_is_not_won_on_a_discard():
    state = deal([QA + "7z", QB, THREE_WILDS_HAND, QC], draws="1z2z")
    state = play(state, discard(0, "7z"))
    assert state.phase == "turn" and state.turn == 1  # no claim window for seat 2
    state = idle(state, 1)
    assert state.turn == 2 and Hu(2) in legal_actions(state, 2)
    anywhere = Wenzhou(options=WenzhouOptions(three_wilds_own_turn_only=False))
    state = deal([QA + "7z", QB, THREE_WILDS_HAND, QC], ruleset=anywhere)
    state = play(state, discard(0, "7z"))
    assert legal_actions(state, 2) == [Hu(2), Pass(2)]


def test_three_wilds_with_a_standard_shape_x4():
    # 123m 456m 789m 234p + three 财神 + 5p: waits 5p (also on a discard: a real shape)
    state = deal([QA + "9m", QB, "123m456m789m234p9s9s9s5p", QC])
    state = play(state, discard(0, "5p"))
    assert Hu(2) in legal_actions(state, 2)
    state = play(state, Hu(2))
    assert win_score(state) == (("three_wilds", "hard"), 4)
    # the dealer (放冲) 2 x 4 x 2, the others 2 x 4; 财神分 3 from each
    assert paid(state, "deal_in") == {(0, 2): 16}
    assert paid(state, "win") == {(1, 2): 8, (3, 2): 8}
    assert net(state) == (-19, -11, 41, -11)


def test_heavenly_win_x4_the_highest_applies():
    state = deal(["123m456m789m234p55p678s", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert win_score(state) == (("heavenly", "hard"), 4)  # not 4 + 2
    assert net(state) == (24, -8, -8, -8)


def test_earthly_win_x4():
    state = deal([QA + "7z", WAIT_5S_8S, QB, QC], streak=1, draws="5s")
    state = play(state, discard(0, "7z"))
    assert state.drawn == T("5s")
    state = play(state, Hu(1))
    assert win_score(state) == (("earthly", "hard"), 4)
    # k = 2: the dealer 4 x 4, the other non-dealers 2 x 4
    assert net(state) == (-16, 32, -8, -8)


def test_winning_later_is_not_earthly():
    state = play(self_draw_by_seat_1(WAIT_5S_8S, "5s"), Hu(1))
    assert win_score(state) == (("hard",), 2)


# The dealer (seat 3) feeds seat 2 five pungs; seat 2 is left with 8p alone (单吊).
SW_DEALER = QC + "1z"
SW_SEAT2 = "11z22z33z44z66z7z7m8m7p9p8p"


def test_single_wait_after_five_melds_x4():
    state = deal([QA, QB, SW_SEAT2, SW_DEALER], dealer=3, draws="2z3z4z6z8p")
    state = play(state, discard(3, "1z"), Pung(2))
    assert discards(state, 2) == [T("7z")]  # the rule holds after a claim too
    state = play(state, discard(2, "7z"))
    for honour, thrown in (("2z", "7m"), ("3z", "8m"), ("4z", "7p"), ("6z", "9p")):
        assert state.turn == 3 and state.drawn == T(honour)
        state = play(state, discard(3, honour), Pung(2), discard(2, thrown))
        if state.phase == "claim":
            state = play(state, PASS)
    assert len(state.melds[2]) == 5 and state.hand_tiles(2) == [T("8p")]
    state = play(state, discard(3, "8p"), Hu(2))
    assert win_score(state) == (("single_wait", "hard"), 4)
    # the dealer (放冲) 2 x 4 x 2; seats 0 and 1 2 x 4
    assert paid(state) == {(3, 2): 16, (0, 2): 8, (1, 2): 8}


# --------------------------------------------------------------------------- base and k


@pytest.mark.parametrize(("streak", "k"), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 4), (9, 4)])
def test_deal_count_and_base(streak, k):
    ctx = TableContext(dealer=2, streak=streak)
    assert R.deal_count(ctx) == k
    assert R.base(ctx, 2, 0) == R.base(ctx, 1, 2) == 2 * k
    assert R.base(ctx, 0, 1) == R.base(ctx, 3, 0) == 2


DEALER_WAIT = WAIT_5S_8S + "7z"


@pytest.mark.parametrize(("streak", "share"), [(0, 4), (2, 12)])
def test_dealer_self_draw_each_non_dealer_pays_2k_times_multiplier(streak, share):
    state = deal([DEALER_WAIT, QA, QB, QC], streak=streak, draws="1z2z3z5s")
    state = play(idle(play(state, discard(0, "7z")), 3), Hu(0))
    assert win_score(state) == (("hard",), 2)
    assert net(state) == (3 * share, -share, -share, -share)


def test_non_dealer_self_draw_pays_2k_from_the_dealer_and_2_from_the_others():
    state = self_draw_by_seat_1(WAIT_5S_8S, "8s", streak=2)
    state = play(state, Hu(1))
    assert paid(state) == {(0, 1): 12, (2, 1): 4, (3, 1): 4}


def test_the_discarder_pays_double():
    # seat 2 throws the 8s it draws; seat 1 wins: seat 2 pays 2 x 2 x 2
    state = deal([QA + "7z", WAIT_5S_8S, QC, QB], streak=1, draws="1z8s")
    state = play(state, discard(0, "7z"))
    state = idle(state, 1)
    state = play(state, discard(2, "8s"))
    assert Hu(1) in legal_actions(state, 1)
    state = play(state, Hu(1))
    assert paid(state) == {(0, 1): 8, (2, 1): 8, (3, 1): 4}
    # the dealer deals in: 2k x 2 x 2
    state = deal([QA + "9m", WAIT_5S_8S, QB, QC], streak=1)
    state = play(state, discard(0, "5s"), Hu(1))
    assert paid(state) == {(0, 1): 16, (2, 1): 4, (3, 1): 4}


# --------------------------------------------------------------------------- 买底 / 顶底


def test_the_dealer_decides_first_then_every_non_dealer():
    preset = arrange(R, dealer=1, hands=[QB, QA + "7z", QC, WAIT_5S_8S], indicator="9s",
                     wild_dice=(3, 4))
    state, _ = new_hand(R, 0, TableContext(dealer=1), preset)
    assert state.phase == "decide" and pending_seats(state) == [1]
    assert legal_actions(state, 1) == [Decide(1, "buy"), Decide(1, "decline")]
    assert legal_actions(state, 0) == []
    assert refused(state, Decide(0, "counter")) == "not_your_turn"
    assert refused(state, Decide(1, "counter")) == "not_offered"
    assert refused(state, discard(1, "7z")) == "not_offered"
    declined, events = step(state, Decide(1, "decline"))
    assert declined.phase == "turn" and declined.turn == 1  # dealt at once
    assert Decided(1, "decline") in events
    state, _ = step(state, Decide(1, "buy"))
    assert state.phase == "decide" and pending_seats(state) == [0, 2, 3]
    assert legal_actions(state, 2) == [Decide(2, "counter"), Decide(2, "decline")]
    assert refused(state, Decide(2, "buy")) == "not_offered"
    assert refused(state, Decide(1, "buy")) == "not_your_turn"
    state = play(state, Decide(3, "counter"), Decide(0, "decline"))
    assert pending_seats(state) == [2]
    state = play(state, Decide(2, "decline"))
    assert state.phase == "turn" and state.decisions == {1: "buy", 3: "counter", 0: "decline",
                                                          2: "decline"}


def test_no_buy_in_when_switched_off():
    plain = Wenzhou(options=WenzhouOptions(buy_in=False))
    preset = arrange(plain, dealer=0, hands=[QA + "7z", QB, QC, WAIT_5S_8S], indicator="9s",
                     wild_dice=(3, 4))
    state, _ = new_hand(plain, 0, TableContext(), preset)
    assert state.phase == "turn" and pending_seats(state) == [0]


@pytest.mark.parametrize(("streak", "share"), [(0, 8), (1, 16)])
def test_dealer_wins_after_buying_every_non_dealer_adds_2k(streak, share):
    # (2k + 2k) x 2 from each non-dealer, countered or not
    state = deal([DEALER_WAIT, QA, QB, QC], streak=streak, draws="1z2z3z5s", buy=True,
                 counter=[2])
    state = play(idle(play(state, discard(0, "7z")), 3), Hu(0))
    assert net(state) == (3 * share, -share, -share, -share)


def test_dealer_wins_on_a_discard_after_buying():
    state = deal([DEALER_WAIT, QA, QB, QC], draws="1z2z8s", buy=True)
    state = idle(play(state, discard(0, "7z")), 2)
    state = play(state, discard(3, "8s"), Hu(0))
    # seat 3 deals in: (2 + 2) x 2 x 2; the others (2 + 2) x 2
    assert paid(state) == {(1, 0): 8, (2, 0): 8, (3, 0): 16}


def test_countering_non_dealer_wins_the_dealer_adds_4k():
    state = deal([QA + "9m", WAIT_5S_8S, QB, QC], buy=True, counter=[1])
    state = play(state, discard(0, "5s"), Hu(1))
    # the dealer deals in: (4 + 2) x 2 x 2; the others 2 x 2
    assert paid(state) == {(0, 1): 24, (2, 1): 4, (3, 1): 4}


def test_a_non_dealer_who_did_not_counter_collects_no_counter_amount():
    state = deal([QA + "9m", WAIT_5S_8S, QB, QC], buy=True, counter=[2])
    state = play(state, discard(0, "5s"), Hu(1))
    assert paid(state) == {(0, 1): 8, (2, 1): 4, (3, 1): 4}
    # and without a buy nobody can counter: the plain amounts
    state = deal([QA + "9m", WAIT_5S_8S, QB, QC])
    state = play(state, discard(0, "5s"), Hu(1))
    assert paid(state) == {(0, 1): 8, (2, 1): 4, (3, 1): 4}


def test_example_e():
    # k = 2 (base 4); the dealer bought; seat 1 (A) countered (顶底 8) and self-draws a
    # standard shape with no 财神 in any hand: 硬 x2
    state = self_draw_by_seat_1(WAIT_5S_8S, "8s", streak=1, buy=True, counter=[1])
    state = play(state, Hu(1))
    assert win_score(state) == (("hard",), 2)
    assert paid(state) == {(0, 1): 24, (2, 1): 4, (3, 1): 4}
    assert net(state) == (-24, 32, -4, -4)


def test_the_example_module_shows_example_e():
    description, state, _ = example()
    assert description.startswith("Example E")
    assert state.settlement is not None
    assert state.settlement.net() == (-24, 32, -4, -4)
    assert paid(state) == {(0, 1): 24, (2, 1): 4, (3, 1): 4}


# --------------------------------------------------------------------------- 抢杠

# The dealer throws 3p: seat 2 pungs it (seat 3, waiting on 3p, passes), later draws the
# fourth 3p and adds it; seat 3 robs the kong.
RK_S1 = "235689m25689p23568s"
RK_S2 = "13469m1334689p1346s"
RK_S3 = "123m456m789m678s55s12p"


def robbed(ruleset: Wenzhou = R) -> HandState:
    state = deal([QA + "3p", RK_S1, RK_S2, RK_S3], draws="1z2z3z3p", ruleset=ruleset)
    state = play(state, discard(0, "3p"))
    assert legal_actions(state, 3) == [Hu(3), Pass(3)]
    state = play(state, Pass(3), Pung(2), discard(2, "1s"))
    state = idle(state, 3)
    assert state.turn == 2 and state.drawn == T("3p")
    state = play(state, AddedKong(2, T("3p")))
    assert state.phase == "rob" and legal_actions(state, 3) == [Hu(3), Pass(3)]
    return play(state, Hu(3))


def test_robbing_a_kong_the_robbed_seat_pays_as_the_discarder():
    state = robbed()
    assert state.wins[0].robbed_kong and win_score(state) == (("hard",), 2)
    assert paid(state) == {(0, 3): 4, (1, 3): 4, (2, 3): 8}
    assert state.melds[2][0].kind == "pung"  # the kong did not happen
    plain = robbed(Wenzhou(options=WenzhouOptions(robbed_pays_as_discarder=False)))
    assert paid(plain) == {(0, 3): 4, (1, 3): 4, (2, 3): 4}


# --------------------------------------------------------------------------- claims


def test_first_in_turn_wins_when_two_seats_can_win():
    s1 = "123m345m678m567s99m45p"  # waits 3p / 6p
    state = deal([QA + "3p", s1, QC, RK_S3])
    state = play(state, discard(0, "3p"))
    assert Hu(1) in legal_actions(state, 1) and Hu(3) in legal_actions(state, 3)
    state = play(state, Hu(3))
    assert state.phase == "claim"  # seat 1, nearer the discarder, has not answered
    state = play(state, Hu(1))
    assert [w.seat for w in state.wins] == [1]


def test_chow_by_the_next_seat_only_and_pung_beats_it():
    # the dealer throws 3s: seat 1 (next) holds 2s 4s, seat 2 holds 3s 3s
    state = deal([QA + "3s", "235689m1235689p2s4s7s", "13469m134689p133s6s8s", QC])
    state = play(state, discard(0, "3s"))
    assert Chow(1, T("2s")) in legal_actions(state, 1) and Pung(2) in legal_actions(state, 2)
    assert not any(isinstance(a, Chow) for a in legal_actions(state, 2))
    state = play(state, Chow(1, T("2s")))
    assert state.phase == "claim"
    state = play(state, Pung(2))
    assert [m.kind for m in state.melds[2]] == ["pung"] and state.melds[1] == []


# --------------------------------------------------------------------------- 财神分


def test_wild_bonus_is_net_between_seats_after_a_win():
    # seat 2 holds two 财神, seat 3 one; seat 1 wins (hard, no 财神 of its own)
    s2 = "9s9s" + "235689m2356p2356s"
    s3 = "9s" + "13469m134689p1346s"
    state = deal([QA + "7z", WAIT_5S_8S, s2, s3], draws="1z2z3z4z8s")
    state = play(idle(play(state, discard(0, "7z")), 4), Hu(1))
    assert paid(state, "wild_bonus") == {(0, 2): 2, (1, 2): 2, (3, 2): 1, (0, 3): 1, (1, 3): 1}
    assert net(state) == (-4 - 3, 12 - 3, -4 + 5, -4 + 1)


# --------------------------------------------------------------------------- escape


@pytest.mark.parametrize(
    ("buy", "counter", "escaper", "streak", "expected"),
    [
        # no buy: base 2k x 10, shared by the other three, the remainder from the escaper's
        # next seat on
        (False, (), 1, 0, {(1, 2): 7, (1, 3): 7, (1, 0): 6}),
        (False, (), 0, 1, {(0, 1): 14, (0, 2): 13, (0, 3): 13}),
        # the dealer bought: a non-dealer is party to the buy (2k)
        (True, (), 2, 0, {(2, 3): 14, (2, 0): 13, (2, 1): 13}),
        # a countering non-dealer to its counter (4k): (8 + 4) x 10 at k = 2
        (True, (2,), 2, 1, {(2, 3): 40, (2, 0): 40, (2, 1): 40}),
        # the dealer: to the buy, or to a counter if any
        (True, (), 0, 0, {(0, 1): 14, (0, 2): 13, (0, 3): 13}),
        (True, (3,), 0, 0, {(0, 1): 20, (0, 2): 20, (0, 3): 20}),
    ],
)
def test_escape_pays_the_stake_plus_base_times_ten(buy, counter, escaper, streak, expected):
    state = deal([QA + "7z", QB, QC, WAIT_5S_8S], streak=streak, buy=buy, counter=counter)
    state = play(state, Escape(escaper))
    assert state.outcome == "escape" and paid(state) == expected


def test_escape_before_the_deal():
    preset = arrange(R, dealer=0, hands=[QA + "7z", QB, QC, WAIT_5S_8S], indicator="9s",
                     wild_dice=(3, 4))
    state, _ = new_hand(R, 0, TableContext(), preset)
    state = play(state, Decide(0, "buy"), Decide(1, "counter"), Escape(1))
    assert paid(state) == {(1, 2): 20, (1, 3): 20, (1, 0): 20}


def test_escape_the_others_collect_their_wild_bonus_the_escaper_none():
    s1 = "9s" + "235689m23568p2356s"  # seat 1 holds a 财神
    s2 = "9s9s" + "13469m1346p13467s"  # seat 2 holds two
    state = deal([QA + "7z", s1, s2, WAIT_5S_8S])
    state = play(state, Escape(2))
    assert paid(state, "escape") == {(2, 3): 7, (2, 0): 7, (2, 1): 6}
    # seat 1's 财神 earns 1 from each other seat, the escaper included; seat 2's earn nothing
    assert paid(state, "wild_bonus") == {(0, 1): 1, (2, 1): 1, (3, 1): 1}
    assert net(state) == (7 - 1, 6 + 3, -20 - 1, 7 - 1)


# --------------------------------------------------------------------------- the deal


def test_dealer_win_keeps_the_deal_and_counts_up_to_four():
    state = deal([DEALER_WAIT, QA, QB, QC], streak=3, draws="1z2z3z5s")
    state = play(idle(play(state, discard(0, "7z")), 3), Hu(0))
    assert net(state) == (48, -16, -16, -16)  # k = 4: 8 x 2
    nxt = R.next_context(state)
    assert nxt == TableContext(dealer=0, streak=4) and R.deal_count(nxt) == 4


def test_another_seat_wins_the_next_seat_deals_with_k_1():
    state = play(self_draw_by_seat_1(WAIT_5S_8S, "8s", streak=2), Hu(1))
    assert R.next_context(state) == TableContext(dealer=1, streak=0)
    state = deal([QB, QA, QC, DEALER_WAIT], dealer=3, streak=1)
    state = play(state, Escape(3))
    assert R.next_context(state) == TableContext(dealer=0, streak=0)


# --------------------------------------------------------------------------- self-play


def test_self_play_keeps_every_invariant():
    report = selfplay.run("wenzhou", 100, 7, "random", check=True, ruleset=R)
    assert report.hands == 100
    report = selfplay.run("wenzhou", 30, 7, "greedy", check=True, ruleset=R)
    assert report.hands == 30 and report.wins > 0
