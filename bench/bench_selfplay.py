"""Self-play throughput: complete hands per second with random-legal and greedy bots.

The baseline, run in the same process, is a bare draw-and-discard loop with no rules at
all (shuffle, deal, every seat draws and throws a random tile until the wall is empty): the
ratio says what the rules, claim windows, win checks and settlement cost on top of it.

    python -m bench.bench_selfplay [--hands N]
"""

from __future__ import annotations

import argparse
import random
import time

from app.rules.selfplay import run as selfplay
from app.rules.tiles import full_set
from app.rules.variants import VARIANTS


def bare_hand(rng: random.Random) -> int:
    wall = full_set()
    rng.shuffle(wall)
    hands = [wall[i * 13 : (i + 1) * 13] for i in range(4)]
    pos, seat, steps = 52, 0, 0
    while pos < len(wall):
        hand = hands[seat]
        hand.append(wall[pos])
        pos += 1
        hand.pop(rng.randrange(len(hand)))
        seat = (seat + 1) % 4
        steps += 1
    return steps


def bare_rate(hands: int) -> float:
    rng = random.Random(1)
    start = time.perf_counter()
    for _ in range(hands):
        bare_hand(rng)
    return hands / (time.perf_counter() - start)


def run(hands: int = 2000, variants: tuple[str, ...] = tuple(VARIANTS)) -> str:
    baseline = bare_rate(hands)
    lines = [
        "| variant | bots | hands | invariant checks | hands/s | actions/hand | wins | vs bare loop |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for variant in variants:
        for bots, n in (("random", hands), ("greedy", max(hands // 10, 50))):
            for check in (False, True):
                report = selfplay(variant, n, seed=1, bots=bots, check=check)
                rate = report.hands_per_second
                lines.append(
                    f"| {variant} | {bots} | {n} | {'on' if check else 'off'} | {rate:,.0f} "
                    f"| {report.steps / report.hands:.0f} | {report.wins / report.hands:.0%} "
                    f"| {rate / baseline:.3f} |"
                )
    lines.append(f"\nBare draw-and-discard loop (baseline): {baseline:,.0f} hands/s.")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    print(run(parser.parse_args().hands))
