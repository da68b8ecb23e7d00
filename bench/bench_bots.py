"""The greedy bot's decision time and greedy self-play, before and after issue 18, in one run.

    python -m bench.bench_bots [--hands N] [--rounds N] [--selfplay-hands N]
    python -m bench.bench_bots --same-hands 2000   # only: same choices over many hands

`GreedyBotBefore` (bench/greedy_before.py) is the greedy bot as it was, with the shanten
functions it called and a table of its own; `GreedyBot` is today's. Both run in this process
on the same decisions: every decision (turn, claim, 温州's decision before the deal) of
`--hands` seeded greedy hands per variant, taken as the hands are played. Before timing, both
play `WARM_UP_HANDS` other seeded hands (their tables filled as a running server's are). Each
round times the old bot, then the new one, on every decision of the variant; best of
`--rounds` rounds in CPU time. Every decision's choice must be the same for both, or no figure
is reported.

Then greedy self-play, old and new bots at all four seats, the same seeded hands in turn
(`--selfplay-hands` per variant, seed 1, no invariant checks, best of the rounds): the hands
must be the same action for action.

`--same-hands N` only checks the choices, over N seeded hands per variant played by the new
greedy bot and N played by random bots (varied states: wilds thrown, odd claims), asking
both bots at every decision.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.rules import shanten
from app.rules.actions import Action
from app.rules.bots import Bot, GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.selfplay import play_hand
from app.rules.state import HandState
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import roll_dice
from bench.greedy_before import GreedyBotBefore

HANDS = 40  # seeded hands per variant whose decisions are timed
WARM_UP_HANDS = 20
ROUNDS = 5
SELFPLAY_HANDS = 100
DECISION_SEED = 7
WARM_UP_SEED = 99

Decision = tuple[HandState, int, list[Action]]


class ChoicesDiffer(Exception):
    """The new bot chose differently from the old one: no figure is reported."""


def decisions(variant: str, hands: int, seed: int, bot: Bot) -> list[Decision]:
    """Every decision of `hands` seeded hands at one table, `bot` at every seat."""
    ruleset = get_ruleset(variant)
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    found: list[Decision] = []
    for _ in range(hands):
        state, _ = new_hand(ruleset, master.getrandbits(63), ctx)
        while state.phase != "ended":
            seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
            legal = legal_actions(state, seat)
            found.append((state, seat, legal))
            state, _ = step(state, bot.choose(state, seat, legal))
        ctx = ruleset.next_context(state)
    return found


def differences(old: Bot, new: Bot, found: list[Decision]) -> list[str]:
    """The decisions where the two bots choose differently."""
    return [
        f"{state.ruleset.name} seat {seat} ({state.phase}): {a} / {b}"
        for state, seat, legal in found
        if (a := old.choose(state, seat, legal)) != (b := new.choose(state, seat, legal))
    ]


def same_choices(variant: str, hands: int, seed: int, players: str) -> tuple[int, int]:
    """(decisions, differences) over `hands` seeded hands played by the new greedy bot
    (`players` "greedy") or by random bots, both greedy bots asked at every decision."""
    ruleset = get_ruleset(variant)
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    old, new = GreedyBotBefore(), GreedyBot()
    seen = differ = 0
    for _ in range(hands):
        hand_seed = master.getrandbits(63)
        mover: Bot = new if players == "greedy" else RandomBot(random.Random(hand_seed))
        state, _ = new_hand(ruleset, hand_seed, ctx)
        while state.phase != "ended":
            seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
            legal = legal_actions(state, seat)
            seen += 1
            differ += old.choose(state, seat, legal) != new.choose(state, seat, legal)
            state, _ = step(state, mover.choose(state, seat, legal), in_place=True)
        ctx = ruleset.next_context(state)
    return seen, differ


def same_choices_table(hands: int, variants: tuple[str, ...]) -> str:
    lines = [
        (
            f"Both bots asked at every decision of {hands:,} seeded hands per variant and"
            " players (seed 1):"
        ),
        "",
        "| variant | played by | hands | decisions | different choices |",
        "|---|---|---:|---:|---:|",
    ]
    for variant in variants:
        for players in ("greedy", "random"):
            seen, differ = same_choices(variant, hands, 1, players)
            lines.append(f"| {variant} | {players} | {hands:,} | {seen:,} | {differ} |")
    lines += ["", f"The new bot's shanten tables at the end: {table_sizes()}."]
    return "\n".join(lines)


def table_sizes() -> str:
    """How big the new shanten tables have grown in this process."""
    return (
        f"{len(shanten._SUIT_IDS):,} suit keys, {len(shanten._ENTRIES):,} distinct entries,"
        f" {len(shanten._PAIRS):,} pairs of entries making {len(shanten._HALVES):,} halves,"
        f" {len(shanten._WHOLES):,} wholes"
    )


def _seconds(bot: Bot, found: list[Decision]) -> float:
    choose = bot.choose
    start = time.process_time()
    for state, seat, legal in found:
        choose(state, seat, legal)
    return time.process_time() - start


@dataclass
class Timing:
    variant: str
    counts: dict[str, int]
    old: dict[str, float]  # phase ("all", "turn", "claim") -> best microseconds a decision
    new: dict[str, float]


def time_decisions(variant: str, hands: int, rounds: int) -> Timing:
    old, new = GreedyBotBefore(), GreedyBot()
    for bot in (old, new):
        decisions(variant, WARM_UP_HANDS, WARM_UP_SEED, bot)
    found = decisions(variant, hands, DECISION_SEED, new)
    differ = differences(old, new, found)
    if differ:
        raise ChoicesDiffer(f"{variant}: {len(differ)} of {len(found)} differ, e.g. {differ[0]}")
    sets = {
        "all": found,
        "turn": [d for d in found if d[0].phase == "turn"],
        "claim": [d for d in found if d[0].phase in ("claim", "rob")],
    }
    best = {(name, phase): float("inf") for name in ("old", "new") for phase in sets}
    for _ in range(rounds):
        for phase, subset in sets.items():
            for name, bot in (("old", old), ("new", new)):
                seconds = _seconds(bot, subset)
                best[name, phase] = min(best[name, phase], seconds / max(len(subset), 1))
    return Timing(
        variant,
        {phase: len(subset) for phase, subset in sets.items()},
        {phase: best["old", phase] * 1e6 for phase in sets},
        {phase: best["new", phase] * 1e6 for phase in sets},
    )


def greedy_selfplay(variant: str, hands: int, make: Callable[[], Bot]) -> tuple[float, list[str]]:
    """CPU seconds of `hands` greedy hands (seed 1, no checks), and their actions' text."""
    ruleset = get_ruleset(variant)
    master = random.Random(1)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    bot = make()
    played: list[str] = []
    start = time.process_time()
    for _ in range(hands):
        run = play_hand(ruleset, master.getrandbits(63), ctx, lambda seed, seat: bot, False)
        played.append(repr(run.actions))
        ctx = ruleset.next_context(run.state)
    return time.process_time() - start, played


def selfplay_rates(variant: str, hands: int, rounds: int) -> tuple[float, float]:
    """Greedy hands/s of the old and the new bot, best of `rounds` taken in turn."""
    best = {"old": float("inf"), "new": float("inf")}
    actions: dict[str, list[str]] = {}
    makers: dict[str, Callable[[], Bot]] = {"old": GreedyBotBefore, "new": GreedyBot}
    for _ in range(rounds):
        for name, make in makers.items():
            seconds, actions[name] = greedy_selfplay(variant, hands, make)
            best[name] = min(best[name], seconds)
    if actions["old"] != actions["new"]:
        raise ChoicesDiffer(f"{variant}: greedy self-play differs between the old and new bot")
    return hands / best["old"], hands / best["new"]


def run(
    hands: int = HANDS,
    rounds: int = ROUNDS,
    selfplay_hands: int = SELFPLAY_HANDS,
    variants: tuple[str, ...] = tuple(VARIANTS),
) -> str:
    lines = [
        (
            f"Decisions of {hands} seeded greedy hands per variant (seed {DECISION_SEED}), after"
            f" {WARM_UP_HANDS} warm-up hands each; best of {rounds} rounds in CPU time, the old"
            " and the new bot taken in turn in one process. Every choice is the same."
        ),
        "",
        (
            "| variant | decisions (turn / claim) | old us/decision | new us/decision"
            " | old / new | turn: old / new us | claim: old / new us |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant in variants:
        t = time_decisions(variant, hands, rounds)
        lines.append(
            f"| {variant} | {t.counts['all']:,} ({t.counts['turn']:,} / {t.counts['claim']:,})"
            f" | {t.old['all']:.0f} | {t.new['all']:.1f} | {t.old['all'] / t.new['all']:.1f}x"
            f" | {t.old['turn']:.0f} / {t.new['turn']:.1f}"
            f" | {t.old['claim']:.0f} / {t.new['claim']:.1f} |"
        )
    lines += [
        "",
        (
            f"Greedy self-play: {selfplay_hands} hands per variant (seed 1, no invariant checks),"
            f" the old and the new bot at every seat in turn, best of {rounds} rounds in CPU"
            " time; both play the same hands, action for action."
        ),
        "",
        "| variant | old greedy hands/s | new greedy hands/s | new / old |",
        "|---|---:|---:|---:|",
    ]
    for variant in variants:
        old_rate, new_rate = selfplay_rates(variant, selfplay_hands, rounds)
        lines.append(
            f"| {variant} | {old_rate:,.0f} | {new_rate:,.0f} | {new_rate / old_rate:.1f}x |"
        )
    lines += ["", f"The new bot's shanten tables at the end: {table_sizes()}."]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_bots")
    parser.add_argument("--hands", type=int, default=HANDS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--selfplay-hands", type=int, default=SELFPLAY_HANDS)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--same-hands", type=int, default=0,
                        help="only check the choices over this many hands per variant")
    args = parser.parse_args()
    if args.same_hands:
        print(same_choices_table(args.same_hands, tuple(args.variants.split(","))))
        sys.exit(0)
    try:
        print(run(args.hands, args.rounds, args.selfplay_hands,
                  tuple(args.variants.split(","))))
    except ChoicesDiffer as differ:
        print(f"CHOICES DIFFER: {differ}", file=sys.stderr)
        sys.exit(1)
