"""Benchmark: table-driven win detection against a plain recursive search.

``python -m bench.bench_winning`` prints a markdown report; `run()` returns the same text.

For 14- and 17-tile hands, random and near-win, with 0-4 wilds: checks/s of
`is_standard_win` (warm tables, a fixed seeded sample, best of 9 rounds that time the 0-4
wilds samples in turn) and of `recursive_win`, the plain recursive search below, on the first
hands of the same sample; then waits/s of `winning_tiles` on 13-tile hands against 34 calls of
the recursive search per hand.
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from app.rules.tiles import counts_of, full_set
from app.rules.winning import is_standard_win, winning_tiles
from bench import compile as compiled_build

SAMPLE = 20_000  # hands per row for the table-driven functions
BASELINE_SAMPLE = 2_000  # the first hands of the same sample for the recursive search
REPEATS = 3
FAST_REPEATS = 9  # a pass of the table-driven functions takes ~20 ms: more tries, less noise
SEED = 20240601
WILDS = (0, 1, 2, 3, 4)
WARM_UP_SECONDS = 2.0

Hand = tuple[list[int], int]


# --------------------------------------------------------------------------- the baseline


def _sets_only(counts: list[int], wilds: int) -> bool:
    """Plain recursive search: the lowest tile goes into a pung or a chow; a missing tile is
    filled by a wild. No tables, no memo."""
    low = next((k for k in range(34) if counts[k]), -1)
    if low < 0:
        return wilds % 3 == 0
    have = counts[low]
    took = min(have, 3)
    if 3 - took <= wilds:
        counts[low] -= took
        found = _sets_only(counts, wilds - 3 + took)
        counts[low] += took
        if found:
            return True
    if low < 27:
        rank = low % 9
        for start in range(max(low - 2, low - rank), min(low, low - rank + 6) + 1):
            taken = [k for k in range(start, start + 3) if counts[k]]
            used = 3 - len(taken)
            if used > wilds:
                continue
            for k in taken:
                counts[k] -= 1
            found = _sets_only(counts, wilds - used)
            for k in taken:
                counts[k] += 1
            if found:
                return True
    return False


def recursive_win(counts: Sequence[int], wilds: int) -> bool:
    """The reference: try every pair (two real, real + wild, two wilds), then sets."""
    if (sum(counts) + wilds) % 3 != 2:
        return False
    work = list(counts)
    if wilds >= 2 and _sets_only(work, wilds - 2):
        return True
    for kind in range(34):
        have = work[kind]
        if have and (have >= 2 or wilds >= 1):
            took = min(have, 2)
            work[kind] -= took
            found = _sets_only(work, wilds - 2 + took)
            work[kind] += took
            if found:
                return True
    return False


def recursive_waits(counts: Sequence[int], wilds: int) -> list[int]:
    """Waits by brute force: add each kind and run the recursive search."""
    work = list(counts)
    out = []
    for kind in range(34):
        if work[kind] < 4:
            work[kind] += 1
            if recursive_win(work, wilds):
                out.append(kind)
            work[kind] -= 1
    return out


# --------------------------------------------------------------------------- samples


def random_hands(rng: random.Random, size: int, wilds: int, count: int) -> list[Hand]:
    """`count` hands of `size` tiles drawn from the 136-tile set, `wilds` of them wild."""
    wall = full_set()
    return [(counts_of(rng.sample(wall, size - wilds)), wilds) for _ in range(count)]


def near_win(rng: random.Random, size: int, wilds: int) -> Hand:
    """A winning hand of random sets and a pair, `wilds` tiles replaced by wilds, and in half
    the hands one tile swapped for a random one."""
    while True:
        tiles = [rng.randrange(34)] * 2
        for _ in range((size - 2) // 3):
            kind = rng.randrange(34)
            if kind < 27 and kind % 9 <= 6 and rng.random() < 0.6:
                tiles += [kind, kind + 1, kind + 2]
            else:
                tiles += [kind] * 3
        if all(tiles.count(k) <= 4 for k in set(tiles)):
            break
    rng.shuffle(tiles)
    tiles = tiles[wilds:]
    if tiles and rng.random() < 0.5:
        swapped = rng.randrange(34)
        if tiles.count(swapped) < 4:
            tiles[0] = swapped
    return counts_of(tiles), wilds


def near_win_hands(rng: random.Random, size: int, wilds: int, count: int) -> list[Hand]:
    return [near_win(rng, size, wilds) for _ in range(count)]


# --------------------------------------------------------------------------- timing


def per_second(
    check: Callable[[list[int], int], object], hands: list[Hand], repeats: int = REPEATS
) -> float:
    """Calls per second of `check` over `hands`: best of `repeats` runs."""
    return per_second_each(check, [hands], repeats)[0]


def per_second_each(
    check: Callable[[list[int], int], object], samples: list[list[Hand]], repeats: int
) -> list[float]:
    """Calls per second of `check` over each sample, best of `repeats` rounds; each round
    times every sample once, in turn, so a slower spell of the shared machine falls on all
    of them alike (the 0-4 wilds spread compares these figures)."""
    best = [float("inf")] * len(samples)
    for _ in range(repeats):
        for i, hands in enumerate(samples):
            start = time.perf_counter()
            for counts, wilds in hands:
                check(counts, wilds)
            best[i] = min(best[i], time.perf_counter() - start)
    return [len(hands) / seconds for hands, seconds in zip(samples, best, strict=True)]


def _fmt(rate: float) -> str:
    return f"{rate:,.0f}"


def import_seconds() -> float:
    """Wall time of ``import app.rules.winning`` in a fresh interpreter (builds the tables)."""
    code = (
        "import time; t = time.perf_counter(); import app.rules.winning; "
        "print(time.perf_counter() - t)"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    return float(out.stdout.strip())


def machine() -> str:
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.release()}"
    )


def warm_up(seconds: float = WARM_UP_SECONDS) -> None:
    """Keep the core busy before the first timing: on the shared machine a fresh process ran
    its first second or two up to twice as slow, which made whichever row came first (0
    wilds) look like the slowest."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(1000))


def check_rows(rng: random.Random) -> list[str]:
    rows = [
        "| tiles | hands | wilds | wins | `is_standard_win` checks/s | recursive search checks/s | ratio |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    spreads = []
    for size in (14, 17):
        for label, make in (("random", random_hands), ("near-win", near_win_hands)):
            samples = [make(rng, size, wilds, SAMPLE) for wilds in WILDS]
            for hands in samples:
                for counts, w in hands[:BASELINE_SAMPLE]:  # the two must agree
                    assert is_standard_win(counts, w) == recursive_win(counts, w)
            wins = [sum(is_standard_win(c, w) for c, w in hands) for hands in samples]  # warms
            rates = per_second_each(is_standard_win, samples, FAST_REPEATS)
            for wilds, hands, won, fast in zip(WILDS, samples, wins, rates, strict=True):
                slow = per_second(recursive_win, hands[:BASELINE_SAMPLE])
                rows.append(
                    f"| {size} | {label} | {wilds} | {100 * won / len(hands):.0f}% "
                    f"| {_fmt(fast)} | {_fmt(slow)} | {fast / slow:,.0f}x |"
                )
            spreads.append(f"{size} {label} {1 - min(rates) / max(rates):.0%}")
    rows += ["", "Spread from 0 to 4 wilds (1 - slowest / fastest): " + ", ".join(spreads) + "."]
    return rows


def wait_rows(rng: random.Random) -> list[str]:
    rows = [
        "| tiles | hands | wilds | waiting | `winning_tiles` hands/s | 34 x recursive hands/s | ratio |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for label, make in (("random", random_hands), ("near-win", near_win_hands)):
        for wilds in WILDS:
            if label == "random":
                hands = random_hands(rng, 13, wilds, SAMPLE)
            else:  # a near-win 14-tile hand less one tile
                hands = []
                for counts, w in make(rng, 14, wilds, SAMPLE):
                    tiles = [k for k, c in enumerate(counts) for _ in range(c)]
                    tiles.pop(rng.randrange(len(tiles)))
                    hands.append((counts_of(tiles), w))
            for counts, w in hands[: BASELINE_SAMPLE // 10]:
                assert winning_tiles(counts, w) == recursive_waits(counts, w)
            waiting = sum(bool(winning_tiles(c, w)) for c, w in hands)
            fast = per_second(winning_tiles, hands, FAST_REPEATS)
            slow = per_second(recursive_waits, hands[: BASELINE_SAMPLE // 10])
            rows.append(
                f"| 13 | {label} | {wilds} | {100 * waiting / len(hands):.0f}% "
                f"| {_fmt(fast)} | {_fmt(slow)} | {fast / slow:,.0f}x |"
            )
    return rows


def probe_main() -> None:
    """In a subprocess (`bench.compile.probe`): which core this is, and `is_standard_win`
    checks/s with the wins found, per row of seeded samples (the same in every process)."""
    import app
    from app.rules import winning

    warm_up()
    rng = random.Random(SEED)
    rows = []
    for size in (14, 17):
        for label, make in (("random", random_hands), ("near-win", near_win_hands)):
            samples = [make(rng, size, wilds, SAMPLE) for wilds in WILDS]
            wins = [sum(is_standard_win(c, w) for c, w in hands) for hands in samples]
            rates = per_second_each(is_standard_win, samples, FAST_REPEATS)
            rows += [
                [size, label, wilds, won, rate]
                for wilds, won, rate in zip(WILDS, wins, rates, strict=True)
            ]
    compiled = not winning.__file__.endswith(".py")
    print(json.dumps({"app": app.__file__, "compiled": compiled, "rows": rows}))


def compiled_rows(build: Path = compiled_build.BUILD) -> list[str]:
    """`is_standard_win`, pure and compiled (`python -m bench.compile`) side by side, each in
    a process of its own; no figure unless both find the same wins in every sample."""
    state = compiled_build.status(compiled_build.ROOT, build)
    if not state.fresh:
        return [f"Compiled core: not measured ({state.describe(build)})."]
    pure = compiled_build.probe(compiled_build.ROOT, "bench.bench_winning")
    fast = compiled_build.probe(build, "bench.bench_winning")
    if pure["compiled"] or not fast["compiled"]:
        raise RuntimeError(f"expected a pure and a compiled core: {pure['app']}, {fast['app']}")
    rows = [
        (
            "Pure and compiled side by side, each in a process of its own, the same samples "
            "(both find the same wins in each):"
        ),
        "",
        "| tiles | hands | wilds | pure checks/s | compiled checks/s | compiled / pure |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for (size, label, wilds, wins, rate), other in zip(pure["rows"], fast["rows"], strict=True):
        if other[3] != wins:
            raise RuntimeError(f"{size} {label} {wilds}: the compiled core found other wins")
        rows.append(f"| {size} | {label} | {wilds} | {_fmt(rate)} | {_fmt(other[4])} "
                    f"| {other[4] / rate:.2f}x |")
    return rows


def run() -> str:
    """Run the benchmark and return its markdown report."""
    rng = random.Random(SEED)
    warm_up()
    lines = [
        "## Win detection (`app.rules.winning`)",
        "",
        f"Machine: {machine()}.",
        (
            "Import of `app.rules.winning` (builds every suit vector of <= 8 tiles): "
            f"{import_seconds() * 1000:.0f} ms."
        ),
        (
            f"Each row: a seeded sample of {SAMPLE:,} hands (seed {SEED}); the table-driven "
            "function runs on all of them with warm tables, the plain recursive search on the "
            f"first {BASELINE_SAMPLE:,} (waits: the first {BASELINE_SAMPLE // 10:,}); best of "
            f"{FAST_REPEATS} runs (the recursive search: {REPEATS}; the win check's runs of "
            "0-4 wilds taken in turn, round by round), one core, after "
            f"{WARM_UP_SECONDS:g} s of warm-up. Both agree on every hand they both see."
        ),
        "",
        "### `is_standard_win` vs recursive search",
        "",
        *check_rows(rng),
        "",
        "### `is_standard_win`: pure vs compiled core",
        "",
        *compiled_rows(),
        "",
        "### Waits: `winning_tiles` vs 34 recursive checks",
        "",
        *wait_rows(rng),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())
