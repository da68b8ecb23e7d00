"""What a replay flood costs the other tables: `python -m bench.bench_replay [--tables N]
[--think MIN-MAX] [--seconds S] [--modes MODE ...] [--rounds N] [--database-url URL]
[--write]`.

An attack run found that `GET /hands/{id}/replay?views=true` rebuilt its hand on the event
loop for every request: five accounts on five addresses replaying in a loop, within every
request limit, took the node from 0.17 to 0.89 cores and cut the other tables' hands per
minute by 42%.

One process, one event loop, like a server node: the app itself (`create_app`, its
middlewares and request limits as configured by default) and `--tables` tables of four
seats, each seat a `Connection` to a counting socket and a bot that answers each prompt
after a think time (the load test's bot; `bench/bench_escapes.py`'s seats), the hands
stored as in production. Five flooding accounts each have `--hands` stored 丽水 hands of
their own (random-bot self-play, the load test's kind of hand) and each asks
`GET /hands/{id}/replay?views=true` for the next of them 5 times a second (the default
REQUESTS_PER_ACCOUNT, 300 a minute, which is the bar that binds: each comes from an
address of its own), through the app's ASGI interface (no sockets: the client costs the
loop next to nothing). Each run is one mode, in turn, with fresh tables:

- `none`: no flood (the baseline);
- `me`: the same accounts flood `GET /me` at the same pace instead: what any authenticated
  request costs the loop at the rate the request limits allow (the floor for a replay);
- `loop`: the flood, each replay built on the event loop and nothing kept (as the code
  before the fix did, with today's cheaper build);
- `thread`: the flood, built in a worker thread, nothing kept (what the GIL leaves);
- `process`: the flood, built in a worker process, nothing kept;
- `shipped`: the flood against the shipped defaults: built in a worker process, kept
  (REPLAY_CACHE_BYTES) and at most REPLAY_BUILDS_PER_ACCOUNT builds per account a minute.

Reported per run, over the window after a warm-up: the other tables' turn actions (from the
action handed to the table to its first event handed to the seat's connection) p50 / p99 /
mean, the hands they finished per minute, their actions per minute, how late a callback
due every 2 ms ran (p99 / max), the node's CPU (this process) and the builders' (their
processes), the replays answered (200, 429 of the builds' budget, 429 of the request
limits, 503) and the builds started; then each flood mode's ratios to the runs without a
flood, medians over `--rounds` rounds of the modes in turn, so that a spell of other work
on a shared machine lands on one run and not on a whole mode (the acceptance line: the
other tables' latency and hands per minute within 10%).

First it prints what one replay's build costs per variant (CPU ms in this process, the
median of --hands hands of random-bot self-play per variant), and what one request costs
the event loop when built on the loop, when built in a worker process and when kept, and
what `GET /me` costs.

PostgreSQL by default; the database named in --database-url is emptied.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, MutableMapping
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select, text

from app.api import replay_build, tokens
from app.api.ratelimit import MemoryQuota
from app.api.replay_cache import ReplayCache, worker_pool
from app.main import create_app
from app.ops import memory
from app.protocol.actions import logged_action
from app.protocol.encode import Encoded
from app.rules.context import TableContext
from app.rules.selfplay import bot_factory, play_hand
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import seed_bytes
from app.settings import Settings
from app.store.db import Database
from app.store.migrate import upgrade
from app.store.models import Account, HandRecord
from app.tables.registry import TableRegistry
from bench import sections
from bench.bench_broadcast import funded
from bench.bench_escapes import TIMERS, Figures, Seat, _lateness, _q

HEADING = "## Replays under a flood (`python -m bench.bench_replay`)"
FLOODERS = 5
MODES = ("none", "me", "loop", "thread", "process", "shipped")
_started = time.monotonic()


def progress(message: str) -> None:
    print(f"[{time.monotonic() - _started:6.1f} s] {message}", file=sys.stderr, flush=True)


# --- stored hands ------------------------------------------------------------------------------


def self_played(variant: str, seed: int) -> tuple[replay_build.StoredHand, dict[str, Any]]:
    """A random-bot hand of `variant` as a record stores it, and its result column."""
    ctx = TableContext(dealer=seed % 4, streak=0, seat_points=(0, 0, 0, 0), draw_bonus=0)
    run = play_hand(get_ruleset(variant), seed, ctx, bot_factory("random"), check=False)
    hand = replay_build.StoredHand(
        variant=variant,
        seed=seed_bytes(seed).hex(),
        ctx=json.dumps({"dealer": ctx.dealer, "streak": 0, "seat_points": [0, 0, 0, 0],
                        "draw_bonus": 0}),
        actions="[" + ",".join(logged_action(a) for a in run.actions) + "]",
    )
    assert run.state.settlement is not None
    return hand, {"outcome": run.state.outcome, "net": run.state.settlement.net()}


async def store_hands(db: Database, owners: list[int], mates: list[int], per: int) -> dict[
        int, list[str]]:
    """`per` stored 丽水 hands for each of `owners` (at seat 0, `mates` at the others)."""
    hands: dict[int, list[str]] = {}
    async with db.sessions() as session, session.begin():
        for n, owner in enumerate(owners):
            hands[owner] = []
            for i in range(per):
                seed = 1 + n * per + i
                hand, result = self_played("lishui", seed)
                hand_id = f"flood-{owner}-{i}"
                session.add(HandRecord(
                    id=hand_id, table_id="flood", variant=hand.variant, seed=hand.seed,
                    seats=json.dumps([owner, *mates]), ctx=hand.ctx, actions=hand.actions,
                    result=json.dumps(result), voided=False,
                ))
                hands[owner].append(hand_id)
    return hands


# --- the requests -------------------------------------------------------------------------------


async def asgi_get(app: FastAPI, path: str, query: str, token: str, address: str
                   ) -> tuple[int, bytes]:
    """One GET through the app's ASGI interface (middlewares included): status, body."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
        "query_string": query.encode(), "client": (address, 40000), "server": ("bench", 80),
        "headers": [(b"host", b"bench"), (b"authorization", f"Bearer {token}".encode())],
    }
    done = asyncio.Event()
    asked = False
    status = 0
    body: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))
            if not message.get("more_body"):
                done.set()

    await app(scope, receive, send)
    return status, b"".join(body)


@dataclass
class Flooder:
    token: str
    address: str
    hands: list[str]
    answers: Counter[str]

    async def run(self, app: FastAPI, stop: asyncio.Event, per_second: float, me: bool
                  ) -> None:
        """The next of its hands (`me`: its own account), `per_second` times a second,
        whatever the answers."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        n = 0
        while not stop.is_set():
            hand = self.hands[n % len(self.hands)]
            n += 1
            path, query = ("/me", "") if me else (f"/hands/{hand}/replay", "views=true")
            status, body = await asgi_get(app, path, query, self.token, self.address)
            # a 429 of the replay builds, or of the request limits (the flood's pace is
            # just under them, but their sliding window is an estimate)
            kind = "budget" if status == 429 and b"replays" in body else str(status)
            self.answers[kind] += 1
            due += 1 / per_second
            await asyncio.sleep(max(0.0, due - loop.time()))


def replays_for(mode: str, settings: Settings) -> ReplayCache:
    """The replay cache of a run's mode (module docstring)."""
    unbounded = MemoryQuota(10**9, 60)
    builders: dict[str, Callable[[], Executor] | None] = {
        "loop": None,
        "thread": lambda: ThreadPoolExecutor(1),
        "process": lambda: worker_pool(settings.replay_builders),
    }
    if mode in ("shipped", "none", "me"):
        return ReplayCache.from_settings(settings)
    return ReplayCache(0, unbounded, builders[mode], waiting=10**6)


def child_cpu() -> float:
    """CPU seconds of this process's children (the builders) so far, live ones included."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():  # ppid
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return total


# --- one run ------------------------------------------------------------------------------------


class CountingSeat(Seat):
    """A bench seat that also counts the hands its table finished (seat 0 only)."""

    def __init__(self, *args: Any, ended: list[float], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ended = ended

    def deliver_encoded(self, encoded: Encoded) -> None:
        if self.seat == 0 and encoded.type == "event" and '"kind":"hand_ended"' in encoded.text:
            self._ended.append(time.perf_counter())
        super().deliver_encoded(encoded)


async def one_run(app: FastAPI, db: Database, settings: Settings, mode: str, ids: list[int],
                  flooders: list[Flooder], tables: int, think: tuple[float, float],
                  warm: float, seconds: float) -> dict[str, float]:
    app.state.replays.close()
    replays = app.state.replays = replays_for(mode, settings)
    registry = TableRegistry(db.sessions)
    figures = Figures()
    ended: list[float] = []
    rng = random.Random(7)
    seats: list[CountingSeat] = []
    for t in range(tables):
        live = registry.create("lishui", 1, timers=TIMERS)
        for s in range(4):
            seat = CountingSeat(registry, live.table_id, s, rng, think, figures, ended=ended)
            seats.append(seat)
            registry.connections.connect(ids[4 * t + s], seat)
            await registry.sit(live.table_id, ids[4 * t + s], s)
    await asyncio.sleep(warm)
    stop = asyncio.Event()
    late: list[tuple[float, float]] = []
    ticker = asyncio.create_task(_lateness(stop, late))
    for flooder in flooders:
        flooder.answers.clear()
    await app.state.limits.reset()  # the request limits' windows start empty each run
    pace = settings.requests_per_account / settings.rate_window_seconds * 0.98
    flood = [asyncio.create_task(f.run(app, stop, pace, mode == "me")) for f in flooders] \
        if mode != "none" else []
    at = time.perf_counter()
    cpu, children = time.process_time(), child_cpu()
    await asyncio.sleep(seconds)
    cpu, children = time.process_time() - cpu, child_cpu() - children
    stop.set()
    await asyncio.gather(ticker, *flood)
    await registry.stop()
    for seat in seats:
        seat.writer.cancel()
    turns = [v for when, v in figures.turns if at <= when < at + seconds]
    lag = [v for when, v in late if at <= when < at + seconds]
    answers: Counter[str] = Counter()
    for flooder in flooders:
        answers.update(flooder.answers)
    return {
        "p50": _q(turns, 0.5), "p99": _q(turns, 0.99),
        "mean": statistics.mean(turns) * 1000 if turns else 0.0,
        "hands_min": sum(at <= when < at + seconds for when in ended) * 60 / seconds,
        "turns_min": len(turns) * 60 / seconds,
        "lag_p99": _q(lag, 0.99), "lag_max": _q(lag, 1.0),
        "cores": cpu / seconds, "builder_cores": children / seconds,
        "ok": answers["200"], "budget": answers["budget"], "throttled": answers["429"],
        "busy": answers["503"],
        "other": sum(n for kind, n in answers.items()
                     if kind not in ("200", "budget", "429", "503")),
        "builds": replays.builds,
    }


# --- what one replay costs ----------------------------------------------------------------------


def build_costs(per: int) -> list[str]:
    """Per variant: the median CPU ms of a build (events only, with views, an admin's with
    views) over `per` random-bot hands, and the answer's size with views."""
    lines = [
        ("| variant | actions (median) | events only ms | views=true ms | admin views=true ms "
        "| views=true KiB |"),
        "|---|---:|---:|---:|---:|---:|",
    ]
    for variant in VARIANTS:
        hands = [self_played(variant, seed)[0] for seed in range(1, per + 1)]
        replay_build.build(hands[0], 0, True)  # warm
        row = [variant, f"{statistics.median(len(json.loads(h.actions)) for h in hands):.0f}"]
        for viewer, views in ((0, False), (0, True), (None, True)):
            spent = []
            for hand in hands:
                started = time.process_time()
                replay_build.build(hand, viewer, views)
                spent.append(time.process_time() - started)
            row.append(f"{statistics.median(spent) * 1000:.1f}")
        size = statistics.median(replay_build.build(h, 0, True).size for h in hands)
        row.append(f"{size / 1024:.0f}")
        lines.append("| " + " | ".join(row) + " |")
        progress(f"build cost: {variant} done")
    return lines


async def request_costs(app: FastAPI, settings: Settings, flooder: Flooder) -> list[str]:
    """What one replay request (views=true) costs this process's CPU: built on the loop,
    built in a worker process, and kept (the median of the flooder's first 20 hands); and
    what GET /me costs, the least an authenticated request costs."""
    out = [
        "| one GET .../replay?views=true | CPU ms on the event loop (median) |",
        "|---|---:|",
    ]

    async def cost(hands: list[str], me: bool = False) -> float:
        spent = []
        for hand in hands:
            path, query = ("/me", "") if me else (f"/hands/{hand}/replay", "views=true")
            started = time.process_time()
            status, _ = await asgi_get(app, path, query, flooder.token, flooder.address)
            spent.append(time.process_time() - started)
            assert status == 200, status
        return statistics.median(spent) * 1000

    sample = flooder.hands[:20]
    app.state.replays.close()
    app.state.replays = replays_for("loop", settings)
    on_loop = await cost(sample)
    out.append(f"| built on the loop (as before the fix, with today's build) | {on_loop:.1f} |")
    app.state.replays = ReplayCache(settings.replay_cache_bytes, MemoryQuota(10**9, 60),
                                    lambda: worker_pool(1))
    await cost(sample[:1])  # the worker starts
    out.append(f"| built in a worker process | {await cost(sample[1:]):.1f} |")
    out.append(f"| kept | {await cost(sample[1:]):.1f} |")
    out.append(f"| (for comparison: GET /me) | {await cost(sample, me=True):.1f} |")
    app.state.replays.close()
    await app.state.limits.reset()
    return out


# --- the whole benchmark ------------------------------------------------------------------------


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}" if base else "-"


async def main(args: argparse.Namespace) -> str:
    logging.disable(logging.CRITICAL)
    memory.tune()  # the collector as a server process sets it (python -m app)
    url = args.database_url
    db = Database.connect(url)
    try:
        async with db.sessions() as s, s.begin():
            await s.execute(text("DROP SCHEMA public CASCADE"))
            await s.execute(text("CREATE SCHEMA public"))
    finally:
        await db.close()
    await asyncio.to_thread(upgrade, url)
    settings = Settings(database_url=url, jwt_secret="bench-replay-" + "x" * 32,
                        access_token_minutes=120)
    app = create_app(settings)
    lines: list[str] = []
    async with app.router.lifespan_context(app):
        db = app.state.db
        progress(f"what one build costs ({args.hands} hands per variant)")
        costs = build_costs(args.hands)
        owners = await funded(db, FLOODERS, "flood")
        mates = await funded(db, 3, "mate")
        progress(f"storing {args.hands} hands for each of {FLOODERS} flooding accounts")
        hands = await store_hands(db, owners, mates, args.hands)
        async with db.sessions() as s:
            accounts = (await s.execute(select(Account).where(Account.id.in_(owners))))
            made = {a.id: tokens.access_token(a, settings) for a in accounts.scalars()}
        flooders = [Flooder(made[o], f"127.0.1.{n + 1}", hands[o], Counter())
                    for n, o in enumerate(owners)]
        progress("what one request costs the loop")
        requests = await request_costs(app, settings, flooders[0])
        rows = []
        results: list[tuple[str, dict[str, float]]] = []
        runs = [mode for _ in range(args.rounds) for mode in args.modes]
        for n, mode in enumerate(runs):
            ids = await funded(db, 4 * args.tables, f"t{n}x")
            progress(f"run {n + 1} of {len(runs)}: {mode}, {args.tables} tables, "
                     f"{args.warm:g} s warm-up, {args.seconds:g} s measured")
            r = await one_run(app, db, settings, mode, ids, flooders, args.tables, args.think,
                              args.warm, args.seconds)
            results.append((mode, r))
            rows.append(
                f"| {mode} | {r['p50']:.2f} / {r['p99']:.1f} / {r['mean']:.2f} "
                f"| {r['hands_min']:.0f} "
                f"| {r['turns_min']:,.0f} | {r['lag_p99']:.1f} / {r['lag_max']:.0f} "
                f"| {r['cores']:.2f} / {r['builder_cores']:.2f} "
                f"| {r['ok']:.0f} / {r['budget']:.0f} / {r['throttled']:.0f} / {r['busy']:.0f} "
                f"| {r['builds']:.0f} |"
            )
            progress(rows[-1])
    # each mode's median over its runs against the runs without a flood: the machine is
    # shared, and a spell of other work lands on one run, not on every run of a mode
    by_mode: dict[str, list[dict[str, float]]] = {}
    for mode, r in results:
        by_mode.setdefault(mode, []).append(r)
    ratio_lines = []
    if "none" in by_mode:
        b = {k: statistics.median(r[k] for r in by_mode["none"]) for k in by_mode["none"][0]}
        for mode, mode_runs in by_mode.items():
            if mode == "none":
                continue
            m = {k: statistics.median(r[k] for r in mode_runs) for k in mode_runs[0]}
            ratio_lines.append(
                f"| {mode} ({len(mode_runs)}) | {_ratio(m['p50'], b['p50'])} "
                f"| {_ratio(m['p99'], b['p99'])} | {_ratio(m['mean'], b['mean'])} "
                f"| {_ratio(m['hands_min'], b['hands_min'])} "
                f"| {_ratio(m['turns_min'], b['turns_min'])} |"
            )
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    lines += [
        HEADING,
        "",
        (f"Run on {date.today().isoformat()} ({os.cpu_count()} cores, load average {load} at "
        f"the end), `python -m bench.bench_replay --tables {args.tables} --think "
        f"{args.think[0]:g}-{args.think[1]:g} --seconds {args.seconds:g} --rounds "
        f"{args.rounds} --modes "
        f"{' '.join(args.modes)}`, PostgreSQL. One process: the app and {args.tables} tables "
        "of four load-test bots; five accounts each ask `GET /hands/{id}/replay?views=true` "
        "for the next of their own stored 丽水 hands (random-bot self-play) 5 times a second "
        "(the default 300 requests a minute per account), through the app's ASGI interface. "
        "Modes: none (no flood), me (the same accounts flood `GET /me` at that pace: what "
        "any authenticated request costs), loop (built on the loop, nothing kept: as "
        "before the fix, with today's build), "
        "thread and process (built there, nothing kept), shipped (the defaults: a worker "
        f"process, {settings.replay_cache_bytes // 2**20} MiB kept, "
        f"{settings.replay_builds_per_account} builds per account a minute)."),
        "",
        (f"What one build costs (`app.api.replay_build.build`, CPU ms, the median of "
        f"{args.hands} random-bot hands per variant):"),
        "",
        *costs,
        "",
        *requests,
        "",
        ("| mode | turn action p50 / p99 / mean ms | hands / min | actions / min | loop late p99 / max ms "
        "| cores: node / builders | replays 200 / 429 builds / 429 requests / 503 | builds |"),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
    ]
    if ratio_lines:
        lines += [
            "",
            ("Each mode's median over its runs (how many) against the median of the runs "
            "without a flood; within 10% is the acceptance line."),
            "",
            "| mode | p50 | p99 | mean | hands / min | actions / min |",
            "|---|---:|---:|---:|---:|---:|",
            *ratio_lines,
        ]
    return "\n".join(lines)


def _range(value: str) -> tuple[float, float]:
    low, _, high = value.partition("-")
    return float(low), float(high or low)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_replay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url",
                        default="postgresql://postgres@127.0.0.1:5432/bench_replay")
    parser.add_argument("--tables", type=int, default=80)
    parser.add_argument("--think", type=_range, default=(0.1, 0.6), help="seconds, MIN-MAX")
    parser.add_argument("--hands", type=int, default=60,
                        help="stored hands per flooding account (and per variant for the "
                        "build's cost)")
    parser.add_argument("--warm", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--modes", nargs="+", choices=MODES,
                        default=["none", "me", "loop", "thread", "process", "shipped"])
    parser.add_argument("--rounds", type=int, default=1, help="run the modes this many times")
    parser.add_argument("--write", action="store_true", help="put the figures in results.md")
    arguments = parser.parse_args()
    section = asyncio.run(main(arguments))
    print(section)
    if arguments.write:
        sections.write(HEADING, section)
