"""上海's dead-end claims (RULES.md section 6): a 吃, 碰 or 明杠 after which the hand can make
no winning shape (清一色, 混一色, 碰碰胡, 混碰, 清碰, 字一色, 乱风向), only 大吊车, 杠开 or 八花.
Exact hands, played through the engine; the answer depends on the seat's own melds only."""

from __future__ import annotations

from app.rules.actions import Chow, Pung
from app.rules.context import TableContext
from app.rules.deadend import (
    SHAPES,
    dead_end_claims,
    is_dead_end,
    reachable_shapes,
    shapes_after,
)
from app.rules.hand import legal_actions, new_hand
from app.rules.state import Meld
from app.rules.tiles import parse
from app.rules.variants import get_ruleset
from tests.rules.script import T, discard, idle, play
from tests.rules.test_shanghai import QA, QB, QC, deal

# seat 1: 56m for a 吃 of the dealer's 4m, 45p for a 吃 of 3p, single honours to throw
CHOWS = "56m45p11z3z6z7z99s7p5z"


def _first_chow(draws: str = "2z4z8m"):
    state = deal([QA + "4m", CHOWS, QB, QC], draws=draws)
    return play(state, discard(0, "4m"))


def test_a_first_chow_is_not_a_dead_end():
    state = _first_chow()
    assert legal_actions(state, 1)[0] == Chow(1, T("4m"))
    assert dead_end_claims(state, 1) == ()
    assert shapes_after(state, 1, Chow(1, T("4m"))) == {"pure_suit", "mixed_suit"}


def test_a_chow_in_a_second_suit_after_a_chow_is_a_dead_end():
    state = play(_first_chow(), Chow(1, T("4m")), discard(1, "5z"))
    state = idle(state, 2)  # seats 2 and 3 throw 2z and 4z; the dealer draws 8m
    state = play(state, discard(0, "3p"))
    chow = Chow(1, T("3p"))
    assert chow in legal_actions(state, 1)
    assert shapes_after(state, 1, chow) == frozenset()
    assert is_dead_end(state, 1, chow)
    assert dead_end_claims(state, 1) == (chow,)


def test_a_pung_of_a_dragon_in_a_one_suit_hand_is_not_a_dead_end():
    state = deal([QA + "7z", "77z123m456m789m12m", QB, QC])
    state = play(state, discard(0, "7z"))
    assert Pung(1) in legal_actions(state, 1)
    assert dead_end_claims(state, 1) == ()
    # melds only: the 万 in hand could still be thrown for honours
    assert shapes_after(state, 1, Pung(1)) == {
        "mixed_suit", "mixed_pungs", "all_pungs", "all_honours", "loose_honours"}


def test_a_pung_in_a_second_suit_after_a_chow_is_a_dead_end():
    state = play(_first_chow("2z4z9s"), Chow(1, T("4m")), discard(1, "5z"))
    state = idle(state, 2)
    state = play(state, discard(0, "9s"))  # seat 1 holds 99s
    assert dead_end_claims(state, 1) == (Pung(1),)


def test_the_shape_families_of_melds():
    def meld(kind, tiles):
        t = parse(tiles)
        return Meld(kind, tuple(t), min(t))

    assert reachable_shapes([]) == frozenset(SHAPES)
    assert reachable_shapes([meld("pung", "555z")]) == frozenset(
        {"mixed_suit", "mixed_pungs", "all_pungs", "all_honours", "loose_honours"})
    assert reachable_shapes([meld("pung", "222p"), meld("pung", "333s")]) == {"all_pungs"}
    assert reachable_shapes([meld("chow", "123p"), meld("pung", "555z")]) == {"mixed_suit"}
    assert reachable_shapes([meld("chow", "123p"), meld("chow", "789s")]) == frozenset()


def test_other_variants_have_no_dead_end():
    # 丽水 wins with plain hands: the same two chows in two suits close nothing
    ruleset = get_ruleset("lishui")
    state, _ = new_hand(ruleset, 0, TableContext())
    assert dead_end_claims(state, 1) == ()
    state.melds[1].append(Meld("chow", tuple(parse("123p")), T("1p")))

