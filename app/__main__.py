"""`python -m app`: upgrade the database to the latest migration, grant the house its
opening float once (setting `house_float`: bots can be called on a fresh install), raise
the open-file limit (app/ops/serve.py), build the bots' shanten tables of the small suit
keys (`shanten.warm`: about 0.3 s of one core and 5 MiB; a fresh process's first expert
decisions would otherwise build them, bench/bots.md), then serve.

With `PROCESSES=N` (N > 1) the upgrade and the float happen once, here, and then a
supervisor serves the port with N worker processes, each a node of the cluster
(app/ops/supervisor.py). A worker is this command again with `--listen-fd`,
`--control-fd` and `--handoff-dir` (the supervisor's, not an operator's, options)."""

import argparse
import asyncio
import sys
from pathlib import Path

import uvicorn

from app.ops import memory, supervisor
from app.ops.serve import raise_open_file_limit, serve_worker, uvicorn_config, watch_supervisor
from app.rules import shanten
from app.settings import get_settings
from app.store import migrate
from app.store.house import open_house


def _worker(listen_fd: int, control_fd: int, handoff_dir: Path | None) -> None:
    control = watch_supervisor(control_fd)  # first: a worker never outlives its supervisor
    settings = get_settings()
    from app.main import app  # built before the heap is frozen

    shanten.warm()  # before the heap is frozen too
    memory.tune(settings.gc_thresholds)
    serve_worker(app, settings, listen_fd, control, handoff_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m app", description="Run the mahjong server.")
    parser.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--control-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--handoff-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.listen_fd is not None and args.control_fd is not None:
        _worker(args.listen_fd, args.control_fd, args.handoff_dir)
        sys.exit(0)
    settings = get_settings()
    if (problem := supervisor.refusal(settings)) is not None:  # PROCESSES > 1 only
        sys.exit(f"python -m app: {problem}")
    if settings.migrate_on_start:
        migrate.upgrade(settings.database_url)
    asyncio.run(open_house(settings))
    if settings.processes > 1:
        sys.exit(supervisor.run(settings))
    from app.main import app  # built before the heap is frozen

    shanten.warm()  # before the heap is frozen too
    memory.tune(settings.gc_thresholds)
    config = uvicorn_config(app, settings)  # also sets up the logs
    raise_open_file_limit()
    uvicorn.Server(config).run()
