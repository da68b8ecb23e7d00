"""Run every benchmark and rewrite bench/results.md with the machine noted.

    python -m bench
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from pathlib import Path

from bench import bench_abuse, bench_selfplay, bench_winning


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


def main() -> None:
    sections = [
        "# Benchmark results",
        "",
        f"Machine: {machine()}. Run on {dt.date.today().isoformat()} with `python -m bench`;",
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
        # run on its own (python -m bench.bench_abuse --write): kept from the last run
        *([bench_abuse.kept(), ""] if bench_abuse.kept() else []),
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
