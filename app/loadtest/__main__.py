"""`python -m app.loadtest --url http://127.0.0.1:8000 --tables N --seconds S` (or `--spawn`
instead of `--url` to start a throwaway server). The report goes to stdout (and to
`--json FILE`); the progress line and notes go to stderr."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.loadtest.run import MAX_SECONDS, MAX_TABLES, Options, run
from app.loadtest.servers import LoopbackOnly
from app.ops import memory
from app.tables.levels import BOT_LEVELS, DEFAULT_BOT_LEVEL


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app.loadtest", description=__doc__)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--url",
        help="the server under test (loopback only; it must allow 4 x --tables sockets from "
        "one address: WS_CONNECTIONS_PER_ADDRESS; with --house-bots, a BOT_POOL_SIZE and "
        "HOUSE_FLOAT that seat them all)",
    )
    target.add_argument(
        "--spawn", action="store_true",
        help="start a server in a subprocess (SQLite unless --database-url; cheap Argon2)",
    )
    parser.add_argument("--tables", type=int, default=10,
                        help=f"1-{MAX_TABLES} (4 seats each: load clients, or house bots)")
    parser.add_argument("--seconds", type=float, default=30, help=f"play time (at most {MAX_SECONDS})")
    parser.add_argument("--echo-seconds", type=float, default=None,
                        help="echo measurement time (default: min(seconds, 10))")
    parser.add_argument("--no-echo", action="store_true", help="skip the echo measurement")
    parser.add_argument("--variant", default="lishui")
    parser.add_argument("--stake", type=int, default=1)
    parser.add_argument("--database-url", help="with --spawn: the spawned server's database")
    parser.add_argument("--seed", type=int, default=1, help="the bots' random choices")
    parser.add_argument("--think-ms", type=_think, default=(0.0, 0.0), metavar="MS|MIN-MAX",
                        help="think time before each answer, drawn uniformly: MIN-MAX ms, or "
                        "MS for 0.5 MS to 1.5 MS (0, the default: answer at once)")
    parser.add_argument("--client-processes", type=int, default=min(4, os.cpu_count() or 1),
                        help="spread the clients over this many processes (default: the "
                        "cores, at most 4)")
    parser.add_argument("--server-processes", type=int, default=1,
                        help="with --spawn: PROCESSES of the server (more than 1 needs "
                        "--database-url and --redis-url); also the echo server's processes")
    parser.add_argument("--redis-url", help="with --spawn: the server as nodes of a cluster "
                        "(needed by --server-processes > 1)")
    parser.add_argument("--warm-seconds", type=float, default=10,
                        help="play before the server's memory is read and counting starts")
    parser.add_argument("--burst-at", type=float,
                        help="a settlement burst this many seconds into the run: one bot of "
                        "every --burst-every-th table leaves (its hand ends) and sits again 5-10 "
                        "s later; the other tables' actions in the --burst-window are reported "
                        "apart")
    parser.add_argument("--burst-every", type=int, default=2)
    parser.add_argument("--burst-window", type=float, default=15)
    parser.add_argument("--profile-server", type=Path,
                        help="with --spawn: run the server under cProfile, its stats to this file")
    parser.add_argument("--no-table-path", action="store_true",
                        help="sockets open /ws instead of /ws/<table_id> (which several server "
                        "processes serve on the table's own)")
    parser.add_argument("--house-bots", type=int, default=0, metavar="K",
                        help="0-3: seats of every table the server's house bots play (the "
                        "table's first client calls them: POST /tables/{id}/fill-bots); the "
                        "other 4-K are load clients")
    parser.add_argument("--bot-level", choices=BOT_LEVELS, default=DEFAULT_BOT_LEVEL,
                        help="who plays the house bots' seats (the tables' bot_level)")
    parser.add_argument("--bot-delay-ms", metavar="MIN,MAX",
                        help="with --spawn: how long the server's house bots (and 托管) wait "
                        "before each decision, as its BOT_DELAY_MS (\"600,1400\": drawn "
                        "uniformly; \"0\": at once). Default: with --house-bots the load "
                        "clients' --think-ms, else 0")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    return parser


def _think(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    if not high:
        mean = float(low)
        return (mean * 0.5, mean * 1.5)
    return (float(low), float(high))


def _raise_fd_limit(wanted: int) -> None:
    """Thousands of sockets need descriptors: raise the soft limit (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _run_loop(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        import uvloop

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        options = Options(
            url=None if args.spawn else args.url,
            tables=args.tables,
            seconds=args.seconds,
            echo_seconds=args.echo_seconds,
            variant=args.variant,
            stake=args.stake,
            database_url=args.database_url,
            echo=not args.no_echo,
            seed=args.seed,
            think_ms=args.think_ms,
            client_processes=min(args.client_processes, args.tables),
            server_processes=args.server_processes,
            redis_url=args.redis_url,
            warm_seconds=args.warm_seconds,
            burst_at=args.burst_at,
            burst_every=args.burst_every,
            burst_window=args.burst_window,
            profile_server=args.profile_server,
            table_path=not args.no_table_path,
            house_bots=args.house_bots,
            bot_level=args.bot_level,
            bot_delay_ms=args.bot_delay_ms,
        )
    except ValidationError as exc:
        print(f"bad options: {exc}", file=sys.stderr)
        return 2
    _raise_fd_limit(options.tables * 8 + 1024)
    try:
        report = _run_loop(run(options))
    except LoopbackOnly as exc:
        print(exc, file=sys.stderr)
        return 2
    print(report.text())
    if args.json is not None:
        args.json.write_text(report.model_dump_json(indent=2) + "\n")
    return 0 if report.errors == 0 else 1


if __name__ == "__main__":
    memory.tune()
    sys.exit(main())
