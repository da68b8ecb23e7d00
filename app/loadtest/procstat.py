"""What the load test reads off this machine (Linux `/proc`): the memory and CPU time of a
process and its children (the server under test: a supervisor and its workers), and how
busy each core was. Elsewhere every reading is None and the report leaves it out."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in (PROC / str(pid) / "task").iterdir():
            text = (task / "children").read_text()
            found += [int(p) for p in text.split()]
    except OSError:
        pass
    return found


def tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def rss_bytes(pids: list[int]) -> int | None:
    """The resident memory of `pids` together (VmRSS), or None when it cannot be read."""
    total, read = 0, False
    for pid in pids:
        try:
            for line in (PROC / str(pid) / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
                    read = True
        except OSError:
            continue
    return total if read else None


def cpu_seconds(pids: list[int]) -> float | None:
    """User plus system CPU time of `pids` so far (their waited-for children excluded)."""
    total, read = 0.0, False
    for pid in pids:
        try:
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
        read = True
    return total if read else None


@dataclass(frozen=True)
class CoreTimes:
    """Per core: (busy, total) jiffies since boot."""

    cores: tuple[tuple[int, int], ...]

    @classmethod
    def now(cls) -> CoreTimes | None:
        try:
            lines = (PROC / "stat").read_text().splitlines()
        except OSError:
            return None
        cores = []
        for line in lines:
            name, *values = line.split()
            if not name.startswith("cpu") or name == "cpu":
                continue
            numbers = [int(v) for v in values]
            idle = numbers[3] + (numbers[4] if len(numbers) > 4 else 0)  # idle + iowait
            cores.append((sum(numbers[:8]) - idle, sum(numbers[:8])))
        return cls(tuple(cores))

    def busy_since(self, before: CoreTimes) -> list[float]:
        """How busy each core was between `before` and this reading, 0..1."""
        out = []
        for (busy, total), (busy0, total0) in zip(self.cores, before.cores, strict=True):
            span = total - total0
            out.append(round((busy - busy0) / span, 3) if span > 0 else 0.0)
        return out
