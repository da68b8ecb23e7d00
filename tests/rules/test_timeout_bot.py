"""The clock's choice for a present player whose time ran out (超时): what every turn
prompt announces as `timeout_action` and what the table then plays."""

from __future__ import annotations

from app.rules.actions import Decide, Discard, Hu, Pass, Pung
from app.rules.bots import TimeoutBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse_one
from app.rules.variants import get_ruleset

LISHUI = get_ruleset("lishui")
BOT = TimeoutBot()
# indicator 9s: the 财神 (wild) is 9s, and 白板 (5z) plays as 9s
DEALER_HANDS = ["1234567m11234z6z5p", "46p23678s12346z7z", "55p11m99m22s77z3p8p1s",
                "2p8p1s4s5s9m2z3z4z6z7s1m2m"]


def _state(hands: list[str], draws: str = "", variant: str = "lishui") -> HandState:
    ruleset = get_ruleset(variant)
    preset = arrange(ruleset, dealer=0, hands=hands, draws=draws, indicator="9s")
    state, _ = new_hand(ruleset, 1, TableContext(dealer=0), preset)
    return state


def _choose(state: HandState, seat: int) -> object:
    return BOT.choose(state, seat, legal_actions(state, seat))


def _seat_one_drew(tile: str) -> HandState:
    """The dealer throws 6z, nobody claims it, and seat 1 draws `tile`."""
    state = _state(DEALER_HANDS, draws=tile)
    state, _ = step(state, Discard(0, parse_one("6z")))
    while pending_seats(state) != [1] or state.phase != "turn":
        state, _ = step(state, Pass(pending_seats(state)[0]))
    return state


def test_on_a_turn_the_tile_just_drawn_is_thrown() -> None:
    state = _seat_one_drew("3s")
    assert state.drawn == parse_one("3s")
    assert _choose(state, 1) == Discard(1, parse_one("3s"))  # 摸切


def test_a_drawn_wild_is_kept_and_the_last_plain_tile_goes() -> None:
    state = _seat_one_drew("9s")
    assert state.drawn == parse_one("9s")
    assert _choose(state, 1) == Discard(1, parse_one("7z"))  # not the 财神 (误打财神)


def test_after_a_pung_there_is_no_drawn_tile_and_the_last_plain_tile_goes() -> None:
    state = _state(DEALER_HANDS)
    state, _ = step(state, Discard(0, parse_one("5p")))
    while Pung(2) not in legal_actions(state, 2):
        state, _ = step(state, Pass(pending_seats(state)[0]))
    state, _ = step(state, Pung(2))
    while state.phase != "turn":
        state, _ = step(state, Pass(pending_seats(state)[0]))
    assert pending_seats(state) == [2] and state.drawn is None
    assert _choose(state, 2) == Discard(2, parse_one("7z"))


def test_a_self_drawn_win_is_taken() -> None:
    state = _state(["123456789m11122z", "1112223344556p", "147m147p147s1234z",
                    "258m258p258s5567z"])
    assert _choose(state, 0) == Hu(0)


def test_a_claim_times_out_to_pass_even_when_the_seat_could_win() -> None:
    state = _state(["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m",
                    "234567s234m222z5m"])
    state, _ = step(state, Discard(0, parse_one("5m")))
    assert state.phase == "claim" and Hu(2) in legal_actions(state, 2)
    assert _choose(state, 2) == Pass(2)


def test_a_decision_before_the_deal_is_declined() -> None:
    wenzhou = get_ruleset("wenzhou")
    state, _ = new_hand(wenzhou, 3, TableContext(dealer=0))
    assert state.phase == "decide"
    seat = pending_seats(state)[0]
    assert _choose(state, seat) == Decide(seat, "decline")
