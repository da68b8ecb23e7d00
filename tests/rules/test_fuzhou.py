"""福州 Fuzhou rules (RULES.md sections 1 and 5), one scenario per rule line.

Every scenario is exact: `arrange` builds the wall so that the deal, the 补花 replacements, the
turned 金, the front draws and the later tail draws are the ones written in the test. Unless a
test says otherwise the dealer is seat 0, the 金 is 9s (the first tail tile after 补花: three
live copies), the base is 1 and the dealer has no streak (c = 0).

`deal(hands, flowers=...)` takes each seat's hand as it is after 补花 and the flowers it is
dealt: the flowers replace the last tiles of the written hand in the deal, and those tiles come
back as the 补花 replacements from the tail. A winner without any flower and without a kong
has 平胡 (scored as 抢金, 30 x base), so plain wins below give the winner a flower.

Numbers asserted are what a player would see: who pays whom, the net points, the special
named on the win, the actions offered, the refusal codes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

import pytest

from app.rules import selfplay
from app.rules.actions import (
    Action,
    AddedKong,
    ConcealedKong,
    Discard,
    Escape,
    ExposedKong,
    Hu,
    Pass,
    Pung,
    Special,
)
from app.rules.context import TableContext
from app.rules.events import Discarded, Drew, ExhaustiveDraw, Flowered, GoldRobbed, WildTurned
from app.rules.examples.fuzhou import example
from app.rules.explain import explain_win
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.scoring import Score
from app.rules.state import HandState, RiverTile
from app.rules.tiles import counts_of, full_set, parse, parse_one
from app.rules.variants.fuzhou import Fuzhou, FuzhouOptions
from app.rules.winning import winning_tiles
from tests.rules.script import PASS, T, discard, idle, net, play, refused

R = Fuzhou()
GOLD = parse_one("9s")

# Quiet hands: suited tiles only, no pair, no 9s, far from any win (向听 3 or more); together
# they hold at most two copies of any kind. Nobody holding them can win in these scenarios.
QA = "13679m134679p23578s"
QB = "124578m14689p23467s"
QC = "2345689m23578p1458s"
QC2 = "2345689m3578p14568s"  # QC without 2p
QD = QA + "2p"  # the dealer's quiet hand: 2p is its first discard

# A hand waiting on 5m / 8m: 123m 67m 456p 789p 234s 55s.
W1 = "12367m456789p23455s"
# The same with the pair made of two 金 (金雀).
GP = "12367m456789p234s99s"
# Waiting on 5m / 8m as well: 111p 234p 345m 678s 99m 67m.
W2 = "111p234p345m678s99m67m"
# A complete 17-tile hand: 123m 456p 789p 234s 567s 55m.
H0 = "123m456p789p234s567s55m"


# --------------------------------------------------------------------------- helpers


def deal(
    hands: Sequence[str],
    *,
    flowers: Sequence[str] = ("", "", "", ""),
    draws: str | Sequence[int] = "",
    gold: str = "9s",
    tail: str = "",
    dealer: int = 0,
    streak: int = 0,
    ruleset: Fuzhou = R,
) -> HandState:
    """A hand whose deal, 补花, 金 and draws are exactly these (see the module docstring)."""
    dealt: list[list[int]] = []
    removed: dict[int, list[int]] = {}
    for seat in range(4):
        tiles, laid = parse(hands[seat]), parse(flowers[seat])
        cut = len(tiles) - len(laid)
        removed[seat] = tiles[cut:]
        dealt.append(tiles[:cut] + laid)
    order = [(dealer + i) % 4 for i in range(4)]
    replacements = [t for s in order for t in removed[s]] + parse(gold) + parse(tail)
    preset = arrange(
        ruleset,
        dealer=dealer,
        hands=dealt,
        draws=parse(draws) if isinstance(draws, str) else list(draws),
        replacements=replacements,
        indicator=None,
    )
    state, _ = new_hand(ruleset, 0, TableContext(dealer=dealer, streak=streak), preset)
    assert tile_census(state) == full_census(ruleset)
    if state.phase != "ended":
        for seat in range(4):
            assert state.concealed[seat] == counts_of(parse(hands[seat])) + [0] * 8
    return state


def play_events(state: HandState, *actions: Action) -> tuple[HandState, list]:
    events: list = []
    for action in actions:
        state, more = step(state, action)
        events += more
        assert tile_census(state) == full_census(state.ruleset)
    return state, events


def rob(seat: int, tile: str) -> Special:
    return Special(seat, "rob_gold", T(tile))


def paid(state: HandState) -> dict[tuple[int, int, str], int]:
    """(payer, payee, reason) -> points over the whole settlement."""
    out: Counter[tuple[int, int, str]] = Counter()
    assert state.settlement is not None
    for t in state.settlement.transfers:
        out[(t.payer, t.payee, t.reason)] += t.points
    return dict(out)


def win_score(state: HandState) -> Score:
    assert state.outcome == "win" and len(state.wins) == 1
    return state.ruleset.score(state, state.wins[0])


def specials_offered(state: HandState, seat: int) -> list[Action]:
    return [a for a in legal_actions(state, seat) if isinstance(a, Special)]


# --------------------------------------------------------------------------- tiles and deal


def test_the_set_has_144_tiles_and_every_honour_and_flower_is_a_flower():
    assert sorted(R.tile_set()) == sorted(full_set(with_flowers=True))
    assert len(R.tile_set()) == 144
    assert R.flower_kinds == frozenset(parse("1234567z12345678f"))
    assert (R.hand_size, R.final_round, R.multi_win, R.allow_chow) == (16, 4, False, True)


@pytest.mark.parametrize("seed", range(12))
def test_hands_hold_16_tiles_the_dealer_17_and_never_a_flower(seed):
    state, _ = new_hand(R, seed, TableContext(dealer=seed % 4))
    assert tile_census(state) == full_census(R)
    for seat in range(4):
        assert not any(state.concealed[seat][27:])
        assert all(t >= 27 for t in state.flowers[seat])
        if state.phase != "ended":  # (三金倒 in the deal ends the hand at once)
            assert sum(state.concealed[seat]) == (17 if seat == state.dealer else 16)


def test_bu_hua_goes_round_after_round_from_the_dealer():
    # The dealer is dealt 5z and 1f: 5z is replaced by 8s, 1f by 2f, itself a flower, which
    # waits for the second round. Seat 1 lays 3z, seat 2 lays 4f; seat 3 has none.
    dealt = [parse(QD)[:-2] + parse("5z1f"), parse(QB)[:-1] + parse("3z"),
             parse(QC)[:-1] + parse("4f"), parse(W1)]
    preset = arrange(R, dealer=0, hands=dealt, replacements=parse("8s2f7s8s2p9s"),
                     indicator=None)
    state, events = new_hand(R, 0, TableContext(), preset)
    bu_hua = [e for e in events if isinstance(e, (Flowered, Drew, WildTurned))]
    assert bu_hua == [
        Flowered(0, T("5z")), Drew(0, True, T("8s")),
        Flowered(0, T("1f")), Drew(0, True, T("2f")),
        Flowered(1, T("3z")), Drew(1, True, T("7s")),
        Flowered(2, T("4f")), Drew(2, True, T("8s")),
        Flowered(0, T("2f")), Drew(0, True, T("2p")),  # the second round
        WildTurned(None, GOLD, GOLD, None),
    ]
    assert state.flowers == [parse("5z1f2f"), parse("3z"), parse("4f"), []]
    for seat, hand in enumerate([QD, QB, QC, W1]):
        assert state.concealed[seat][:34] == counts_of(parse(hand))


def test_a_flower_drawn_in_play_is_laid_out_and_replaced_from_the_tail_at_once():
    state = deal([QD, QB, QC, W1], draws="6f", tail="1s")
    state, events = play_events(state, discard(0, "2p"))
    assert events[-3:] == [Drew(1, False, T("6f")), Flowered(1, T("6f")), Drew(1, True, T("1s"))]
    assert state.flowers[1] == [T("6f")]
    assert (state.turn, state.drawn, state.from_tail) == (1, T("1s"), True)
    assert state.wall.reserve == 18


def test_the_gold_is_the_next_tail_tile_after_bu_hua_and_stays_on_show():
    state = deal([QD, QB, QC, W1], flowers=("1f", "", "2z", ""))
    assert (state.wild.wild, state.wild.indicator, state.wild.substitute) == (GOLD, GOLD, None)
    # three live copies: the turned one is out of the wall and out of every hand
    live = sum(t == GOLD for t in state.wall.remaining_tiles())
    assert live + sum(state.concealed[s][GOLD] for s in range(4)) == 3
    assert state.wall.tiles[state.wall.tail] == GOLD  # just past the tail: never drawn
    assert state.plays_as(GOLD) is None


def test_a_flower_turned_for_the_gold_goes_to_the_dealer_and_the_next_is_turned():
    state, events = new_hand(R, 0, TableContext(dealer=2), arrange(
        R, dealer=2, hands=[QB, QC, QD, W1], replacements=parse("3f6z9s"), indicator=None))
    assert state.flowers == [[], [], parse("3f6z"), []]
    assert events[-3:] == [Flowered(2, T("3f")), Flowered(2, T("6z")),
                           WildTurned(None, GOLD, GOLD, None)]
    assert state.wild.indicator == GOLD and sum(state.concealed[2]) == 17


def test_a_discarded_gold_is_dead_and_may_be_forbidden_by_option():
    state = deal([QA + "9s", QB, QC, W1], draws="1s")
    state = play(state, Discard(0, GOLD))
    assert state.phase == "turn" and state.turn == 1  # no claim of any kind on it
    strict = Fuzhou(options=FuzhouOptions(gold_discard_allowed=False))
    state = deal([QA + "9s", QB, QC, W1], ruleset=strict)
    assert refused(state, Discard(0, GOLD)) == "wild_discard_forbidden"


# --------------------------------------------------------------------------- reserve


def test_the_reserve_is_18_tiles_after_the_deal():
    state = deal([QD, QB, QC, W1])
    assert (state.wall.reserve, state.wall.remaining, state.wall.live) == (18, 78, 60)
    state = deal([QD, QB, QC, W1], flowers=("1z", "2z3z", "", ""))
    assert (state.wall.reserve, state.wall.live) == (18, 57)


@pytest.mark.parametrize(
    ("flowers", "reserve"),
    [
        (("1234f", "", "", ""), 20),  # 春夏秋冬
        (("", "5678f", "", ""), 20),  # 梅兰竹菊
        (("", "", "5z5z5z5z", ""), 20),  # four 白
        (("1234f", "5678f", "1z1z1z1z", ""), 24),
        (("1z1z1z", "1z", "123f", "4f"), 18),  # four alike, but not on one seat's table
    ],
)
def test_each_set_of_four_like_flowers_keeps_two_more_tiles(flowers, reserve):
    state = deal([QD, QB, QC, W1], flowers=flowers)
    assert state.wall.reserve == reserve == R.reserve(state)


# Kong scenarios. Seat 0 holds four 2p and throws 1p; seat 2 holds three 1p.
K0 = "2222p13679m134p23568s"
K2 = "111p2345689m3578p14s"
QE = "124578m34689p23467s"  # QB without 1p
# Seat 2 holds 55p and pungs the dealer's 5p; seat 3 waits on 5p (46p).
P2 = "55p2345689m378p1458s"
R3 = "46p123m789m234s678s11s"


def test_a_concealed_kong_keeps_two_more_tiles_an_exposed_kong_one():
    state = deal([K0, W1, K2, QE], tail="1s6s")
    state = play(state, ConcealedKong(0, T("2p")))
    assert state.wall.reserve == 20 == R.reserve(state) and state.drawn == T("1s")
    state = play(state, discard(0, "1p"), ExposedKong(2))
    assert state.wall.reserve == 21 == R.reserve(state) and state.drawn == T("6s")


def added_kong(tail: str = "") -> HandState:
    """Seat 2 pungs the dealer's 5p (seat 3 passes its 胡 on it), throws 8s, and three turns
    later draws the fourth 5p and adds it to the pung: seat 3 may rob it."""
    state = deal([QA + "5p", QB, P2, R3], flowers=("", "", "", "1f"), draws="9m3m5s5p",
                 tail=tail)
    state = play(state, discard(0, "5p"), Pass(3), Pung(2), discard(2, "8s"), PASS)
    state = idle(state, 3)
    assert state.turn == 2 and state.drawn == T("5p")
    return play(state, AddedKong(2, T("5p")))


def test_an_added_kong_keeps_one_more_tile():
    state = added_kong(tail="6s")
    assert state.phase == "rob" and pending_seats(state) == [3]
    state = play(state, Pass(3))
    assert state.melds[2][0].kind == "added_kong"
    assert state.wall.reserve == 19 == R.reserve(state) and state.drawn == T("6s")


# --------------------------------------------------------------------------- final round


def full_wall(final: str, *, winner_hand: str = W1) -> HandState:
    """Every live tile specified: seats 0-3 hold QD, QB, QC and `winner_hand` after 补花 and
    each is dealt six different honours (24 flowers, no four alike), so 36 tiles are live
    (144 - 65 dealt - 24 replacements - the 金 - 18 kept). The first 32 front draws are suited
    tiles that nobody can win with; `final` are the last four, drawn by seats 1, 2, 3, 0."""
    honours = parse("1234567z")
    flowers = ["".join(f"{t - 26}z" for t in honours if t != honours[s]) for s in range(4)]
    hands = [QD, QB, QC, winner_hand]
    rest = Counter(full_set(with_flowers=True))
    rest.subtract(t for h in hands for t in parse(h))
    rest.subtract(t for f in flowers for t in parse(f))
    rest.subtract([GOLD, *parse(final)])
    assert all(c >= 0 for c in rest.values())
    avoid = set(winning_tiles(counts_of(parse(winner_hand)), 0)) | {GOLD}
    early = [t for t in sorted(rest.elements()) if t < 27 and t not in avoid]
    early = [t for offset in range(3) for t in early[offset::3]][:32]
    assert len(early) == 32
    return deal(hands, flowers=flowers, draws=early + parse(final))


def test_the_last_four_tiles_are_the_final_round_and_a_winning_draw_wins_at_once():
    state = full_wall("8f1s5m2m")
    assert (state.wall.reserve, state.wall.live) == (18, 36)
    state = play(state, discard(0, "2p"))
    state = idle(state, 31)
    assert state.wall.live == 4  # the 32nd draw is in seat 0's hand
    state, events = play_events(state, Discard(state.turn, state.drawn))  # the 32nd draw
    if state.phase == "claim":
        state, more = play_events(state, *[Pass(s) for s in pending_seats(state)])
        events += more
    # seat 1 draws 8f: laid out, no replacement; seat 2 draws 1s: no discard; seat 3 draws
    # 5m and wins by 自摸 at once
    assert [e for e in events if isinstance(e, (Drew, Flowered, Discarded))][-4:] == [
        Drew(1, False, T("8f")), Flowered(1, T("8f")), Drew(2, False, T("1s")),
        Drew(3, False, T("5m")),
    ]
    assert state.outcome == "win" and state.wins[0].seat == 3 and state.wins[0].self_draw
    assert state.flowers[1][-1] == T("8f") and state.concealed[2][T("1s")] == 2  # kept
    # 花分 6 (six flowers): each other seat pays 2 x (1 + 6)
    assert net(state) == (-14, -14, -14, 42)


def test_when_no_final_draw_wins_the_hand_is_drawn_and_nobody_pays():
    state = full_wall("8f1s2m3m")
    state = play(state, discard(0, "2p"))
    state = idle(state, 31)
    river = len(state.river)
    state, events = play_events(state, Discard(state.turn, state.drawn))  # the 32nd draw
    if state.phase == "claim":
        state, more = play_events(state, *[Pass(s) for s in pending_seats(state)])
        events += more
    assert state.outcome == "draw" and state.wins == [] and isinstance(events[-2], ExhaustiveDraw)
    assert [e for e in events if isinstance(e, Drew)] == [
        Drew(1, False, T("8f")), Drew(2, False, T("1s")), Drew(3, False, T("2m")),
        Drew(0, False, T("3m")),
    ]
    assert len(state.river) == river + 1  # no discard in the final round
    assert (state.wall.live, state.wall.remaining) == (0, 18)
    assert state.settlement is not None and state.settlement.transfers == ()
    assert R.next_context(state) == TableContext(dealer=1, streak=0)


# --------------------------------------------------------------------------- plain wins


def test_a_plain_win_on_a_discard_the_discarder_alone_pays_twice_base_plus_flowers():
    state = deal([QA + "8m", QB, W1, QC], flowers=("", "", "1f5z", ""))
    state = play(state, discard(0, "8m"), Hu(2))
    assert win_score(state) == Score((), 1)
    assert paid(state) == {(0, 2, "deal_in"): 6}  # 2 x (1 + 2)
    assert net(state) == (-6, 0, 6, 0)
    assert sum(state.concealed[2]) == 17  # a win is 17 tiles


def test_a_plain_self_draw_each_other_seat_pays_twice_base_plus_flowers():
    state = deal([QD, W1, QB, QC], flowers=("", "3z", "", ""), draws="5m")
    state = play(state, discard(0, "2p"), Hu(1))
    assert win_score(state) == Score((), 1)
    assert net(state) == (-4, 12, -4, -4)  # 2 x (1 + 1) each


def test_example_d_three_flowers_and_a_concealed_kong_self_drawn_each_pays_12():
    description, state, events = example()
    assert "Example D" in description
    assert state.outcome == "win" and state.wins[0].seat == 1 and state.wins[0].self_draw
    assert len(state.flowers[1]) == 3 and [m.kind for m in state.melds[1]] == ["concealed_kong"]
    assert state.concealed[1][GOLD] == 0
    assert R.flower_points(state, state.wins[0]) == 5
    assert paid(state) == {(0, 1, "win"): 12, (2, 1, "win"): 12, (3, 1, "win"): 12}
    assert net(state) == (-12, 36, -12, -12)
    assert state.settlement is not None and events[-1].net == state.settlement.net()


# --------------------------------------------------------------------------- 花分


@pytest.mark.parametrize(
    ("flowers", "points"),
    [
        ("1z", 1),
        ("1z2z3z", 3),
        ("1f2f3f5f", 4),  # four flowers, but not a set
        ("1234f", 6),  # 春夏秋冬
        ("1234f5f", 7),
        ("5678f1z", 7),  # 梅兰竹菊
        ("1z1z1z1z", 6),  # four 东
        ("7z7z7z7z1234f", 12),
    ],
)
def test_flower_points_each_flower_one_four_like_ones_six(flowers, points):
    state = deal([QA + "8m", QB, W1, QC], flowers=("", "", flowers, ""))
    state = play(state, discard(0, "8m"), Hu(2))
    assert R.flower_points(state, state.wins[0]) == points
    assert net(state) == (-2 * (1 + points), 0, 2 * (1 + points), 0)


def test_each_gold_held_counts_one_flower_point():
    # 123m 67m 456p 789p 234s 5s + a 金 for the pair's second 5s
    state = deal([QA + "8m", QB, "12367m456789p2345s9s", QC], flowers=("", "", "1f", ""))
    state = play(state, discard(0, "8m"), Hu(2))
    assert R.flower_points(state, state.wins[0]) == 2
    assert net(state) == (-6, 0, 6, 0)


def test_an_exposed_kong_counts_one_flower_point():
    # Seat 2 holds 222p, takes the dealer's 2p as an exposed kong, later self-draws 6s.
    e2 = "222p123m456m789m55s78s"
    state = deal([QA + "2p", QB, e2, QC2], flowers=("", "", "1f", ""), draws="1p3p5p6s",
                 tail="1s")
    state = play(state, discard(0, "2p"), ExposedKong(2), discard(2, "1s"))
    state = idle(state, 3)
    state = play(state, Hu(2))
    assert R.flower_points(state, state.wins[0]) == 2  # a flower and a 明杠
    assert net(state) == (-6, -6, 18, -6)  # 2 x (1 + 2) each


# --------------------------------------------------------------------------- 三金倒


def test_three_golds_win_at_once_when_the_third_is_drawn():
    state = deal([QD, "124578m14689p234s99s", QC, W1], draws="9s")
    state = play(state, discard(0, "2p"))
    assert state.outcome == "win" and state.phase == "ended"
    win = state.wins[0]
    assert (win.seat, win.self_draw, win.instant, win.tile) == (1, True, True, GOLD)
    # 三金倒 40 beats 平胡 30; 花分 3 (three 金): each pays 40 + 2 x 3
    assert win_score(state) == Score(("three_golds",), 40)
    assert net(state) == (-46, 138, -46, -46)


def test_three_golds_in_the_dealt_hand_win_before_the_first_discard():
    state = deal([QD, QB, "2345689m23578p1s999s", W1], flowers=("", "", "6f", ""))
    assert state.phase == "ended" and state.wins[0].seat == 2
    assert state.wins[0].dealt_hand and state.wins[0].instant
    assert win_score(state) == Score(("three_golds",), 40)
    assert net(state) == (-48, -48, 144, -48)  # 40 + 2 x (1 flower + 3 金) each


# --------------------------------------------------------------------------- 抢金


def test_rob_gold_the_dealers_dealt_hand_is_complete_heavenly():
    state = deal([H0, QB, QC, QA], flowers=("1f", "", "", ""))
    assert Hu(0) in legal_actions(state, 0)
    state = play(state, Hu(0))
    assert state.wins[0].dealt_hand and state.wins[0].tile is None
    assert win_score(state) == Score(("rob_gold",), 30)
    assert net(state) == (96, -32, -32, -32)  # 30 + 2 x 1 each


def test_rob_gold_the_dealer_swaps_a_tile_for_the_turned_gold():
    state = deal([W1 + "1s", QB, QC, QA], flowers=("2f", "", "", ""))
    # 1s or 4s can go: the rest plus the 金 is complete
    assert specials_offered(state, 0) == [rob(0, "1s"), rob(0, "4s")]
    state, events = play_events(state, rob(0, "1s"))
    assert events[:2] == [Discarded(0, T("1s"), False), GoldRobbed(0, GOLD)]
    assert state.river == [RiverTile(0, T("1s"))]
    assert state.wild.indicator is None and state.concealed[0][GOLD] == 1
    win = state.wins[0]
    assert (win.seat, win.self_draw, win.special, win.tile) == (0, True, "rob_gold", GOLD)
    assert win_score(state) == Score(("rob_gold",), 30)
    assert net(state) == (102, -34, -34, -34)  # 30 + 2 x (1 flower + 1 金)


def test_rob_gold_a_non_dealer_on_its_first_turn_puts_out_its_draw_for_the_gold():
    state = deal([QD, W1, QB, QC], flowers=("", "3f", "", ""), draws="1s")
    state = play(state, discard(0, "2p"))
    assert specials_offered(state, 1) == [rob(1, "1s")]
    assert refused(state, rob(1, "4s")) == "not_offered"
    state = play(state, rob(1, "1s"))
    assert state.river[-1] == RiverTile(1, T("1s"))
    assert win_score(state) == Score(("rob_gold",), 30)
    assert net(state) == (-34, 102, -34, -34)  # 抢金 counts as 自摸


def test_rob_gold_any_tile_option_lets_a_non_dealer_put_out_any_tile():
    anyone = Fuzhou(options=FuzhouOptions(rob_gold_non_dealer_puts_out="any"))
    state = deal([QD, W1, QB, QC], flowers=("", "3f", "", ""), draws="1s", ruleset=anyone)
    state = play(state, discard(0, "2p"))
    assert specials_offered(state, 1) == [rob(1, "1s"), rob(1, "4s")]


def test_rob_gold_is_not_offered_after_the_first_turn():
    state = deal([QD, W1, QB, QC], flowers=("", "3f", "", ""), draws="6s1p3p5p6s")
    state = play(state, discard(0, "2p"))
    assert specials_offered(state, 1) == [rob(1, "6s")]
    state = idle(state, 4)
    assert state.turn == 1 and state.drawn == T("6s")
    assert specials_offered(state, 1) == []
    assert refused(state, rob(1, "6s")) == "not_offered"


def test_rob_gold_is_not_offered_to_the_dealer_after_a_kong():
    k0 = "2222p12367m456789p55s"  # with the 金: 2222p as a kong, 123m 67m+金 ... complete
    state = deal([k0, QB, QC2, QA], tail="1s")
    assert specials_offered(state, 0) != []
    state = play(state, ConcealedKong(0, T("2p")))
    assert specials_offered(state, 0) == []


def test_rob_gold_is_not_offered_after_a_claim():
    # Seat 1 pungs the dealer's first discard: its first turn comes with a meld.
    state = deal([QD, "22p12367m456789p234s", QB, QC])
    state = play(state, discard(0, "2p"), Pung(1))
    assert state.turn == 1 and specials_offered(state, 1) == []


def test_rob_gold_with_two_golds_held_needs_the_standard_shape_by_default():
    two = "124578m14689p234s99s"  # two 金 in a hand far from complete
    state = deal([QD, two, QC, W1], draws="1s")
    state = play(state, discard(0, "2p"))
    assert specials_offered(state, 1) == []
    thrice = Fuzhou(options=FuzhouOptions(rob_gold_three_golds=True))
    state = deal([QD, two, QC, W1], draws="1s", ruleset=thrice)
    state = play(state, discard(0, "2p"), rob(1, "1s"))
    assert win_score(state) == Score(("three_golds",), 40)


def test_rob_gold_when_dealer_and_non_dealer_both_can_the_non_dealer_counts():
    state = deal([W1 + "1s", QB, W2, QC])
    state, events = play_events(state, rob(0, "1s"))
    assert events[:2] == [Discarded(0, T("1s"), False), GoldRobbed(2, GOLD)]
    win = state.wins[0]
    assert (win.seat, win.special, win.self_draw) == (2, "rob_gold", True)
    assert state.concealed[2][GOLD] == 1 and state.concealed[0][GOLD] == 0
    assert state.river == [RiverTile(0, T("1s"))]
    assert net(state) == (-32, -32, 96, -32)  # 30 + 2 x 1 (the 金) each


def test_rob_gold_a_heavenly_dealer_keeps_it_over_a_non_dealer():
    state = deal([H0, W1, QB, QC])
    assert Hu(0) in legal_actions(state, 0)
    won = play(state, Hu(0))
    assert won.wins[0].seat == 0 and win_score(won) == Score(("rob_gold",), 30)
    assert net(won) == (90, -30, -30, -30)
    robbed = play(state, rob(0, "1m"))
    assert robbed.wins[0].seat == 0 and net(robbed) == (96, -32, -32, -32)


# --------------------------------------------------------------------------- 平胡


def test_flowerless_win_on_a_discard_is_scored_as_rob_gold():
    state = deal([QA + "8m", QB, W1, QC])
    state = play(state, discard(0, "8m"), Hu(2))
    assert win_score(state) == Score(("flowerless",), 30)
    assert net(state) == (-60, 0, 60, 0)  # 2 x 30


def test_flowerless_self_draw_each_pays_the_special():
    state = deal([QD, QB, W1, QC], draws="1s5m")
    state = play(state, discard(0, "2p"), discard(1, "1s"), PASS)  # seat 2 may chow the 1s
    state = play(state, Hu(2))
    assert win_score(state) == Score(("flowerless",), 30)
    assert net(state) == (-30, -30, 90, -30)


def test_a_gold_held_adds_to_a_flowerless_win():
    state = deal([QA + "8m", QB, "12367m456789p2345s9s", QC])
    state = play(state, discard(0, "8m"), Hu(2))
    assert win_score(state) == Score(("flowerless",), 30)
    assert net(state) == (-64, 0, 64, 0)  # 2 x (30 + 2 x 1)


def test_a_kong_spoils_flowerless():
    e2 = "222p123m456m789m55s78s"
    state = deal([QA + "2p", QB, e2, QC2], draws="1p3p5p6s", tail="1s")
    state = play(state, discard(0, "2p"), ExposedKong(2), discard(2, "1s"))
    state = play(idle(state, 3), Hu(2))
    assert win_score(state) == Score((), 1)
    assert net(state) == (-4, -4, 12, -4)  # 2 x (1 + 1 明杠)


# --------------------------------------------------------------------------- 金雀


def test_golden_pair_sixty_times_base_on_a_discard_and_the_loss_cap():
    hands = [QA + "8m", QB, GP, QC]
    flowers = ("", "", "1f", "")
    uncapped = Fuzhou(options=FuzhouOptions(loss_cap_multiple=None))
    state = play(deal(hands, flowers=flowers, ruleset=uncapped), discard(0, "8m"), Hu(2))
    assert win_score(state) == Score(("golden_pair",), 60)
    assert net(state) == (-132, 0, 132, 0)  # 2 x (60 + 2 x (1 flower + 2 金))
    state = play(deal(hands, flowers=flowers), discard(0, "8m"), Hu(2))
    assert net(state) == (-100, 0, 100, 0)  # 封顶: 100 x base


def test_golden_pair_self_drawn_each_pays_sixty_plus_twice_the_flowers():
    state = deal([QD, GP, QB, QC], flowers=("", "1f", "", ""), draws="5m")
    state = play(state, discard(0, "2p"))
    assert Hu(1) in legal_actions(state, 1)  # two 金 win on 2p too (2p + 金 as the pair)
    state = play(state, PASS, Hu(1))
    assert win_score(state) == Score(("golden_pair",), 60)  # not 60 + 30 for 平胡 too
    assert net(state) == (-66, 198, -66, -66)


def test_golden_pair_beats_a_nearer_seat_on_the_same_discard():
    hands = [QA + "8m", W1, QB, GP]
    state = play(deal(hands, flowers=("", "1f", "", "")), discard(0, "8m"))
    assert {1, 3} <= set(pending_seats(state))
    state = play(state, Hu(1))
    assert state.phase == "claim" and 3 in pending_seats(state)  # waits for the 金雀
    won = play(state, Hu(3))
    assert won.wins[0].seat == 3 and win_score(won) == Score(("golden_pair",), 60)
    assert net(won) == (-100, 0, 0, 100)  # 2 x (60 + 2 x 2), capped at 100
    passed = play(state, Pass(3))
    assert passed.wins[0].seat == 1 and net(passed) == (-4, 4, 0, 0)


def test_the_highest_special_applies_only():
    # 金雀 with no flower and no kong is also 平胡: only the 60 counts
    state = deal([QA + "8m", QB, GP, QC], ruleset=Fuzhou(options=FuzhouOptions(
        loss_cap_multiple=None)))
    state = play(state, discard(0, "8m"), Hu(2))
    assert win_score(state) == Score(("golden_pair",), 60)
    assert R.specials(state, state.wins[0]) == {"golden_pair": 60, "flowerless": 30}
    assert net(state) == (-128, 0, 128, 0)


# --------------------------------------------------------------------------- 抢杠


def test_robbing_an_added_kong_the_robbed_seat_pays_twice_the_value():
    state = play(added_kong(), Hu(3))
    assert state.wins[0].robbed_kong and state.wins[0].from_seat == 2
    assert state.melds[2][0].kind == "pung"  # the kong did not happen
    assert net(state) == (0, 0, -4, 4)  # 2 x (1 + 1)


# --------------------------------------------------------------------------- 连庄


def test_a_dealer_on_a_streak_collects_on_base_plus_streak():
    state = deal([W1 + "2p", QB, QC, QA], flowers=("1f", "", "", ""), draws="1s6s5p5m",
                 streak=2)
    state = play(state, discard(0, "2p"))
    state = play(idle(state, 3), Hu(0))
    assert net(state) == (24, -8, -8, -8)  # 2 x (1 + 2 + 1) each
    assert R.next_context(state) == TableContext(dealer=0, streak=3)


def test_a_non_dealer_self_draw_against_a_streak_catches_the_dealer():
    state = deal([QD, W1, QB, QC], flowers=("", "1f", "", ""), draws="5m", streak=2)
    state = play(state, discard(0, "2p"), Hu(1))
    # the dealer: 2 x (1 + 2 + 1) + 2 (抓庄); the others 2 x (1 + 1)
    assert paid(state) == {
        (0, 1, "win"): 8, (0, 1, "catch_dealer"): 2, (2, 1, "win"): 4, (3, 1, "win"): 4,
    }
    assert net(state) == (-10, 18, -4, -4)
    assert R.next_context(state) == TableContext(dealer=1, streak=0)


def test_the_dealer_pays_the_catch_even_when_another_seat_dealt_in():
    state = deal([QD, QB, QC, W1], flowers=("", "", "", "1f"), draws="8m", streak=2)
    state = play(state, discard(0, "2p"), discard(1, "8m"), Hu(3))
    assert paid(state) == {(1, 3, "deal_in"): 4, (0, 3, "catch_dealer"): 2}
    assert net(state) == (-2, -4, 0, 6)


def test_the_dealer_dealing_in_on_a_streak():
    state = deal([QA + "8m", QB, W1, QC], flowers=("", "", "1f", ""), streak=2)
    state = play(state, discard(0, "8m"), Hu(2))
    assert net(state) == (-10, 0, 10, 0)  # 2 x (1 + 2 + 1) + 2


def test_specials_on_a_streak_use_base_plus_streak_with_the_dealer():
    state = play(deal([H0, QB, QC, QA], flowers=("1f", "", "", ""), streak=1), Hu(0))
    assert net(state) == (186, -62, -62, -62)  # 30 x 2 + 2 x 1 each
    state = deal([QD, W1, QB, QC], flowers=("", "3f", "", ""), draws="1s", streak=1)
    state = play(state, discard(0, "2p"), rob(1, "1s"))
    assert net(state) == (-65, 133, -34, -34)  # the dealer 30 x 2 + 4 + 1, others 30 + 4


def test_the_deal_passes_after_a_draw_and_after_an_escape():
    state = play(deal([QD, QB, QC, W1], streak=3), Escape(2))
    assert R.next_context(state) == TableContext(dealer=1, streak=0)
    state = play(deal([QB, QC, QD, W1], dealer=2, streak=1), Escape(2))
    assert R.next_context(state) == TableContext(dealer=3, streak=0)


# --------------------------------------------------------------------------- cap, escape, base


def test_the_loss_cap_cuts_the_catch_first():
    capped = Fuzhou(options=FuzhouOptions(loss_cap_multiple=5))
    state = deal([QD, W1, QB, QC], flowers=("", "1f", "", ""), draws="5m", streak=2,
                 ruleset=capped)
    state = play(state, discard(0, "2p"), Hu(1))
    assert paid(state) == {(0, 1, "win"): 5, (2, 1, "win"): 4, (3, 1, "win"): 4}


@pytest.mark.parametrize(
    ("escaper", "streak", "expected"),
    [
        (1, 0, {(1, 2, "escape"): 3, (1, 3, "escape"): 3, (1, 0, "escape"): 2}),
        (3, 2, {(3, 0, "escape"): 3, (3, 1, "escape"): 3, (3, 2, "escape"): 2}),
        (0, 2, {(0, 1, "escape"): 8, (0, 2, "escape"): 8, (0, 3, "escape"): 8}),  # 8 x (1+2)
    ],
)
def test_escape_pays_eight_times_base_shared_by_the_other_three(escaper, streak, expected):
    state = play(deal([QD, QB, QC, W1], streak=streak), discard(0, "2p"), Escape(escaper))
    assert state.outcome == "escape" and paid(state) == expected


def test_the_table_base_is_an_option():
    five = Fuzhou(options=FuzhouOptions(base=5))
    state = deal([QA + "8m", QB, W1, QC], flowers=("", "", "1f5z", ""), ruleset=five)
    state = play(state, discard(0, "8m"), Hu(2))
    assert net(state) == (-30, 0, 30, 0)  # 2 x (5 + 2 x 5): each 花分 point is worth a base
    state = play(deal([H0, QB, QC, QA], ruleset=five), Hu(0))
    assert net(state) == (450, -150, -150, -150)  # 平胡 and 抢金: 30 x 5
    state = play(deal([QD, QB, QC, W1], ruleset=five), Escape(1))
    assert net(state) == (13, -40, 14, 13)


def test_each_flower_point_is_worth_the_base():
    """Seed 004: "每朵花的银两与底分相同", "每张金的银两与底分相同": at base 2 a plain win on a
    discard with 2 flowers is worth 2 + 2 x 2 = 6, and the discarder pays 2 x 6 = 12."""
    two = Fuzhou(options=FuzhouOptions(base=2))
    state = deal([QA + "8m", QB, W1, QC], flowers=("", "", "1f5z", ""), ruleset=two)
    state = play(state, discard(0, "8m"), Hu(2))
    assert explain_win(state, state.wins[0]).total == 6
    assert paid(state) == {(0, 2, "deal_in"): 12}
    # a special: 30 x base + 2 x 花分 x base from each other seat (抢金, one flower)
    state = play(deal([H0, QB, QC, QA], flowers=("1f", "", "", ""), ruleset=two), Hu(0))
    assert net(state) == (192, -64, -64, -64)  # 30 x 2 + 2 x 1 x 2


def test_on_a_streak_a_flower_point_is_worth_the_table_base_unless_the_option_says():
    def dealer_self_draws(ruleset: Fuzhou) -> HandState:
        state = deal([W1 + "2p", QB, QC, QA], flowers=("1f", "", "", ""), draws="1s6s5p5m",
                     streak=1, ruleset=ruleset)
        return play(idle(play(state, discard(0, "2p")), 3), Hu(0))

    state = dealer_self_draws(Fuzhou(options=FuzhouOptions(base=2)))
    assert net(state) == (30, -10, -10, -10)  # 2 x ((2 + 1) + 1 x 2) each
    state = dealer_self_draws(Fuzhou(options=FuzhouOptions(
        base=2, flower_points_at_streak_base=True)))
    assert net(state) == (36, -12, -12, -12)  # 2 x ((2 + 1) + 1 x 3) each


# --------------------------------------------------------------------------- self-play


def test_self_play_keeps_every_invariant():
    selfplay.run("fuzhou", 100, 7, "random", check=True, ruleset=R)
    selfplay.run("fuzhou", 30, 8, "greedy", check=True, ruleset=R)
    options = FuzhouOptions(rob_gold_non_dealer_puts_out="any", rob_gold_three_golds=True,
                            gold_discard_allowed=False, loss_cap_multiple=None)
    selfplay.run("fuzhou", 30, 9, "greedy", check=True, ruleset=Fuzhou(options=options))
    assert dataclasses.asdict(FuzhouOptions())["base"] == 1
