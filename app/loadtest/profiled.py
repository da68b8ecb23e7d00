"""`python -m app.loadtest.profiled STATS`: the game server (`python -m app`) under cProfile,
its stats written to STATS when it stops (`--profile-server` of the load test).

uvicorn re-raises SIGTERM after its graceful shutdown with the handler that was there
before it started, so the handler installed here writes the stats and exits cleanly.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
from types import FrameType


def main() -> None:
    out = sys.argv.pop(1)
    profiler = cProfile.Profile()

    def stop(signum: int, frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    profiler.enable()
    try:
        runpy.run_module("app", run_name="__main__")
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    main()
