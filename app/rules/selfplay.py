"""Self-play: bots play hand after hand at one table and every invariant is checked.

    python -m app.rules.selfplay --variant lishui --hands 1000 --seed 1 --bots random

Invariants, checked unless --no-check: every tile accounted for after every step; each
settlement zero-sum apart from the house's rewards; replaying the recorded actions from the
seed gives identical events. Any broken invariant stops the run with exit status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tqdm import tqdm

from app.rules.actions import Action
from app.rules.bots import BeginnerBot, Bot, GreedyBot, RandomBot
from app.rules.context import Settlement, TableContext
from app.rules.events import Event
from app.rules.expert import ExpertBot
from app.rules.hand import (
    full_census,
    legal_actions,
    new_hand,
    pending_seats,
    replay,
    step,
    tile_census,
)
from app.rules.state import HandState
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.variants.base import Ruleset
from app.rules.wall import roll_dice

BotFactory = Callable[[int, int], Bot]  # (hand seed, seat) -> bot


class InvariantBroken(Exception):
    pass


@dataclass
class HandRun:
    state: HandState
    events: list[Event]
    actions: list[Action]


LEVELS = {"新手": "beginner", "普通": "standard", "高手": "expert", "strong": "expert"}
"""The house bots' levels by their Chinese names (and "strong" for the expert), as names."""
BOT_KINDS = ("random", "greedy", "beginner", "standard", "expert")


def bot_factory(kind: str) -> BotFactory:
    """A bot by name: "random", "greedy", or a level: "beginner" (新手), "standard" (普通, the
    greedy bot) or "expert" (高手, `ExpertBot`); a comma-separated list names one per seat
    ("expert,greedy,greedy,greedy")."""
    if "," in kind:
        names = kind.split(",")
        if len(names) != 4:
            raise ValueError(f"bots {kind!r}: one per seat, four names")
        factories = [bot_factory(name) for name in names]
        return lambda seed, seat: factories[seat](seed, seat)
    kind = LEVELS.get(kind, kind)
    if kind == "random":
        return lambda seed, seat: RandomBot(random.Random(seed * 4 + seat))
    if kind in ("greedy", "standard"):
        greedy = GreedyBot()
        return lambda seed, seat: greedy
    if kind == "beginner":
        return lambda seed, seat: BeginnerBot(random.Random(seed * 4 + seat))
    if kind == "expert":
        expert = ExpertBot()
        return lambda seed, seat: expert
    raise ValueError(f"unknown bots {kind!r}: one of {', '.join(BOT_KINDS)} (or 新手 普通 高手)")


def play_hand(
    ruleset: Ruleset, seed: int, ctx: TableContext, bots: BotFactory, check: bool = True
) -> HandRun:
    """Play one hand to its end with one bot per seat (each action applied in place: a bot
    sees only the current state)."""
    state, events = new_hand(ruleset, seed, ctx)
    players = [bots(seed, s) for s in range(4)]
    actions: list[Action] = []
    census = full_census(ruleset) if check else None
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        action = players[seat].choose(state, seat, legal_actions(state, seat))
        actions.append(action)
        state, more = step(state, action, in_place=True)
        events += more
        if census is not None and tile_census(state) != census:
            raise InvariantBroken(f"hand {seed}: tiles not conserved after {action}")
    if check:
        assert state.settlement is not None
        check_settlement(ruleset, seed, state.settlement)
        _, replayed = replay(ruleset, seed, ctx, actions)
        if replayed != events:
            raise InvariantBroken(f"hand {seed}: replay gave different events")
    return HandRun(state, events, actions)


def check_settlement(ruleset: Ruleset, seed: int, settlement: Settlement) -> None:
    """Points move between seats in whole positive amounts, so the seats' total is zero;
    only a ruleset that grants house rewards may add points from outside."""
    for t in settlement.transfers:
        if type(t.points) is not int or t.points <= 0 or t.payer == t.payee:
            raise InvariantBroken(f"hand {seed}: a malformed transfer {t}")
        if not (0 <= t.payer < 4 and 0 <= t.payee < 4):
            raise InvariantBroken(f"hand {seed}: a transfer to no seat {t}")
    house = settlement.house
    if any(type(h) is not int or h < 0 for h in house) or (
        any(house) and not ruleset.grants_house_rewards
    ):
        raise InvariantBroken(f"hand {seed}: house rewards {house} from {ruleset.name}")
    if sum(settlement.net()) != sum(house):
        raise InvariantBroken(f"hand {seed}: settlement is not zero-sum: {settlement}")


@dataclass
class Report:
    variant: str
    hands: int = 0
    seconds: float = 0.0
    wins: int = 0
    self_draws: int = 0
    draws: int = 0
    steps: int = 0
    net: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    house: int = 0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def lines(self) -> list[str]:
        n = max(self.hands, 1)
        return [
            (
                f"variant {self.variant}: {self.hands} hands in {self.seconds:.2f} s "
                f"= {self.hands_per_second:,.0f} hands/s ({self.steps / n:.0f} actions/hand)"
            ),
            (
                f"wins {self.wins / n:.1%} (self-drawn {self.self_draws / n:.1%}), "
                f"draws {self.draws / n:.1%}"
            ),
            "net points per seat: " + " ".join(f"{p:+d}" for p in self.net)
            + (f" (house rewards {self.house})" if self.house else ""),
        ]


def run(
    variant: str,
    hands: int,
    seed: int,
    bots: str,
    check: bool = True,
    progress: bool = False,
    ruleset: Ruleset | None = None,
) -> Report:
    """Play `hands` hands at one table, the dealer passing as the variant says (`ruleset`
    overrides the variant's default options)."""
    ruleset = ruleset or get_ruleset(variant)
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    factory = bot_factory(bots)
    report = Report(variant)
    start = time.perf_counter()
    for _ in tqdm(range(hands), desc=variant, unit="hand", disable=not progress, file=sys.stderr):
        hand_seed = master.getrandbits(63)
        result = play_hand(ruleset, hand_seed, ctx, factory, check)
        state = result.state
        report.hands += 1
        report.steps += len(result.actions)
        if state.outcome == "win":
            report.wins += 1
            report.self_draws += state.wins[0].self_draw
        elif state.outcome == "draw":
            report.draws += 1
        assert state.settlement is not None
        for s, points in enumerate(state.settlement.net()):
            report.net[s] += points
        report.house += sum(state.settlement.house)
        ctx = ruleset.next_context(state)
    report.seconds = time.perf_counter() - start
    return report


def digest(variant: str, hands: int, seed: int, bots: str) -> str:
    """A hash of `hands` hands played at one table as `run` plays them: every action, event
    and the next hand's table context (tests/rules/test_determinism.py pins these; the
    benchmark compares the pure and the compiled core with it)."""
    ruleset = get_ruleset(variant)
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    factory = bot_factory(bots)
    h = hashlib.sha256()
    for _ in range(hands):
        played = play_hand(ruleset, master.getrandbits(63), ctx, factory, check=False)
        for event in played.events:
            h.update(repr(event).encode())
        for action in played.actions:
            h.update(repr(action).encode())
        ctx = ruleset.next_context(played.state)
        h.update(repr(ctx).encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.rules.selfplay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="lishui")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="random",
                        help="a bot for every seat (random, greedy, beginner, standard, expert,"
                        " 新手, 普通, 高手) or four, comma-separated: expert,greedy,greedy,greedy")
    parser.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    args = parser.parse_args(argv)
    try:
        bot_factory(args.bots)
    except ValueError as bad:
        parser.error(str(bad))
    try:
        report = run(args.variant, args.hands, args.seed, args.bots, not args.no_check, True)
    except InvariantBroken as broken:
        print(f"INVARIANT BROKEN: {broken}", file=sys.stderr)
        return 1
    print("\n".join(report.lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
