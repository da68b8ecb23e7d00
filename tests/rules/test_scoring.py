"""Every win explained (app/rules/scoring.py): the rule book's worked examples give score
sheets with exactly the rule book's numbers, and over thousands of seeded self-play hands of
every variant each sheet adds up the way a client would add it up, its total is what the
variant scored, its payments are the settlement's transfers, and its groups are the
winner's hand."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from app.rules.actions import Action, Hu, Special
from app.rules.bots import RandomBot
from app.rules.context import TableContext
from app.rules.events import HandEnded, Won
from app.rules.examples import fuzhou as fuzhou_example
from app.rules.examples import huzhou as huzhou_example
from app.rules.examples import lishui as lishui_example
from app.rules.examples import shanghai as shanghai_example
from app.rules.examples import wenzhou as wenzhou_example
from app.rules.hand import legal_actions, new_hand, pending_seats, revealed_hand, step
from app.rules.scoring import (
    BASE_MULTIPLE,
    DOUBLING,
    FAN,
    FLOWER_POINTS,
    LA,
    MULTIPLIER,
    PAYMENT_FACTOR,
    ScoreSheet,
    formula_points,
)
from app.rules.state import HandState
from app.rules.tiles import format_tiles
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.variants.base import Ruleset
from app.rules.wall import roll_dice
from tests.rules import test_lishui, test_shanghai, test_wenzhou
from tests.rules.script import discard, idle, play

WIN_REASONS = {"win", "deal_in", "covers", "robbing_kong", "catch_dealer"}


def sheets(events: list) -> tuple[ScoreSheet, ...]:
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert len(ended) == 1
    return ended[0].scores


def state_sheets(state: HandState) -> tuple[ScoreSheet, ...]:
    return tuple(state.ruleset.explain(state, w) for w in state.wins)


def items(sheet: ScoreSheet) -> list[tuple[str, str, int, str, int, bool]]:
    return [(i.key, i.name, i.value, i.kind, i.count, i.counted) for i in sheet.items]


def lines(sheet: ScoreSheet) -> list[tuple[int, str, str, str, int]]:
    """Each payment as (payer, reason, terms, factors, points), terms and factors as text."""
    def text(terms: tuple) -> str:
        return " ".join(f"{t.key}={t.value}" + (f"x{t.times}" if t.times != 1 else "")
                        for t in terms)
    return [(p.payer, p.reason, text(p.terms), text(p.factors), p.points) for p in sheet.payments]


def groups(sheet: ScoreSheet) -> list[tuple[str, str, str]]:
    return [(g.shape, format_tiles(g.tiles), format_tiles(g.plays_as)) for g in sheet.groups]


# --------------------------------------------------------------------------- worked examples


def test_example_a_base_five_seven_pairs_each_pays_twenty() -> None:
    _, _, events = lishui_example.example()
    (sheet,) = sheets(events)
    assert (sheet.seat, sheet.base, sheet.base_reason.key, sheet.base_reason.streak) == (
        0, 5, "dealer_streak", 1)
    assert items(sheet) == [("seven_pairs", "七对子", 4, MULTIPLIER, 1, True)]
    assert (sheet.rule, sheet.total, sheet.cap) == ("sum", 4, None)
    assert lines(sheet) == [(s, "win", "base=5", "total=4", 20) for s in (1, 2, 3)]
    assert groups(sheet) == [
        ("pair", "55m", "55m"), ("pair", "33p", "33p"), ("pair", "55p", "55p"),
        ("pair", "77s", "77s"), ("pair", "11z", "11z"), ("pair", "11z", "11z"),
        ("pair", "22z", "22z"),
    ]
    assert (sheet.winning_tile, sheet.melds, sheet.flowers) == (24, (), ())


def test_example_b_the_dealer_pays_base_times_four_the_others_one_times_four() -> None:
    state = test_lishui.deal(
        [test_lishui.QA + "6z", test_lishui.QB, test_lishui.SEVEN_PAIRS_WAIT_7S, test_lishui.QC],
        streak=1, draws="3z4z7z6z3z7s",
    )
    state = play(idle(play(state, discard(0, "6z")), 5), Hu(2))
    (sheet,) = state_sheets(state)
    assert (sheet.seat, sheet.base, sheet.total) == (2, 5, 4)
    assert lines(sheet) == [
        (0, "win", "base=5", "total=4", 20),
        (1, "win", "non_dealer_base=1", "total=4", 4),
        (3, "win", "non_dealer_base=1", "total=4", 4),
    ]


def test_example_c_two_wilds_and_a_kong_win_each_pays_two_times_two_times_base() -> None:
    _, _, events = huzhou_example.example()
    (sheet,) = sheets(events)
    reason = sheet.base_reason
    assert (sheet.base, reason.key, reason.level, reason.seat) == (4, "lowest_level", "科长", 1)
    assert items(sheet) == [("kong_win", "杠开", 2, DOUBLING, 1, True)]
    assert (sheet.rule, sheet.total) == ("doublings", 2)
    assert lines(sheet) == [
        (s, "win", "base=4", "self_draw_share=2 total=2", 16) for s in (0, 2, 3)
    ]
    # 9p and a 财神 the pair, 4s 5s and a 财神 a run; the concealed kong of 东 is a meld
    assert groups(sheet) == [
        ("pair", "9p5z", "99p"), ("chow", "123m", "123m"), ("chow", "45s5z", "345s"),
        ("chow", "678s", "678s"),
    ]
    assert [(m.meld, format_tiles(m.tiles)) for m in sheet.melds] == [("concealed_kong", "1111z")]


def test_example_d_three_flowers_and_a_concealed_kong_each_pays_two_times_one_plus_five() -> None:
    _, _, events = fuzhou_example.example()
    (sheet,) = sheets(events)
    assert (sheet.base, sheet.base_reason.key, sheet.base_reason.streak) == (1, "table_base", 0)
    assert items(sheet) == [
        ("flowers", "花", 3, FLOWER_POINTS, 3, True),
        ("concealed_kongs", "暗杠", 2, FLOWER_POINTS, 1, True),
    ]
    assert (sheet.rule, sheet.total) == ("base_and_flowers", 6)
    assert lines(sheet) == [
        (s, "win", "base=1 flower_points=5", "self_draw_double=2", 12) for s in (0, 2, 3)
    ]
    assert len(sheet.flowers) == 3


def test_example_e_counter_and_base_times_hard_two() -> None:
    _, _, events = wenzhou_example.example()
    (sheet,) = sheets(events)
    assert (sheet.seat, sheet.base, sheet.base_reason.key, sheet.base_reason.deal_count) == (
        1, 4, "deal_count", 2)
    assert items(sheet) == [("hard", "硬牌", 2, MULTIPLIER, 1, True)]
    assert (sheet.rule, sheet.total) == ("highest", 2)
    assert lines(sheet) == [
        (0, "win", "base=4 counter=8", "total=2", 24),
        (2, "win", "non_dealer_base=2", "total=2", 4),
        (3, "win", "non_dealer_base=2", "total=2", 4),
    ]
    assert [g[0] for g in groups(sheet)] == ["pair", "chow", "chow", "chow", "chow", "chow"]


def test_the_shanghai_example_flowers_and_the_draw_bonus() -> None:
    _, _, events = shanghai_example.example()
    (sheet,) = sheets(events)
    assert (sheet.base, sheet.base_reason.key) == (1, "flower_point")
    assert items(sheet) == [
        ("mixed_suit", "混一色", 0, FAN, 1, True),
        ("base_flowers", "底注", 3, FLOWER_POINTS, 1, True),
        ("flowers", "花", 2, FLOWER_POINTS, 2, True),
        ("dragon_pungs", "箭刻", 2, FLOWER_POINTS, 1, True),
        ("wind_pungs", "风刻", 1, FLOWER_POINTS, 1, True),
        ("draw_bonus", "荒番", 2, PAYMENT_FACTOR, 1, True),
    ]
    assert (sheet.rule, sheet.total) == ("la_or_flowers", 8)
    assert lines(sheet) == [(1, "win", "total=8", "draw_bonus=2", 16)]
    assert ("pung", "111z", "111z") in groups(sheet)


def test_a_multi_win_has_one_sheet_per_winner_in_the_order_of_the_winners() -> None:
    s1 = "123456789p55p67p"
    s3 = "67p111z222z333z44z"
    state = test_shanghai.deal(
        [test_shanghai.QA + "7z", s1, test_shanghai.QB, s3], draws="5z6z7z8p"
    )
    state = idle(play(state, discard(0, "7z")), 3)
    state = play(state, discard(0, "8p"), Hu(3), Hu(1))
    first, second = state_sheets(state)
    assert [first.seat, second.seat] == [w.seat for w in state.wins] == [1, 3]
    assert items(first) == [("pure_suit", "清一色", 1, LA, 1, True)]
    assert (first.total, lines(first)) == (20, [(0, "win", "total=20", "", 20)])
    # 混一色 (0 番) and 门清 (1 番); 底注 3 and three concealed wind 刻: 6 花 x 2
    assert items(second) == [
        ("mixed_suit", "混一色", 0, FAN, 1, True), ("concealed_hand", "门清", 1, FAN, 1, True),
        ("base_flowers", "底注", 3, FLOWER_POINTS, 1, True),
        ("wind_pungs", "风刻", 3, FLOWER_POINTS, 3, True),
    ]
    assert (second.total, lines(second)) == (12, [(0, "win", "total=12", "", 12)])
    # both winners' hands hold the discard, 8p
    assert first.winning_tile == second.winning_tile == 16
    assert ("chow", "678p", "678p") in groups(first) and ("chow", "678p", "678p") in groups(second)


def test_where_the_highest_counts_the_others_are_listed_not_counted() -> None:
    # 温州: the dealer's dealt hand is complete and hard: 天胡 x4 counts, not 4 + 2
    state = test_wenzhou.deal(
        ["123m456m789m234p55p678s", test_wenzhou.QA, test_wenzhou.QB, test_wenzhou.QC]
    )
    state = play(state, Hu(0))
    (sheet,) = state_sheets(state)
    assert items(sheet) == [
        ("heavenly", "天胡", 4, MULTIPLIER, 1, True),
        ("hard", "硬牌", 2, MULTIPLIER, 1, False),
    ]
    assert sheet.total == 4
    assert lines(sheet) == [(s, "win", "base=2", "total=4", 8) for s in (1, 2, 3)]


# --------------------------------------------------------------------------- self-play


class WinningRandomBot:
    """A random bot that always takes a 胡 (or a special action, each a win): many more wins,
    of every kind random play reaches."""

    def __init__(self, rng: random.Random) -> None:
        self.random = RandomBot(rng)

    def choose(self, state: HandState, seat: int, legal: list[Action]) -> Action:
        for action in legal:
            if isinstance(action, (Hu, Special)):
                return action
        return self.random.choose(state, seat, legal)


def won_hands(ruleset: Ruleset, hands: int, seed: int) -> Iterator[tuple[HandState, list]]:
    """`hands` hands at one table, the context carried from hand to hand; the won ones."""
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    for _ in range(hands):
        hand_seed = master.getrandbits(63)
        bots = [WinningRandomBot(random.Random(hand_seed * 4 + s)) for s in range(4)]
        state, events = new_hand(ruleset, hand_seed, ctx)
        while state.phase != "ended":
            seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
            state, more = step(state, bots[seat].choose(state, seat, legal_actions(state, seat)))
            events += more
        if state.outcome == "win":
            yield state, events
        ctx = ruleset.next_context(state)


def client_total(sheet: ScoreSheet) -> int:
    """The total as a client computes it from the items, by the sheet's rule (docs/rules.md)."""
    counted = [i for i in sheet.items if i.counted]

    def of(kind: str) -> list[int]:
        return [i.value for i in counted if i.kind == kind]

    if sheet.rule == "sum":
        return sum(of(MULTIPLIER))
    if sheet.rule == "highest":
        (value,) = of(MULTIPLIER)
        return value
    if sheet.rule == "doublings":
        return 2 ** len(of(DOUBLING))
    flowers = sum(of(FLOWER_POINTS))
    if sheet.rule == "base_and_flowers":
        special = of(BASE_MULTIPLE)
        return special[0] * sheet.base + 2 * flowers if special else sheet.base + flowers
    assert sheet.rule == "la_or_flowers"
    if of(LA):
        (la,) = of(LA)
        return la * 20
    value = flowers * 2 ** sum(of(FAN))
    if sheet.cap is not None:
        assert value > sheet.cap
        return sheet.cap
    return value


def check_sheet(state: HandState, sheet: ScoreSheet, won: Won) -> None:
    ruleset = state.ruleset
    assert sheet.seat == won.seat
    assert client_total(sheet) == sheet.total, sheet
    score = ruleset.score(state, next(w for w in state.wins if w.seat == sheet.seat))
    assert (score.specials, score.multiplier) == (won.specials, won.multiplier)
    if ruleset.name in ("lishui", "wenzhou", "huzhou"):
        assert sheet.total == won.multiplier
    elif ruleset.name == "fuzhou":
        special = [i.value for i in sheet.items if i.kind == BASE_MULTIPLE and i.counted]
        assert won.multiplier == (special[0] if special else 1)
    else:
        factors = [i.value for i in sheet.items if i.kind == PAYMENT_FACTOR]
        expected = sheet.total
        for f in factors:
            expected *= f
        assert won.multiplier == expected
    for p in sheet.payments:
        raw = formula_points(p.terms, p.factors)
        assert p.points == (raw if p.cap is None else min(raw, p.cap)) > 0, p
        assert p.cap is None or raw > p.points
    # the hand as read: every tile of the winner's concealed hand, in groups of the shape
    grouped = sorted(t for g in sheet.groups for t in g.tiles)
    assert grouped == sorted(revealed_hand(state, sheet.seat)) == sorted(won.hand)
    for g in sheet.groups:
        assert len(g.tiles) == len(g.plays_as)
        for tile, kind in zip(g.tiles, g.plays_as, strict=True):
            plays = state.plays_as(tile)
            assert plays is None or plays == kind or g.shape == "loose", (g, tile)
        kinds = list(g.plays_as)
        if g.shape == "pair":
            assert len(kinds) == 2 and kinds[0] == kinds[1]
        elif g.shape == "pung":
            assert len(kinds) == 3 and len(set(kinds)) == 1
        elif g.shape == "chow":
            low = kinds[0]
            assert kinds == [low, low + 1, low + 2] and low < 27 and low // 9 == (low + 2) // 9
        else:
            assert g.shape in ("single", "loose")
    assert [(m.meld, m.tiles) for m in sheet.melds] == [
        (m.kind, m.tiles) for m in state.melds[sheet.seat]]
    assert sheet.flowers == tuple(state.flowers[sheet.seat])


# hands per variant: random play seldom makes 上海's special hands, so it plays more
HANDS = {"shanghai": 4000}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_sheet_of_self_play_reproduces_the_score_and_the_payments(variant: str) -> None:
    ruleset = get_ruleset(variant)
    wins = kinds = 0
    seen: Counter[str] = Counter()
    for state, events in won_hands(ruleset, HANDS.get(variant, 1500), seed=16):
        scored = sheets(events)
        won = [e for e in events if isinstance(e, Won)]
        assert [s.seat for s in scored] == [w.seat for w in state.wins] == [w.seat for w in won]
        for sheet, event in zip(scored, won, strict=True):
            check_sheet(state, sheet, event)
            seen.update(i.key for i in sheet.items)
            seen.update(f"shape:{g.shape}" for g in sheet.groups)
        # the sheets' payments are the settlement's transfers for the wins, in order
        assert state.settlement is not None
        paid = [(t.payer, t.payee, t.points, t.reason) for t in state.settlement.transfers
                if t.reason in WIN_REASONS]
        explained = [(p.payer, s.seat, p.points, p.reason) for s in scored for p in s.payments]
        assert explained == paid
        wins += 1
        kinds = len(seen)
    assert wins >= 100 and kinds >= 5, (wins, seen)
