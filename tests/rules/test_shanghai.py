"""上海 Shanghai rules (RULES.md sections 1 and 6), one scenario per rule line.

Every scenario is exact: the helper `deal` gives `arrange` the whole wall, so that the
deal, the front draws, the tail (replacement) draws and every other tile are the ones the
test says. Unless a test says otherwise the dealer is seat 0, the dice are 2 and 3 (no 荒番
from the dice) and the table's 荒番 count is 0, so no payment is doubled.

Numbers asserted are what a player would see: who pays whom, the net points, the specials
named on the win, the actions offered.
"""

from __future__ import annotations

import random
from collections import Counter
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
from app.rules.events import Drew, Flowered, WildTurned
from app.rules.examples.shanghai import example
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.state import NO_WILD, HandState, Meld
from app.rules.tiles import FLOWERS, parse
from app.rules.variants.shanghai import (
    LA_HANDS,
    Shanghai,
    ShanghaiOptions,
    dice_draw_bonus,
)
from tests.rules.script import PASS, T, discard, idle, net, paid, play, play_events, refused

R = Shanghai()

# Quiet hands: three suits, no honour, far from any winning shape (even the plain shapes
# that win in the first go-round). Nobody can claim an honour they throw.
QA = "12358m1369p2478s"
QB = "23469m2478p1358s"
QC = "14679m1358p2368s"

# A plain hand (no special) waiting on 1s / 4s: 123m 456m 789p 11p + 23s.
PLAIN = "123m456m789p11p23s"


# --------------------------------------------------------------------------- helpers


def deal(
    hands: Sequence[str],
    *,
    dealer: int = 0,
    draws: str = "",
    replacements: str = "",
    last: str = "",
    dice: tuple[int, int] = (2, 3),
    draw_bonus: int = 0,
    streak: int = 0,
    ruleset: Shanghai = R,
) -> HandState:
    """A hand whose whole wall is given: the deal, then the front draws `draws`, then every
    other tile (non-flowers in order, the flowers not in the scenario in the middle), then
    `last` (the last tiles the front can reach), and the tail draws `replacements` (the first
    listed is the last tile of the wall)."""
    used = [t for text in [*hands, draws, replacements, last] for t in parse(text)]
    rest = Counter(ruleset.tile_set())
    rest.subtract(used)
    assert all(c >= 0 for c in rest.values()), f"too many copies: {+rest - rest}"
    plain = sorted(t for t in rest.elements() if t not in FLOWERS)
    flowers = sorted(t for t in rest.elements() if t in FLOWERS)
    middle = len(plain) // 2
    filler = plain[:middle] + flowers + plain[middle:] + parse(last)
    preset = arrange(
        ruleset,
        dealer=dealer,
        hands=hands,
        draws=parse(draws) + filler,
        replacements=replacements,
        indicator=None,
        dice=dice,
    )
    ctx = TableContext(dealer=dealer, streak=streak, draw_bonus=draw_bonus)
    state, _ = new_hand(ruleset, 0, ctx, preset)
    assert tile_census(state) == full_census(ruleset)
    return state


def run_to_last_draw(state: HandState) -> HandState:
    """Everybody throws what they draw (and passes every claim) until no normal draw is left."""
    while state.wall.live > 0:
        state = idle(state, 1)
    assert state.phase == "turn"
    return state


def scores(state: HandState) -> list[tuple[int, tuple[str, ...], int]]:
    """Per winner: (seat, specials, what each paying seat pays)."""
    assert state.outcome == "win"
    out = []
    for win in state.wins:
        score = state.ruleset.score(state, win)
        out.append((win.seat, score.specials, score.multiplier))
    return out


# --------------------------------------------------------------------------- tiles and deal


def test_144_tiles_with_eight_flowers_and_no_wild():
    tiles = R.tile_set()
    assert len(tiles) == 144
    assert Counter(tiles) == Counter({**{k: 4 for k in range(34)}, **{f: 1 for f in FLOWERS}})
    assert R.flower_kinds == frozenset(FLOWERS)
    for seed in range(8):
        state, events = new_hand(R, seed, TableContext(dealer=seed % 4))
        assert state.wild == NO_WILD
        assert not any(isinstance(e, WildTurned) for e in events)
        assert tile_census(state) == full_census(R)


def test_hands_13_and_the_dealer_14():
    state = deal([QA + "1z", QB, QC, PLAIN], dealer=0)
    assert [sum(state.concealed[s]) for s in range(4)] == [14, 13, 13, 13]
    state = deal([QA, QB + "1z", QC, PLAIN], dealer=1)
    assert [sum(state.concealed[s]) for s in range(4)] == [13, 14, 13, 13]
    assert (state.phase, state.turn) == ("turn", 1)


def test_flowers_in_the_deal_are_laid_out_and_replaced_from_the_tail_round_after_round():
    # the dealer holds 春 and 梅, seat 2 holds 秋; seat 2's replacement is 竹 (another round)
    s0 = "12358m1369p247s" + "1f5f"
    s2 = "14679m1358p236s" + "3f"
    state, events = new_hand(
        R, 0, TableContext(),
        arrange(R, dealer=0, hands=[s0, QB, s2, PLAIN], replacements="1z2z7f3z", dice=(2, 3)),
    )
    laid = [e for e in events if isinstance(e, (Flowered, Drew))]
    assert laid == [
        Flowered(0, T("1f")), Drew(0, True, T("1z")),
        Flowered(0, T("5f")), Drew(0, True, T("2z")),
        Flowered(2, T("3f")), Drew(2, True, T("7f")),
        Flowered(2, T("7f")), Drew(2, True, T("3z")),
    ]
    assert state.flowers == [[T("1f"), T("5f")], [], [T("3f"), T("7f")], []]
    assert [sum(state.concealed[s]) for s in range(4)] == [14, 13, 13, 13]
    assert state.concealed[0][T("1z")] == state.concealed[0][T("2z")] == 1
    assert state.concealed[2][T("3z")] == 1
    assert tile_census(state) == full_census(R)


def test_a_flower_drawn_in_play_is_laid_out_and_replaced_from_the_tail():
    state = deal([QA + "6z", QB, QC, PLAIN], draws="2f", replacements="4z")
    state = play(state, discard(0, "6z"))
    assert (state.turn, state.drawn, state.from_tail) == (1, T("4z"), True)
    assert state.flowers[1] == [T("2f")]
    assert sum(state.concealed[1]) == 14


# --------------------------------------------------------------------------- only special hands


def test_a_plain_hand_cannot_win_after_the_first_go_round():
    # seat 1 holds 123m 456m 789p 11p 23s; the dealer has drawn again when seat 1 draws 1s
    state = deal([QA + "1z", PLAIN, QB, QC], draws="2z3z4z5z1s")
    state = idle(play(state, discard(0, "1z")), 4)
    assert (state.turn, state.drawn) == (1, T("1s"))
    assert Hu(1) not in legal_actions(state, 1)
    assert refused(state, Hu(1)) == "cannot_win"
    # nor on a discard: the dealer's second discard 4s is offered to seat 1 as a chow only
    state = deal([QA + "1z", PLAIN, QB, QC], draws="2z3z4z4s")
    state = idle(play(state, discard(0, "1z")), 3)
    state = play(state, discard(0, "4s"))
    assert legal_actions(state, 1) == [Chow(1, T("2s")), Pass(1)]


# Special hands the dealer completes after its first discard: 13 tiles, the winning tile,
# the specials and what each paying seat pays. 花: 3 (底注) + concealed honour 刻.
SPECIAL_HANDS = [
    # 清一色: 123 456 789 55 678p (1 喇)
    pytest.param("123456789p55p67p", "8p", ("pure_suit",), 20, id="pure_suit"),
    # 混一色: 123 456 789m 11z 222z; 花 3 + 南 刻 1 = 4, 门清 1 番: 8
    pytest.param("123m456m789m11z22z", "2z", ("mixed_suit", "concealed_hand"), 8,
                 id="mixed_suit"),
    # 碰碰胡: 555m 777m 222p 66s 222z; 花 3 + 南 刻 1 = 4, 门清: 8
    pytest.param("555m777m222p66s22z", "2z", ("all_pungs", "concealed_hand"), 8,
                 id="all_pungs"),
    # 混碰: 222p 444p 777p 111z 22z (1 喇)
    pytest.param("222p444p777p11z22z", "1z", ("mixed_pungs",), 20, id="mixed_pungs"),
    # 清碰: 222p 444p 777p 11p 555p (2 喇)
    pytest.param("222p444p777p11p55p", "5p", ("pure_pungs",), 40, id="pure_pungs"),
    # 字一色: 111z 222z 333z 555z 44z (4 喇)
    pytest.param("111z222z333z44z55z", "5z", ("all_honours",), 80, id="all_honours"),
    # 乱风向: fourteen honours in no shape, seven pairs here (2 喇)
    pytest.param("1234567z123456z", "7z", ("loose_honours",), 40, id="loose_honours"),
]


@pytest.mark.parametrize(("hand", "win", "specials", "value"), SPECIAL_HANDS)
def test_special_hands_win_by_self_draw_each_other_seat_pays(hand, win, specials, value):
    extra = "9m"  # thrown first: no seat can claim it
    state = deal([hand + extra, QA, QB, QC], draws="9s9s9s" + win)
    state = idle(play(state, discard(0, extra)), 3)
    assert (state.turn, state.drawn) == (0, T(win))
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert scores(state) == [(0, specials, value)]
    assert paid(state) == {(1, 0): value, (2, 0): value, (3, 0): value}
    assert net(state) == (3 * value, -value, -value, -value)


@pytest.mark.parametrize(("hand", "win", "specials", "value"), SPECIAL_HANDS)
def test_special_hands_win_on_a_discard_the_discarder_pays(hand, win, specials, value):
    # seat 3 draws the winning tile and throws it
    state = deal([hand + "9m", QA, QB, QC], draws="9s9s" + win)
    state = idle(play(state, discard(0, "9m")), 2)
    state = play(state, Discard(3, T(win)))
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert scores(state) == [(0, specials, value)]
    assert paid(state) == {(3, 0): value}
    assert net(state) == (value, 0, 0, -value)


def test_loose_honours_need_every_tile_an_honour():
    # 13 honours and a suited 1m drawn: no shape, and not all honours
    state = deal(["1234567z123456z9m", QA, QB, QC], draws="9s9s9s1m")
    state = idle(play(state, discard(0, "9m")), 3)
    assert state.drawn == T("1m") and Hu(0) not in legal_actions(state, 0)


def test_all_honours_with_a_pung_meld():
    # seat 1 pungs the dealer's 7z (中), throws 4z and wins 111z 222z 33z 555z + 777z on 5z
    # (thirteen honours win on any honour as 乱风向: seat 1 pungs instead)
    state = deal([QA + "7z", "111z222z33z55z77z4z", QB, QC], draws="5z")
    state = play(state, discard(0, "7z"))
    assert legal_actions(state, 1) == [Hu(1), Pung(1), Pass(1)]
    state = play(state, Pung(1), discard(1, "4z"))
    state = play(state, discard(2, "5z"), Hu(1))
    assert scores(state) == [(1, ("all_honours",), 80)]
    assert paid(state) == {(2, 1): 80}


def test_big_crane_four_melds_and_the_last_tile_paired():
    # seat 1 pungs 4z from the dealer, then 5p, 3z and 7s from seat 2, and wins 8m alone
    s1 = "44z55p77s8m33z1z2z5z6z"
    state = deal([QA + "4z", s1, QB, QC], draws="5p3z7s8m")
    state = play(state, discard(0, "4z"), Pung(1), discard(1, "1z"))
    state = play(state, discard(2, "5p"), Pung(1), discard(1, "2z"))
    state = play(state, discard(2, "3z"), Pung(1), discard(1, "5z"))
    state = play(state, discard(2, "7s"), Pung(1), discard(1, "6z"))
    assert len(state.melds[1]) == 4 and sum(state.concealed[1]) == 1
    state = play(state, discard(2, "8m"))
    assert legal_actions(state, 1)[0] == Hu(1)
    state = play(state, Hu(1))
    assert scores(state) == [(1, ("big_crane",), 20)]
    assert paid(state) == {(2, 1): 20}


def test_big_crane_with_concealed_kongs_by_option():
    # seat 1: concealed kongs of 1z and 2z, pungs of 3z and 9s; the last tile 8m pairs
    # seat 1: a chow of 789s (the dealer's 7s), concealed kongs of 1z and 2z, a pung of 3z;
    # the last tile 8m pairs (a chow: no 碰碰胡, two suits: no 混一色)
    s1 = "1111z2222z33z89s8m"
    for counts, expected in ((True, True), (False, False)):
        rules = Shanghai(options=ShanghaiOptions(big_crane_counts_concealed_kongs=counts))
        state = deal([QA + "7s", s1, QB, QC], draws="3z7z8m",
                     replacements="6z5z", ruleset=rules)
        state = play(state, discard(0, "7s"), Chow(1, T("7s")))
        state = play(state, ConcealedKong(1, T("1z")), discard(1, "6z"))
        state = play(state, discard(2, "3z"), Pung(1), ConcealedKong(1, T("2z")))
        state = play(state, discard(1, "5z"))
        assert len(state.melds[1]) == 4
        state = idle(state, 1)  # seat 2 throws 7z
        state = play(state, discard(3, "8m"))
        assert (Hu(1) in legal_actions(state, 1)) is expected
        if expected:
            state = play(state, Hu(1))
            assert scores(state) == [(1, ("big_crane",), 20)]


def test_heavenly_win_the_dealers_dealt_hand():
    state = deal([PLAIN + "1s", QA, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert scores(state) == [(0, ("heavenly",), 200)]
    assert net(state) == (600, -200, -200, -200)


def test_earthly_win_on_a_non_dealers_first_draw():
    state = deal([QA + "6z", PLAIN, QB, QC], draws="1s")
    state = play(state, discard(0, "6z"))
    assert state.drawn == T("1s") and Hu(1) in legal_actions(state, 1)
    state = play(state, Hu(1))
    assert scores(state) == [(1, ("earthly",), 160)]
    assert net(state) == (-160, 480, -160, -160)


def test_earthly_win_on_the_dealers_first_discard():
    state = deal([QA + "1s", PLAIN, QB, QC])
    state = play(state, discard(0, "1s"))
    assert legal_actions(state, 1)[0] == Hu(1)
    state = play(state, Hu(1))
    assert scores(state) == [(1, ("earthly",), 160)]
    assert paid(state) == {(0, 1): 160}


def test_earthly_win_on_a_later_discard_of_the_first_go_round():
    # seat 1 has already thrown its first draw; seat 3's first discard is still in the round
    state = deal([QA + "6z", PLAIN, QB, QC], draws="2z3z1s")
    state = idle(play(state, discard(0, "6z")), 2)
    state = play(state, discard(3, "1s"), Hu(1))
    assert scores(state) == [(1, ("earthly",), 160)]
    assert paid(state) == {(3, 1): 160}


def test_the_dealer_has_no_earthly_win():
    # the dealer's plain hand completed by seat 1's first discard: no win
    state = deal([PLAIN + "6z", QA, QB, QC], draws="1s")
    state = play(state, discard(0, "6z"), discard(1, "1s"))
    assert (state.phase, state.turn) == ("turn", 2)  # no claim window for the dealer


def test_a_meld_ends_the_first_go_round_by_option():
    # seat 2 pungs the dealer's 6z and throws 1s, which completes seat 1's plain hand
    s2 = "6z6z1s5s23469m2478p"
    state = deal([QA + "6z", PLAIN, s2, QC])
    state = play(state, discard(0, "6z"), Pung(2), discard(2, "1s"))
    assert 1 not in pending_seats(state)  # no 胡 on 1s for seat 1: no 地胡 after a meld
    rules = Shanghai(options=ShanghaiOptions(earthly_ends_on_meld=False))
    state = deal([QA + "6z", PLAIN, s2, QC], ruleset=rules)
    state = play(state, discard(0, "6z"), Pung(2), discard(2, "1s"))
    assert legal_actions(state, 1) == [Hu(1), Pass(1)]
    state = play(state, Hu(1))
    assert scores(state) == [(1, ("earthly",), 160)]
    assert paid(state) == {(2, 1): 160}


def test_kong_win_after_a_concealed_kong_with_a_plain_hand():
    # the dealer declares 9999s at once; the replacement 1s completes 456m 789p 11p 123s
    state = deal(["9999s456m789p11p23s", QA, QB, QC], replacements="1s")
    assert Hu(0) not in legal_actions(state, 0)  # not complete: no 天胡
    state = play(state, ConcealedKong(0, T("9s")))
    assert (state.drawn, state.from_tail) == (T("1s"), True)
    state = play(state, Hu(0))
    # 花 3 + suited 暗杠 2 = 5; 杠开 and 门清: 5 x 4 = 20
    assert scores(state) == [(0, ("kong_win", "concealed_hand"), 20)]
    assert net(state) == (60, -20, -20, -20)


def test_kong_win_after_an_exposed_kong():
    # seat 1 kongs the dealer's 9s (a meld: the first go-round is over) and the replacement
    # 1s completes its plain hand
    state = deal([QA + "9s", "999s456m789p11p23s", QB, QC], replacements="1s")
    state = play(state, discard(0, "9s"))
    assert legal_actions(state, 1) == [Pung(1), ExposedKong(1), Pass(1)]
    state = play(state, ExposedKong(1), Hu(1))
    # 花 3 + suited 明杠 1 = 4; 杠开 (not 门清): 4 x 2 = 8
    assert scores(state) == [(1, ("kong_win",), 8)]
    assert net(state) == (-8, 24, -8, -8)


def test_kong_win_on_the_replacement_for_a_flower():
    # after its first discard the dealer draws 春; the replacement 1s completes its plain hand
    state = deal([PLAIN + "6z", QA, QB, QC], draws="7z7z7z1f", replacements="1s")
    state = idle(play(state, discard(0, "6z")), 3)
    assert (state.drawn, state.from_tail, state.flowers[0]) == (T("1s"), True, [T("1f")])
    state = play(state, Hu(0))
    # 花 3 + 1 flower = 4; 杠开 and 门清: 16
    assert scores(state) == [(0, ("kong_win", "concealed_hand"), 16)]
    assert net(state) == (48, -16, -16, -16)


def test_a_plain_hand_completed_by_a_normal_draw_after_a_kong_does_not_win():
    # the dealer's replacement after 9999s is 7z; it throws 7z, and later draws 1s itself
    state = deal(["9999s456m789p11p23s", QA, QB, QC], draws="6z6z6z1s", replacements="7z")
    state = play(state, ConcealedKong(0, T("9s")), discard(0, "7z"))
    state = idle(state, 3)
    assert (state.drawn, state.from_tail) == (T("1s"), False)
    assert Hu(0) not in legal_actions(state, 0)


# --------------------------------------------------------------------------- 八花


def test_eight_flowers_in_the_dealers_deal_win_at_once():
    s0 = "1234567f8f" + "1359m24p"
    state = deal([s0, QA, QB, QC], replacements="2m4m5m6m7m8p9p7z")
    assert state.phase == "ended" and len(state.flowers[0]) == 8
    assert scores(state) == [(0, ("eight_flowers",), 120)]
    assert net(state) == (360, -120, -120, -120)


def test_eight_flowers_with_a_complete_dealt_hand_count_the_heavenly_win():
    s0 = "12345678f" + "123m456m"
    state = deal([s0, QA, QB, QC], replacements="789p11p23s1s")
    assert scores(state) == [(0, ("heavenly", "eight_flowers"), 200)]
    plain = Shanghai(options=ShanghaiOptions(eight_flowers_counts_the_hand=False))
    state = deal([s0, QA, QB, QC], replacements="789p11p23s1s", ruleset=plain)
    assert scores(state) == [(0, ("eight_flowers",), 120)]


def test_the_eighth_flower_drawn_in_play_wins_at_once():
    # seat 1 lays out seven flowers in the deal and draws 菊 after the dealer's first discard
    s1 = "1234567f" + "1359m24p"
    state = deal([QA + "6z", s1, QB, QC], draws="8f", replacements="2m4m5m6m7m8p9p4z")
    assert state.flowers[1] == parse("1234567f")
    state = play(state, discard(0, "6z"))
    assert state.phase == "ended" and state.wins[0].instant
    assert scores(state) == [(1, ("eight_flowers",), 120)]
    assert net(state) == (-120, 360, -120, -120)


def test_the_eighth_flower_as_the_walls_last_tile_wins_before_the_hand_is_drawn():
    # seat 3 lays out seven flowers in the deal; it draws the last live tile, 9s, declares
    # 9999s, and the replacement is 菊, the wall's last tile: nothing is left to replace it,
    # but 八花 wins at once (RULES.md 6) before the wall's end draws the hand
    s3 = "1234567f" + "999s147m"
    state = deal([QA + "6z", QB, QC, s3], replacements="25m369p14s", last="9s8f")
    assert state.flowers[3] == parse("1234567f")
    state = run_to_last_draw(play(state, discard(0, "6z")))
    assert (state.turn, state.drawn, state.wall.remaining_tiles()) == (3, T("9s"), (T("8f"),))
    state, events = play_events(state, ConcealedKong(3, T("9s")))
    assert state.outcome == "win" and state.wall.remaining == 0
    assert [type(e).__name__ for e in events][:3] == ["Melded", "Drew", "Flowered"]
    win = state.wins[0]
    assert (win.seat, win.self_draw, win.instant, win.tile) == (3, True, True, T("8f"))
    # 八花 is a 6 喇 hand: 6 x 20 = 120 花, paid by each other seat on a self-draw
    assert scores(state) == [(3, ("eight_flowers",), 120)]
    assert paid(state) == {(0, 3): 120, (1, 3): 120, (2, 3): 120}
    assert net(state) == (-120, -120, -120, 360)
    assert R.next_context(state) == TableContext(dealer=3, streak=0, draw_bonus=0)


# --------------------------------------------------------------------------- 一炮多响


def test_several_seats_win_one_discard_each_paid_by_the_discarder():
    # after the first go-round the dealer throws 8p: seat 1 (清一色, 123 456 789 55 678p) and
    # seat 3 (混一色, 678p 111z 222z 333z 44z) both win
    s1 = "123456789p55p67p"
    s3 = "67p111z222z333z44z"
    state = deal([QA + "7z", s1, QB, s3], draws="5z6z7z8p")
    state = idle(play(state, discard(0, "7z")), 3)
    state = play(state, discard(0, "8p"))
    assert Hu(1) in legal_actions(state, 1) and Hu(3) in legal_actions(state, 3)
    state = play(state, Hu(3))
    assert state.phase == "claim"  # seat 1 has not answered
    state = play(state, Hu(1))
    # seat 3: 花 3 + three wind 刻 = 6, 门清: 12
    assert scores(state) == [(1, ("pure_suit",), 20), (3, ("mixed_suit", "concealed_hand"), 12)]
    assert paid(state) == {(0, 1): 20, (0, 3): 12}
    assert net(state) == (-32, 20, 0, 12)
    # the first winner after the discarder deals next
    assert R.next_context(state).dealer == 1


def test_one_of_two_seats_passing_leaves_one_winner():
    s1 = "123456789p55p67p"
    s3 = "67p111z222z333z44z"
    state = deal([QA + "7z", s1, QB, s3], draws="5z6z7z8p")
    state = idle(play(state, discard(0, "7z")), 3)
    state = play(state, discard(0, "8p"), Pass(1), Hu(3))
    assert [w.seat for w in state.wins] == [3]
    assert paid(state) == {(0, 3): 12}
    assert R.next_context(state).dealer == 3


def test_two_earthly_wins_on_the_dealers_first_discard():
    s3 = "234p567p789s99m23s"  # another plain hand waiting on 1s / 4s
    state = deal([QA + "1s", PLAIN, QB, s3])
    state = play(state, discard(0, "1s"), Hu(1), Hu(3))
    assert scores(state) == [(1, ("earthly",), 160), (3, ("earthly",), 160)]
    assert paid(state) == {(0, 1): 160, (0, 3): 160}


# --------------------------------------------------------------------------- 花 and 喇


def test_la_table_matches_the_rule_book():
    assert {name: R.la_of(name) for name, _ in LA_HANDS} == {
        "heavenly": 10,
        "earthly": 8,
        "eight_flowers": 6,
        "all_honours": 4,
        "loose_honours": 2,
        "pure_pungs": 2,
        "pure_suit": 1,
        "mixed_pungs": 1,
        "big_crane": 1,
    }
    assert R.options.la == 20 and R.options.base_flowers == 3


def _meld(kind: str, tile: str) -> Meld:
    t = T(tile)
    size = 4 if "kong" in kind else 3
    claimed = None if kind == "concealed_kong" else t
    return Meld(kind, (t,) * size, t, claimed, None if claimed is None else 0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("melds", "concealed", "flowers", "points"),
    [
        pytest.param([], "", "", 3, id="base_only"),
        pytest.param([], "", "1f5f", 5, id="each_flower_1"),
        pytest.param([("pung", "1z")], "", "", 4, id="wind_pung_1"),
        pytest.param([], "4z4z4z", "", 4, id="concealed_wind_triplet_1"),
        pytest.param([("pung", "6z")], "", "", 5, id="dragon_pung_2"),
        pytest.param([], "5z5z5z", "", 5, id="concealed_dragon_triplet_2"),
        pytest.param([("pung", "5m")], "9p9p9p", "", 3, id="suited_pungs_0"),
        pytest.param([("chow", "1m")], "1z1z", "", 3, id="chow_and_honour_pair_0"),
        pytest.param([("exposed_kong", "5m")], "", "", 4, id="exposed_kong_1"),
        pytest.param([("added_kong", "5m")], "", "", 4, id="added_kong_1"),
        pytest.param([("concealed_kong", "5m")], "", "", 5, id="concealed_kong_2"),
        pytest.param([("exposed_kong", "2z")], "", "", 5, id="wind_exposed_kong_2"),
        pytest.param([("added_kong", "3z")], "", "", 5, id="wind_added_kong_2"),
        pytest.param([("concealed_kong", "4z")], "", "", 6, id="wind_concealed_kong_3"),
        pytest.param([("exposed_kong", "7z")], "", "", 6, id="dragon_exposed_kong_3"),
        pytest.param([("added_kong", "5z")], "", "", 6, id="dragon_added_kong_3"),
        pytest.param([("concealed_kong", "6z")], "", "", 7, id="dragon_concealed_kong_4"),
        pytest.param([("pung", "1z"), ("concealed_kong", "7z"), ("exposed_kong", "9s")],
                     "2z2z2z", "1f2f3f", 3 + 1 + 4 + 1 + 1 + 3, id="together"),
    ],
)
def test_flower_points(melds, concealed, flowers, points):
    state = deal([QA + "9s", QB, QC, PLAIN])
    state.melds[1] = [_meld(kind, tile) for kind, tile in melds]
    state.flowers[1] = parse(flowers)
    counts = [0] * 34
    for t in parse(concealed):
        counts[t] += 1
    assert R.flower_points(state, 1, counts) == points


def test_flowers_melds_and_concealed_honours_add_up_in_a_mixed_suit_win():
    # seat 2 lays out 春 and 梅, pungs the dealer's 中 (2), holds 东 东 东 (1) and wins
    # 234s 678s 111z 55s + 777z on seat 1's 5s: 花 3 + 2 + 2 + 1 = 8, no 番 (not 门清)
    s2 = "234s678s111z77z" + "1f5f"
    state = deal([QA + "7z", QB, s2, QC], draws="3z4z5s", replacements="9s5s")
    state = play(state, discard(0, "7z"), Pung(2), discard(2, "9s"))
    state = idle(state, 2)
    state = play(state, discard(1, "5s"), Hu(2))
    assert scores(state) == [(2, ("mixed_suit",), 8)]
    assert paid(state) == {(1, 2): 8}
    assert R.value(state, state.wins[0]).flowers == 8


def test_la_hand_is_worth_its_highest_la():
    # seat 1 pungs 2p (the dealer's), 4p, 7p and 9p (seat 2's) and wins 3p alone:
    # 清碰 (2 喇) and 大吊车 (1 喇) -> 40
    s1 = "22p44p77p99p3p1z2z4z6z"
    state = deal([QA + "2p", s1, QB, QC], draws="4p7p9p3p")
    state = play(state, discard(0, "2p"), Pung(1), discard(1, "1z"))
    for thrown, honour in (("4p", "2z"), ("7p", "4z"), ("9p", "6z")):
        state = play(state, discard(2, thrown), Pung(1), discard(1, honour))
    state = play(state, discard(2, "3p"), Hu(1))
    assert scores(state) == [(1, ("pure_pungs", "big_crane"), 40)]
    assert paid(state) == {(2, 1): 40}


# Seat 3 waits on 2s / 5s with a 混一色: 34s 555z 666z 777z 11z and 春 夏 laid out:
# 花 3 + 2 flowers + three dragon 刻 (2 each) = 11; 门清: 22, over the cap of 1 喇 (20).
ROB_S2 = "55s23469m2478p1z2z"
ROB_S3 = "34s555z666z777z" + "1f2f"


def robbing_hand(ruleset: Shanghai = R, draw_bonus: int = 0) -> HandState:
    """Seat 2 pungs the dealer's 5s (seat 3 passes) and later draws the fourth 5s."""
    state = deal([QA + "5s", QC, ROB_S2, ROB_S3], draws="3z4z3z5s", replacements="1z1z",
                 draw_bonus=draw_bonus, ruleset=ruleset)
    assert state.flowers[3] == parse("1f2f")
    state = play(state, discard(0, "5s"))
    assert Hu(3) in legal_actions(state, 3)
    state = play(state, Pass(3), Pung(2), discard(2, "2z"))
    state = idle(state, 3)
    assert (state.turn, state.drawn) == (2, T("5s"))
    return state


def test_a_flower_hand_is_capped_at_one_la_by_option():
    state = play(robbing_hand(), discard(2, "5s"), Hu(3))
    value = R.value(state, state.wins[0])
    assert (value.flowers, value.value, value.capped) == (11, 20, True)
    assert scores(state) == [(3, ("mixed_suit", "concealed_hand"), 20)]
    assert paid(state) == {(2, 3): 20}
    uncapped = Shanghai(options=ShanghaiOptions(cap_la=None))
    state = play(robbing_hand(uncapped), discard(2, "5s"), Hu(3))
    assert paid(state) == {(2, 3): 22}


# --------------------------------------------------------------------------- 抢杠


def test_robbing_an_added_kong_the_robbed_seat_pays_three_times():
    state = robbing_hand()
    state = play(state, AddedKong(2, T("5s")))
    assert state.phase == "rob" and legal_actions(state, 3) == [Hu(3), Pass(3)]
    state = play(state, Hu(3))
    # 22 capped to 20, x3
    assert scores(state) == [(3, ("mixed_suit", "concealed_hand", "robbing_kong"), 60)]
    assert paid(state) == {(2, 3): 60}
    assert state.melds[2][0].kind == "pung"  # the kong did not happen


def test_payment_order_value_cap_robbing_then_draw_bonus():
    state = play(robbing_hand(draw_bonus=1), AddedKong(2, T("5s")), Hu(3))
    assert scores(state) == [
        (3, ("mixed_suit", "concealed_hand", "robbing_kong", "draw_bonus"), 120)
    ]
    assert paid(state) == {(2, 3): 120}
    uncapped = Shanghai(options=ShanghaiOptions(cap_la=None))
    state = play(robbing_hand(uncapped, draw_bonus=1), AddedKong(2, T("5s")), Hu(3))
    assert paid(state) == {(2, 3): 22 * 3 * 2}


# --------------------------------------------------------------------------- 荒番


def test_dice_add_to_the_draw_bonus_as_the_source_lists():
    # 1、1 / 4、4: 2; 1、n (n=2~6); 4、n (n=1~3,5,6); 2、2; 3、3; 5、5; 6、6: 1
    ones = {(1, n) for n in range(2, 7)} | {(4, n) for n in (1, 2, 3, 5, 6)}
    ones |= {(2, 2), (3, 3), (5, 5), (6, 6)}
    for a in range(1, 7):
        for b in range(1, 7):
            expected = 2 if (a, b) in ((1, 1), (4, 4)) else int((a, b) in ones or (b, a) in ones)
            assert dice_draw_bonus((a, b)) == expected, (a, b)


def mixed_suit_self_draw(dice: tuple[int, int], draw_bonus: int,
                         ruleset: Shanghai = R) -> HandState:
    """The dealer self-draws 123m 456m 789m 11z 222z (8 before any doubling)."""
    state = deal(["123m456m789m11z22z9m", QA, QB, QC], draws="6z6z6z2z", dice=dice,
                 draw_bonus=draw_bonus, ruleset=ruleset)
    state = idle(play(state, discard(0, "9m")), 3)
    return play(state, Hu(0))


@pytest.mark.parametrize(
    ("dice", "carried", "each", "after"),
    [
        pytest.param((2, 3), 0, 8, 0, id="no_draw_bonus_count_stays_at_0"),
        pytest.param((1, 1), 0, 16, 1, id="dice_1_1_add_2"),
        pytest.param((4, 4), 0, 16, 1, id="dice_4_4_add_2"),
        pytest.param((1, 5), 0, 16, 0, id="a_1_adds_1"),
        pytest.param((6, 4), 0, 16, 0, id="a_4_adds_1"),
        pytest.param((3, 3), 0, 16, 0, id="a_pair_adds_1"),
        pytest.param((2, 3), 1, 16, 0, id="carried_count"),
        pytest.param((2, 3), 3, 16, 2, id="doubles_once_whatever_the_count"),
        pytest.param((1, 1), 3, 16, 4, id="carried_and_dice"),
    ],
)
def test_draw_bonus_doubles_payments_once_and_a_win_lowers_the_count(dice, carried, each,
                                                                     after):
    state = mixed_suit_self_draw(dice, carried)
    assert net(state) == (3 * each, -each, -each, -each)
    assert ("draw_bonus" in scores(state)[0][1]) is (each == 16)
    assert R.next_context(state).draw_bonus == after


def test_the_dice_bonus_is_an_option():
    rules = Shanghai(options=ShanghaiOptions(dice_draw_bonus=False))
    state = mixed_suit_self_draw((1, 1), 0, rules)
    assert net(state) == (24, -8, -8, -8)
    assert rules.next_context(state).draw_bonus == 0


# --------------------------------------------------------------------------- end of the wall

# Every flower is laid out in the deal (so the whole wall is played): seat 1 holds 春夏秋,
# seat 2 冬梅兰, seat 3 竹菊; their replacements make them quiet hands.
EW_S1 = "12358m1369p2s" + "1f2f3f"
EW_S2 = "23469m2478p1s" + "4f5f6f"
EW_S3 = "14679m1358p23s" + "7f8f"
EW_REPLACEMENTS = "4s7s8s" + "3s5s8s" + "6s8s"  # seat 1's three, seat 2's, seat 3's
EW_S0 = "123m456m789m11z77z" + "6z"  # the dealer waits on 1z / 7z (混一色)


def full_wall(*, last: str, dice: tuple[int, int] = (2, 3), draw_bonus: int = 0) -> HandState:
    state = deal([EW_S0, EW_S1, EW_S2, EW_S3], replacements=EW_REPLACEMENTS, last=last,
                 dice=dice, draw_bonus=draw_bonus)
    assert sum(map(len, state.flowers)) == 8 and state.wall.reserve == 0
    return play(state, discard(0, "6z"))


def test_the_last_discard_can_only_be_won_on():
    state = run_to_last_draw(full_wall(last="7z"))
    assert (state.turn, state.drawn, state.wall.remaining) == (3, T("7z"), 0)
    state = play(state, discard(3, "7z"))
    assert legal_actions(state, 0) == [Hu(0), Pass(0)]  # no 碰 on the last discard
    state = play(state, Hu(0))
    # 123m 456m 789m 11z 777z: 花 3 + 中 刻 2 = 5, 门清: 10
    assert scores(state) == [(0, ("mixed_suit", "concealed_hand"), 10)]
    assert paid(state) == {(3, 0): 10}


def test_a_drawn_hand_pays_nothing_keeps_the_dealer_and_raises_the_draw_bonus():
    state = run_to_last_draw(full_wall(last="7z", dice=(1, 4), draw_bonus=2))
    state = play(state, discard(3, "7z"), Pass(0))
    assert state.outcome == "draw"
    assert net(state) == (0, 0, 0, 0)
    # count: 2 carried + 1 for the dice (a 1 and a 4) + 1 for the drawn hand
    assert R.next_context(state) == TableContext(dealer=0, streak=1, draw_bonus=4)


def test_the_tail_guard_option_keeps_more_tiles_while_a_flower_is_in_the_wall():
    # the 8th flower sits at the end of the wall: the front stops with 4 other tiles left
    rules = Shanghai(options=ShanghaiOptions(flower_tail_guard=4))
    s3 = "14679m1358p236s" + "7f"
    state = deal([EW_S0, EW_S1, EW_S2, s3], replacements="4s7s8s3s5s8s8s", last="8f",
                 ruleset=rules)
    assert state.wall.reserve == 1 + 4
    state = run_to_last_draw(play(state, discard(0, "6z")))
    left = state.wall.remaining_tiles()
    assert len(left) == 5 and left[-1] == T("8f")
    state = play(state, Discard(state.turn, state.drawn))
    if state.phase == "claim":
        state = play(state, PASS)
    assert state.outcome == "draw"


def test_a_flower_with_no_replacement_left_ends_the_hand_as_drawn():
    # without the guard the front stops when only the flower 菊 is left; seat 3 draws the
    # last 9s, declares 9999s, and its replacement is 菊: nothing is left to replace it
    rules = Shanghai(options=ShanghaiOptions(flower_tail_guard=0))
    s3 = "14679m1358p999s" + "7f"
    state = deal([EW_S0, EW_S1, EW_S2, s3], replacements="4s7s8s3s5s8s2s", last="9s8f",
                 ruleset=rules)
    state = run_to_last_draw(play(state, discard(0, "6z")))
    assert (state.turn, state.drawn) == (3, T("9s"))
    state = play(state, ConcealedKong(3, T("9s")))
    assert state.outcome == "draw" and T("8f") in state.flowers[3]


# --------------------------------------------------------------------------- dealer


def test_the_winner_deals_next_and_a_drawn_hand_keeps_the_dealer():
    state = mixed_suit_self_draw((2, 3), 0)
    assert R.next_context(state) == TableContext(dealer=0, streak=1, draw_bonus=0)
    state = deal([QA + "6z", PLAIN, QB, QC], dealer=0, streak=2, draws="1s")
    state = play(state, discard(0, "6z"), Hu(1))
    assert R.next_context(state) == TableContext(dealer=1, streak=0, draw_bonus=0)


# --------------------------------------------------------------------------- escape


@pytest.mark.parametrize(
    ("escaper", "expected"),
    [
        (0, {(0, 1): 14, (0, 2): 13, (0, 3): 13}),
        (2, {(2, 3): 14, (2, 0): 13, (2, 1): 13}),
    ],
)
def test_escape_pays_40_shared_by_the_other_three(escaper, expected):
    state = deal([QA + "6z", QB, QC, PLAIN])
    state = play(state, Escape(escaper))
    assert state.outcome == "escape"
    assert paid(state) == expected


def test_escape_is_not_doubled_keeps_the_dealer_and_the_draw_bonus():
    state = deal([QA + "6z", QB, QC, PLAIN], dice=(1, 1), draw_bonus=1, streak=1)
    state = play(state, discard(0, "6z"), Escape(3))
    assert net(state) == (14, 13, 13, -40)
    assert R.next_context(state) == TableContext(dealer=0, streak=2, draw_bonus=3)
    doubled = Shanghai(options=ShanghaiOptions(escape_doubled_by_draw_bonus=True,
                                               escape_keeps_dealer=False,
                                               escape_keeps_draw_bonus=False))
    state = deal([QA + "6z", QB, QC, PLAIN], dice=(1, 1), draw_bonus=1, ruleset=doubled)
    state = play(state, Escape(3))
    assert net(state) == (27, 27, 26, -80)
    assert doubled.next_context(state) == TableContext(dealer=1, streak=0, draw_bonus=4)


# --------------------------------------------------------------------------- worked example


def test_worked_example():
    description, state, _ = example()
    assert "混一色" in description
    assert scores(state) == [(2, ("mixed_suit", "draw_bonus"), 16)]
    assert paid(state) == {(1, 2): 16}
    assert net(state) == (0, -16, 16, 0)
    assert R.next_context(state) == TableContext(dealer=2, streak=0, draw_bonus=0)


# --------------------------------------------------------------------------- self-play


@pytest.mark.parametrize(("bots", "hands", "seed"), [("random", 100, 7), ("greedy", 30, 8)])
def test_self_play_keeps_every_invariant(bots, hands, seed):
    report = selfplay.run("shanghai", hands, seed, bots, check=True, ruleset=R)
    assert report.hands == hands and sum(report.net) == 0


@pytest.mark.parametrize("seed", range(8))
def test_random_play_is_zero_sum_and_keeps_every_tile(seed):
    rng = random.Random(seed)
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4, draw_bonus=seed % 3))
    while state.phase != "ended":
        seat = pending_seats(state)[0]
        actions = legal_actions(state, seat)
        wins = [a for a in actions if isinstance(a, Hu)]
        action = wins[0] if wins and rng.random() < 0.5 else rng.choice(actions)
        state, _ = step(state, action)
        assert tile_census(state) == full_census(R)
    net(state)
