"""Self-play throughput: complete hands per second with random-legal and greedy bots.

The baseline, run in the same process, is a bare draw-and-discard loop with no rules at
all (shuffle, deal, every seat draws and throws a random tile until the wall is empty): the
ratio says what the rules, claim windows, win checks and settlement cost on top of it.

Then, if `python -m bench.compile` has built the compiled core and it is up to date, the
pure and the compiled core side by side: each in a subprocess of its own (the compiled one
with `build/compiled` first on its path), taking turns per variant, random bots, no
invariant checks, the best of a few rounds in CPU time. The compiled core must play the
same hands: the digests of seeded hands (as in tests/rules/test_determinism.py) and the
totals of the timed run must match the pure core's, or no figure is reported.

    python -m bench.bench_selfplay [--hands N] [--compare-hands N] [--rounds N]
    python -m bench.bench_selfplay --before 61bddd7 [--compare-hands N] [--rounds N]

With `--before REV` (a git revision, or a directory holding an older checkout) it measures
the pure core of that revision and of this tree side by side instead: each in a subprocess of
its own, taking turns round by round, random bots, no invariant checks, the best round in CPU
time; both must play the same hands (the same digests and totals).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.rules.selfplay import digest
from app.rules.selfplay import run as selfplay
from app.rules.tiles import full_set
from app.rules.variants import VARIANTS
from bench import compile as compiled_build


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


# --------------------------------------------------------------------------- pure vs compiled

DIGESTS = ((40, 1, "random"), (4, 2, "greedy"))  # (hands, seed, bots), as test_determinism


class CompiledMismatch(Exception):
    """The compiled core played different hands from the pure one."""


def probe(variant: str, hands: int, rounds: int) -> dict[str, Any]:
    """In the subprocess: which core this is, its digests of seeded hands, and the best of
    `rounds` timed runs of `hands` random-bot hands (seed 1, no checks) in CPU time."""
    import app
    import app.rules.hand

    rate = 0.0
    report = None
    for _ in range(rounds):
        start = time.process_time()
        report = selfplay(variant, hands, seed=1, bots="random", check=False)
        rate = max(rate, hands / max(time.process_time() - start, 1e-9))
    assert report is not None
    return {
        "app": app.__file__,
        "compiled": not app.rules.hand.__file__.endswith(".py"),
        "digests": [digest(variant, n, seed, bots) for n, seed, bots in DIGESTS],
        "totals": [report.steps, report.wins, report.self_draws, report.draws, report.net,
                   report.house],
        "rate": rate,
    }


def probe_main() -> None:
    variant, hands, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(probe(variant, hands, rounds)))


def spawn(app_root: Path, variant: str, hands: int, rounds: int) -> dict[str, Any]:
    """`probe` in a fresh interpreter that imports `app` from `app_root`."""
    return compiled_build.probe(app_root, "bench.bench_selfplay", variant, hands, rounds)


def compare(
    hands: int = 500, rounds: int = 3, variants: tuple[str, ...] = tuple(VARIANTS),
    build: Path = compiled_build.BUILD,
) -> str:
    """Pure vs compiled, side by side; raises `CompiledMismatch` if they play differently."""
    state = compiled_build.status(compiled_build.ROOT, build)
    if not state.fresh:
        return f"Compiled core: not measured ({state.describe(build)})."
    lines = [
        (
            f"Pure and compiled core side by side: {hands} random-bot hands per variant (seed 1,"
            f" no invariant checks), best of {rounds} rounds in CPU time, each core in its own"
            " process. Same hands: the digests of 40 random + 4 greedy seeded hands and the"
            " timed run's totals match."
        ),
        "",
        "| variant | pure hands/s | compiled hands/s | compiled / pure | same hands |",
        "|---|---:|---:|---:|---|",
    ]
    for variant in variants:
        pure = spawn(compiled_build.ROOT, variant, hands, rounds)
        fast = spawn(build, variant, hands, rounds)
        if pure["compiled"] or not fast["compiled"]:
            raise RuntimeError(f"{variant}: expected a pure and a compiled core, got {pure} {fast}")
        for what in ("digests", "totals"):
            if pure[what] != fast[what]:
                raise CompiledMismatch(
                    f"{variant}: the compiled core plays different hands ({what}: pure "
                    f"{pure[what]}, compiled {fast[what]}); no figure reported"
                )
        lines.append(
            f"| {variant} | {pure['rate']:,.0f} | {fast['rate']:,.0f} "
            f"| {fast['rate'] / pure['rate']:.2f}x | yes |"
        )
    return "\n".join(lines)


def compare_before(
    before: Path, hands: int = 500, rounds: int = 3, variants: tuple[str, ...] = tuple(VARIANTS)
) -> str:
    """The pure core of an older checkout (`before`) against this tree's, side by side: one
    process per core and round, the two taking turns, so a busy spell of the shared machine
    falls on both. Raises `CompiledMismatch` if they play different hands."""
    lines = [
        "| variant | before hands/s | now hands/s | now / before | same hands |",
        "|---|---:|---:|---:|---|",
    ]
    for variant in variants:
        best = {"before": 0.0, "now": 0.0}
        seen: dict[str, dict[str, Any]] = {}
        for _ in range(rounds):
            for name, root in (("before", before), ("now", compiled_build.ROOT)):
                seen[name] = spawn(root, variant, hands, 1)
                best[name] = max(best[name], seen[name]["rate"])
        for what in ("digests", "totals"):
            if seen["before"][what] != seen["now"][what]:
                raise CompiledMismatch(
                    f"{variant}: this tree plays different hands from {before} ({what})"
                )
        lines.append(
            f"| {variant} | {best['before']:,.0f} | {best['now']:,.0f} "
            f"| {best['now'] / best['before']:.2f}x | yes |"
        )
    return "\n".join(lines)


def checkout(rev: str, into: Path) -> Path:
    """`rev` of this repository exported into `into` (or `rev` itself if it is a directory)."""
    if Path(rev).is_dir():
        return Path(rev).resolve()
    archive = subprocess.run(
        ["git", "archive", rev], cwd=compiled_build.ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_selfplay")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--compare-hands", type=int, default=500,
                        help="hands per variant and round, pure vs compiled")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only-compare", action="store_true",
                        help="skip the pure table, measure pure vs compiled only")
    parser.add_argument("--before", metavar="REV",
                        help="measure an older revision's pure core against this tree's")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    chosen = tuple(args.variants.split(","))
    if args.before:
        with tempfile.TemporaryDirectory() as tmp:
            tree = checkout(args.before, Path(tmp))
            print(f"Pure core of {args.before} (before) and of this tree (now):\n")
            try:
                print(compare_before(tree, args.compare_hands, args.rounds, chosen))
            except CompiledMismatch as mismatch:
                print(f"MISMATCH: {mismatch}", file=sys.stderr)
                sys.exit(1)
        sys.exit(0)
    if not args.only_compare:
        print(run(args.hands))
        print()
    try:
        print(compare(args.compare_hands, args.rounds))
    except CompiledMismatch as mismatch:
        print(f"COMPILED CORE MISMATCH: {mismatch}", file=sys.stderr)
        sys.exit(1)
