"""Run every benchmark and rewrite bench/results.md with the machine noted.

    python -m bench [--before REV]

With `--before REV` (e.g. 61bddd7, the commit before issue 18), the pure core of that
revision is also measured against this tree's, side by side.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import tempfile
from pathlib import Path

from bench import bench_abuse, bench_bots, bench_replay, bench_selfplay, bench_winning
from bench import sections as results


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )


def load() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"
    except OSError:
        return "unknown"


def before_section(rev: str | None) -> list[str]:
    if rev is None:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        tree = bench_selfplay.checkout(rev, Path(tmp))
        table = bench_selfplay.compare_before(tree)
    return [
        f"### Pure core: {rev} (before issue 18) vs now",
        "",
        (
            "500 random-bot hands per variant (seed 1, no invariant checks), best of 3 rounds"
            " in CPU time, each core in a process of its own per round, the two taking turns;"
            " both play the same hands (the same digests and totals)."
        ),
        "",
        table,
        "",
    ]


def _kept(heading: str) -> list[str]:
    """The section under `heading` that a benchmark run on its own left, and a blank line."""
    section = results.kept(heading)
    return [section, ""] if section else []


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--before", metavar="REV",
                        help="also measure this revision's pure core against this tree's")
    args = parser.parse_args()
    sections = [
        "# Benchmark results",
        "",
        f"Machine: {machine()}. Run on {dt.date.today().isoformat()} with `python -m bench"
        + (f" --before {args.before}`;" if args.before else "`;"),
        "every figure is on one core, each ratio against a baseline run in the same process.",
        f"Load average when the run started: {load()} (above 1, other work shared the cores",
        "and every absolute figure is low; the ratios hold better).",
        "",
        bench_winning.run(),
        "",
        "## Self-play",
        "",
        bench_selfplay.run(),
        "",
        "### Pure vs compiled core (`python -m bench.compile`)",
        "",
        bench_selfplay.compare(),
        "",
        *before_section(args.before),
        "## The greedy bot, before and after issue 18 (`python -m bench.bench_bots`)",
        "",
        bench_bots.run(),
        "",
        # each run on its own (python -m bench.bench_abuse / bench_replay --write): kept
        # from the last run
        *_kept(bench_abuse.HEADING),
        *_kept(bench_replay.HEADING),
        "## See also",
        "",
        "- [load.md](load.md): the WebSocket load runs (`python -m app.loadtest`).",
        "- [README.md](README.md): how the figures are taken, self-play before and after the",
        "  hot-path work, and where a hand's time goes.",
        "",
    ]
    text = "\n".join(sections)
    print(text)
    (Path(__file__).parent / "results.md").write_text(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
