"""A bot's strength against a baseline, measured in duplicate.

    python -m bench.bench_strength --variant lishui --walls 500 --seed 1 --candidate expert
    python -m bench.bench_strength --variant all --walls 200 --candidate beginner --baseline greedy

Each of `--walls` seeded walls (a hand seed: the same wall, dice and wild every time) is
played four times, the candidate in seat 0, 1, 2 and 3 in turn and the baseline at the other
three; the dealer is the same in all four. Over the four seatings the candidate has held
every seat's tiles once, so the luck of the deal largely cancels: the figure of merit is the
candidate's mean net points per hand of each wall (the mean of its four seatings), and its
95% confidence interval is taken over those per-wall means (1.96 x their standard deviation
/ sqrt(walls)). Three baseline bots against themselves average 0 by symmetry, so an interval
above 0 means the candidate is stronger. The report also gives the interval the same hands
would give if they were independent (per-hand standard deviation), to show what the pairing
saves.

Beside it: the win, deal-in (放铳: a win on the seat's discard or robbing its kong) and
self-draw rates of the candidate and of the baseline seats, and the time of each decision
(time.perf_counter around `choose`), median and p99, for both.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from app.rules.bots import Bot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.selfplay import bot_factory
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import roll_dice


@dataclass
class Side:
    """One side's tallies: per hand played by one of its seats."""

    hands: int = 0
    wins: int = 0
    deal_ins: int = 0
    self_draws: int = 0
    times: list[float] = field(default_factory=list)

    def rate(self, n: int) -> float:
        return n / self.hands if self.hands else 0.0


@dataclass
class Strength:
    variant: str
    candidate_name: str
    baseline_name: str
    wall_means: list[float] = field(default_factory=list)  # the candidate's, per wall
    hand_nets: list[int] = field(default_factory=list)  # the candidate's, per hand
    seating_totals: list[int] = field(default_factory=list)  # every seat's net, per hand
    house: list[int] = field(default_factory=list)  # the house's rewards, per hand
    candidate: Side = field(default_factory=Side)
    baseline: Side = field(default_factory=Side)
    seconds: float = 0.0

    @property
    def mean(self) -> float:
        return statistics.fmean(self.wall_means) if self.wall_means else 0.0

    def half_width(self) -> float:
        """95% half-width over the per-wall means (the duplicate estimate)."""
        n = len(self.wall_means)
        return 1.96 * statistics.stdev(self.wall_means) / math.sqrt(n) if n > 1 else math.inf

    def naive_half_width(self) -> float:
        """The half-width the same hands would give as independent hands."""
        n = len(self.hand_nets)
        return 1.96 * statistics.stdev(self.hand_nets) / math.sqrt(n) if n > 1 else math.inf

    def lines(self) -> list[str]:
        c, b = self.candidate, self.baseline
        walls = len(self.wall_means)
        hw, naive = self.half_width(), self.naive_half_width()
        saved = f"{naive / hw:.2f}x narrower" if hw and math.isfinite(hw) else "n/a"
        return [
            (f"{self.variant}: {self.candidate_name} vs 3 x {self.baseline_name}, {walls} walls x 4 "
            f"seatings = {c.hands} hands in {self.seconds:.0f} s"),
            (f"  mean net per hand {self.mean:+.2f}, 95% CI [{self.mean - hw:+.2f}, "
            f"{self.mean + hw:+.2f}] over per-wall means (as independent hands +-{naive:.2f}: "
            f"the pairing makes it {saved})"),
            f"  {'':10} {'win':>7} {'deal-in':>8} {'self-draw':>10} {'median ms':>10} {'p99 ms':>8}",
            _side_line(self.candidate_name, c),
            _side_line(self.baseline_name, b),
        ]


def _side_line(name: str, side: Side) -> str:
    times = sorted(side.times)
    median = statistics.median(times) * 1000 if times else 0.0
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000 if times else 0.0
    return (f"  {name[:10]:10} {side.rate(side.wins):7.1%} {side.rate(side.deal_ins):8.1%} "
            f"{side.rate(side.self_draws):10.1%} {median:10.2f} {p99:8.2f}")


def measure(
    variant: str, walls: int, seed: int, candidate: str, baseline: str = "greedy",
    progress: bool = False,
) -> Strength:
    ruleset = get_ruleset(variant)
    cand_factory, base_factory = bot_factory(candidate), bot_factory(baseline)
    master = random.Random(seed)
    result = Strength(variant, candidate, baseline)
    start = time.perf_counter()
    step_every = max(1, walls // 10)
    for w in range(walls):
        hand_seed = master.getrandbits(63)
        ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(random.Random(hand_seed))))
        total = 0
        for seat in range(4):
            players = [
                cand_factory(hand_seed, s) if s == seat else base_factory(hand_seed, s)
                for s in range(4)
            ]
            net, house = _play(ruleset, hand_seed, ctx, players, seat, result)
            total += net[seat]
            result.hand_nets.append(net[seat])
            result.seating_totals.append(sum(net))
            result.house.append(house)
        result.wall_means.append(total / 4)
        if progress and (w + 1) % step_every == 0:
            print(f"  {variant}: {w + 1}/{walls} walls, mean so far {result.mean:+.2f}, "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    result.seconds = time.perf_counter() - start
    return result


def _play(ruleset, seed: int, ctx: TableContext, players: list[Bot], cand: int,  # type: ignore[no-untyped-def]
          result: Strength) -> tuple[list[int], int]:
    state, _ = new_hand(ruleset, seed, ctx)
    clock = time.perf_counter
    c_times, b_times = result.candidate.times, result.baseline.times
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        legal = legal_actions(state, seat)
        t0 = clock()
        action = players[seat].choose(state, seat, legal)
        (c_times if seat == cand else b_times).append(clock() - t0)
        state, _ = step(state, action, in_place=True)
    assert state.settlement is not None
    net = list(state.settlement.net())
    winners = {w.seat: w for w in state.wins}
    for s in range(4):
        side = result.candidate if s == cand else result.baseline
        side.hands += 1
        win = winners.get(s)
        side.wins += win is not None
        side.self_draws += win is not None and win.self_draw
        side.deal_ins += any(w.from_seat == s for w in state.wins if not w.self_draw)
    return net, sum(state.settlement.house)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_strength", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=[*sorted(VARIANTS), "all"], default="all")
    parser.add_argument("--walls", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--candidate", default="expert")
    parser.add_argument("--baseline", default="greedy")
    args = parser.parse_args(argv)
    for name in (args.candidate, args.baseline):
        try:
            bot_factory(name)
        except ValueError as bad:
            parser.error(str(bad))
    variants = sorted(VARIANTS) if args.variant == "all" else [args.variant]
    for variant in variants:
        result = measure(variant, args.walls, args.seed, args.candidate, args.baseline, True)
        print("\n".join(result.lines()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
