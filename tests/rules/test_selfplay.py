"""Bots and the self-play command."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass

import pytest

from app.rules import selfplay
from app.rules.actions import Chow, Decide, Discard, Hu, Pass
from app.rules.bots import AutoplayBot, GreedyBot, RandomBot
from app.rules.context import Settlement, TableContext, Transfer
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.scenario import arrange
from app.rules.shanten import shanten
from app.rules.tiles import parse_one
from app.rules.variants import VARIANTS
from app.rules.variants.lishui import Lishui

RULES = Lishui()


def test_the_random_bot_only_plays_legal_actions() -> None:
    bot = RandomBot(random.Random(3))
    state, _ = new_hand(RULES, 3, TableContext())
    while state.phase != "ended":
        seat = pending_seats(state)[0]
        legal = legal_actions(state, seat)
        action = bot.choose(state, seat, legal)
        assert action in legal
        state, _ = step(state, action)


def test_the_greedy_bot_always_takes_a_win() -> None:
    preset = arrange(
        RULES,
        dealer=0,
        hands=["123456789m11122z", "1112223344556p", "147m147p147s1234z", "258m258p258s5567z"],
        indicator="9s",
    )
    state, _ = new_hand(RULES, 1, TableContext(dealer=0), preset)
    legal = legal_actions(state, 0)
    assert Hu(0) in legal
    assert GreedyBot().choose(state, 0, legal) == Hu(0)


def test_the_greedy_bot_discards_the_tile_that_keeps_the_lowest_shanten() -> None:
    state, _ = new_hand(RULES, 21, TableContext(dealer=0))
    legal = legal_actions(state, 0)
    choice = GreedyBot().choose(state, 0, legal)
    counts, wilds = state.effective(0)
    if isinstance(choice, Discard):
        kind = state.plays_as(choice.tile)

        def after(tile_kind: int | None) -> int:
            c = counts[:]
            if tile_kind is None:
                return shanten(c, wilds - 1, seven_pairs=True)
            c[tile_kind] -= 1
            return shanten(c, wilds, seven_pairs=True)

        best = min(after(state.plays_as(a.tile)) for a in legal if isinstance(a, Discard))
        assert after(kind) == best
        assert choice.tile != state.wild.wild or all(
            a.tile == state.wild.wild for a in legal if isinstance(a, Discard)
        )


# Dealer 0 discards 5p: the greedy bot at seat 1 chows it (4-5-6p), seat 2 may pung it.
CHOW_ON_5P = arrange(
    RULES,
    dealer=0,
    hands=["5p1234678m11234z6z", "46p23678s12346z7z", "55p11m99m22s77z3p8p1s",
           "2p8p1s4s5s9m2z3z4z6z7s1m2m"],
    indicator="9s",
)


def test_autoplay_passes_a_claim_the_greedy_bot_takes() -> None:
    # RULES.md 1: 托管 "always takes a 胡, otherwise passes on claims"
    state, _ = new_hand(RULES, 1, TableContext(dealer=0), CHOW_ON_5P)
    state, _ = step(state, Discard(0, parse_one("5p")))
    chow = legal_actions(state, 1)
    assert GreedyBot().choose(state, 1, chow) == Chow(1, parse_one("4p"))
    assert AutoplayBot().choose(state, 1, chow) == Pass(1)
    assert AutoplayBot().choose(state, 2, legal_actions(state, 2)) == Pass(2)  # no 碰 either


def test_autoplay_takes_a_win_and_plays_the_greedy_turn() -> None:
    preset = arrange(
        RULES,
        dealer=0,
        hands=["123456789m11122z", "1112223344556p", "147m147p147s1234z", "258m258p258s5567z"],
        indicator="9s",
    )
    state, _ = new_hand(RULES, 1, TableContext(dealer=0), preset)
    assert AutoplayBot().choose(state, 0, legal_actions(state, 0)) == Hu(0)
    for seed in range(20):  # on its own turn: exactly the greedy bot's choice
        state, _ = new_hand(RULES, seed, TableContext(dealer=0))
        legal = legal_actions(state, 0)
        assert AutoplayBot().choose(state, 0, legal) == GreedyBot().choose(state, 0, legal)
    wenzhou, _ = new_hand(VARIANTS["wenzhou"], 1, TableContext(dealer=0))
    assert wenzhou.phase == "decide"  # 买底
    assert AutoplayBot().choose(wenzhou, 0, legal_actions(wenzhou, 0)) == Decide(0, "decline")


def test_greedy_bots_win_more_than_random_ones() -> None:
    greedy = selfplay.run("lishui", 60, seed=4, bots="greedy")
    chaos = selfplay.run("lishui", 60, seed=4, bots="random")
    assert greedy.wins > chaos.wins


@pytest.mark.parametrize("bots", ["random", "greedy"])
def test_self_play_holds_every_invariant(bots: str) -> None:
    report = selfplay.run("lishui", 40, seed=9, bots=bots, check=True)
    assert report.hands == 40
    assert sum(report.net) == report.house == 0
    assert report.wins + report.draws == 40


def test_the_command_prints_rates_and_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.rules.selfplay", "--variant", "lishui", "--hands", "20",
         "--seed", "5", "--bots", "greedy"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "hands/s" in done.stdout and "net points per seat" in done.stdout
    assert "20/20" in done.stderr  # the progress bar


@dataclass(frozen=True)
class _Leaky(Lishui):
    """A broken ruleset: it pays a seat itself and takes silver from the house."""

    def settle(self, state):  # type: ignore[no-untyped-def]
        real = super().settle(state)
        return Settlement((*real.transfers, Transfer(0, 0, 0, "noop")), (1, 0, 0, 0))


def test_a_broken_invariant_exits_non_zero(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(VARIANTS, "lishui", _Leaky())
    assert selfplay.main(["--variant", "lishui", "--hands", "3", "--seed", "1"]) == 1
    assert "INVARIANT BROKEN" in capsys.readouterr().err
