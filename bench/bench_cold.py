"""The expert's decision time in a fresh process, and a digest of every decision it made.

    python -m bench.bench_cold --variant lishui --walls 120 --seed 1
    python -m bench.bench_cold --variant all --walls 120 --seed 1 --warm

Plays `--walls` seeded walls (the hand seeds of `bench.bench_strength --seed`) with the
expert in all four seats, in this process, which has not decided anything before: the
shanten tables start as a server process's start (with `--warm`, after the warming a
server does at start-up, `app.rules.shanten.warm`, itself timed). Reports the time of
each decision (time.perf_counter around `choose`): the median and p99 of all, and of the
process's first 1,000 decisions their sum, median and p99; and a SHA-256 of every decision
in order (the action chosen, with the seat and the legal actions it was chosen from), which
two versions of the bot share exactly when they decide the same on those walls. Run it on
one core (`taskset -c 1`) with nothing else heavy beside it; `--variant all` runs each
variant in a fresh process of its own.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time

from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import roll_dice

FIRST = 1000  # the decisions of a fresh process reported apart


def _ms(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def run(variant: str, walls: int, seed: int, warm: bool) -> dict[str, object]:
    """One variant in this process; the figures as a dict."""
    warm_seconds = None
    if warm:
        from app.rules.shanten import warm as warm_tables

        t0 = time.perf_counter()
        warm_tables()
        warm_seconds = round(time.perf_counter() - t0, 3)
    from app.rules.expert import ExpertBot

    bot = ExpertBot()
    ruleset = get_ruleset(variant)
    master = random.Random(seed)
    digest = hashlib.sha256()
    times: list[float] = []
    clock = time.perf_counter
    for _ in range(walls):
        hand_seed = master.getrandbits(63)
        ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(random.Random(hand_seed))))
        state, _ = new_hand(ruleset, hand_seed, ctx)
        while state.phase != "ended":
            seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
            legal = legal_actions(state, seat)
            t0 = clock()
            action = bot.choose(state, seat, legal)
            times.append(clock() - t0)
            digest.update(repr((seat, legal, action)).encode())
            state, _ = step(state, action, in_place=True)
    first = times[:FIRST]
    return {
        "variant": variant,
        "walls": walls,
        "decisions": len(times),
        "warm_s": warm_seconds,
        "median_ms": round(statistics.median(times) * 1000, 3),
        "p99_ms": round(_ms(times, 0.99), 2),
        "mean_ms": round(statistics.fmean(times) * 1000, 3),
        "first_sum_s": round(sum(first), 3),
        "first_median_ms": round(statistics.median(first) * 1000, 3),
        "first_p99_ms": round(_ms(first, 0.99), 2),
        "digest": digest.hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_cold", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=[*VARIANTS, "all"], default="lishui")
    parser.add_argument("--walls", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warm", action="store_true")
    args = parser.parse_args(argv)
    if args.variant == "all":
        for variant in VARIANTS:  # each in a fresh process
            command = [sys.executable, "-m", "bench.bench_cold", "--variant", variant,
                       "--walls", str(args.walls), "--seed", str(args.seed)]
            subprocess.run(command + (["--warm"] if args.warm else []), check=True)
        return 0
    print(json.dumps(run(args.variant, args.walls, args.seed, args.warm)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
