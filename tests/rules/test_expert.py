"""The expert bot (高手): it folds against a seat that looks ready, keeps its wilds, in 上海
does not claim its way out of every special hand, and in 福州 keeps its speed."""

from __future__ import annotations

import pytest

from app.rules import expert
from app.rules.actions import Chow, Discard, Pass
from app.rules.context import TableContext
from app.rules.expert import ExpertBot
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.seen import see
from app.rules.selfplay import bot_factory
from app.rules.state import NO_WILD, ClaimWindow, HandState, Meld, RiverTile
from app.rules.tiles import counts_of, parse, parse_one
from app.rules.variants import get_ruleset


def _turn(variant: str, hand: str) -> HandState:
    """Seat 0 on its turn holding `hand` (a dealer's count), nothing declared or thrown."""
    state, _ = new_hand(get_ruleset(variant), 1, TableContext())
    state.wild = NO_WILD  # no wild this hand: the tiles are what they show
    state.concealed[0] = counts_of(parse(hand)) + [0] * (42 - 34)
    state.melds = [[], [], [], []]
    state.river = []
    state.phase, state.turn, state.window = "turn", 0, None
    return state


def _pung(tile: str) -> Meld:
    t = parse_one(tile)
    return Meld("pung", (t, t, t), t, claimed=t, from_seat=2)


def _discard(state: HandState) -> Discard:
    action = ExpertBot().choose(state, 0, legal_actions(state, 0))
    assert isinstance(action, Discard)
    return action


FAR_HAND = "1147m456p39s12345z"  # far from ready (a pair: not 十三不搭)


def test_a_far_hand_throws_what_a_ready_looking_seat_threw() -> None:
    state = _turn("lishui", FAR_HAND)
    state.river = [RiverTile(1, parse_one("5p")), RiverTile(2, parse_one("7z"))]
    calm = _discard(state)
    state.melds = [[], [_pung("9m"), _pung("9p"), _pung("6z")], [], []]  # three pungs shown
    state.river = [*state.river, RiverTile(1, parse_one("1s")), RiverTile(1, parse_one("2s"))]
    state.concealed[1] = [0] * 42
    state.concealed[1][parse_one("8s")] = 4  # what seat 1 holds: never looked at
    folded = _discard(state)
    assert folded.tile == parse_one("5p")  # 现物 against seat 1
    assert calm.tile != folded.tile


def test_the_expert_never_throws_a_wild_while_another_tile_may_go() -> None:
    factory = bot_factory("expert")
    for variant in ("huzhou", "lishui", "wenzhou"):
        for seed in range(6):
            state, _ = new_hand(get_ruleset(variant), seed, TableContext(dealer=seed % 4))
            while state.phase != "ended":
                seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
                legal = legal_actions(state, seat)
                action = factory(seed, seat).choose(state, seat, legal)
                if isinstance(action, Discard) and action.tile == state.wild.wild:
                    assert all(isinstance(a, Discard) is False or a.tile == state.wild.wild
                               for a in legal)
                state, _ = step(state, action)


def _chow_offered(variant: str, hand: str, meld: Meld) -> HandState:
    state, _ = new_hand(get_ruleset(variant), 1, TableContext())
    state.wild = NO_WILD
    state.concealed[0] = counts_of(parse(hand)) + [0] * (42 - 34)
    state.melds = [[meld], [], [], []]
    four = parse_one("4p")
    state.river = [RiverTile(3, four)]
    state.phase, state.turn = "claim", 3
    state.window = ClaimWindow(four, 3, False, {0: (Chow(0, parse_one("4p")),)})
    return state


def test_in_shanghai_a_claim_that_mixes_suits_after_a_run_is_passed() -> None:
    run = Meld("chow", tuple(parse("123m")), parse_one("1m"), claimed=parse_one("1m"), from_seat=3)
    hand = "56p789m11z237s"  # ten tiles: a chow of 4p lowers the plain shanten
    plain = _chow_offered("huzhou", hand, run)
    special = _chow_offered("shanghai", hand, run)
    assert ExpertBot().choose(plain, 0, legal_actions(plain, 0)) == Chow(0, parse_one("4p"))
    # 上海: a 万 run and a 筒 run leave neither a flush nor 碰碰胡: no hand that may win
    assert ExpertBot().choose(special, 0, legal_actions(special, 0)) == Pass(0)
    assert see(special, 0, []).claim is not None


def test_in_wenzhou_a_hand_near_eight_pairs_keeps_its_pairs() -> None:
    state = _turn("wenzhou", "114477m225588p33s6s9s9m")  # seven pairs and three odd tiles
    assert _discard(state).tile in parse("6s9s9m")  # one odd tile goes: 八对 is then waiting


def test_in_lishui_a_scattered_hand_goes_for_bu_da() -> None:
    state = _turn("lishui", "1247m258p369s1234z")  # 十三不搭 but for the 2m
    assert _discard(state).tile == parse_one("2m")


def test_in_fuzhou_a_near_hand_keeps_its_speed_against_a_threat(monkeypatch: pytest.MonkeyPatch) -> None:
    """福州 pays a 自摸 from all three others and a discard from its thrower alone: a hand one
    exchange from ready throws the tile that keeps it fastest (3p) even with seat 1 showing
    three pungs; weighed for danger as in the other variants it would throw the safe 9s."""
    state = _turn("fuzhou", "2245668m378p3455679s")
    state.melds = [[], [_pung("9m"), _pung("9p"), _pung("1s")], [], []]
    state.river = [RiverTile(1, parse_one(t)) for t in ("5p", "1m", "2s")] + [
        RiverTile(2, parse_one("7s"))]
    assert _discard(state).tile == parse_one("3p")
    monkeypatch.setattr(expert, "DANGER_BY_VARIANT", {})
    assert _discard(state).tile == parse_one("9s")
