"""One load run: set up the tables, play for the given seconds, measure the echo server, report.

The clients are spread over `client_processes` processes (app/loadtest/worker.py), each
with a contiguous share of the tables, so that the load generator is not the bottleneck;
this coordinator drives them a step at a time and adds up what they count.

Set-up (not measured), in steps so that no table plays while the next ones are set up:
every account is made (straight into a spawned server's database, else registered and
logged in over REST), every socket opened (each says hello and waits for its `pong`, so the
server routes to it), every table created with a one-second pause between hands and three
of its seats taken, and last every fourth player sits (which starts the table's first
hand). The server's memory is read after it started, once the sockets are open and once the
tables have played for `warm_seconds`: the memory per client and per live table. Then every
counter starts from zero, at one wall-clock moment in every process, and the bots play for
`seconds`, with a progress line once a second and the server's /metrics (every process of
it) read at each of those seconds.

House bots (`house_bots`, 1-3): that many seats of every table are the server's own bots
(POST /tables/{id}/fill-bots, at the table's `bot_level`), the rest load clients; the fourth
step is then the table's first client calling them, which starts its first hand. Every
figure counts the load clients only (the burst's leavers are load clients too), and the
report adds how long the house bots took to choose, server side
(`mahjong_bot_decision_seconds` by level, over the measured window).

A settlement burst (`burst_at`): at that second of the run one bot of every
`burst_every`-th table leaves (an escape: the hand ends and is settled at once), and sits
again 5-10 s later. The report then gives the actions of the other tables during the
`burst_window` seconds from the burst apart, client side and server side, with the time
the burst's hands took to be stored.

At the end every bot leaves its table (an escape if a hand is in play) and closes, and a
spawned game server is stopped (its handling of those leaves took CPU from the echo); then as
many echo clients as there were bots run against bare echo servers (as many processes as
the game server had) for `echo_seconds`, and the report compares the two.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import secrets
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TextIO

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel, Field, field_validator, model_validator

from app.loadtest import procstat, worker
from app.loadtest.seed import seed_accounts
from app.loadtest.servers import (
    Process,
    Spawned,
    house_bots_env,
    require_loopback,
    spawn_echo_servers,
    spawn_game_server,
    workdir,
)
from app.loadtest.stats import (
    BatchReport,
    BotDecisions,
    BurstReport,
    Latency,
    MachineReport,
    PhaseReport,
    Report,
    ServerLatency,
    histogram_quantile,
    ms,
    percentile,
)
from app.loadtest.worker import Command, Done, Share, Tick, bounded, post
from app.settings import MAX_BOT_DELAY_MS, DelayRange
from app.tables.levels import BOT_LEVELS, DEFAULT_BOT_LEVEL, BotLevel

MAX_TABLES = 5000
MAX_SECONDS = 3600
MAX_CLIENT_PROCESSES = 16
PASSWORD = "load-test-password"
SETUP_CONCURRENCY = 16
LATENCY_METRIC = "mahjong_action_broadcast_seconds"
SETTLE_METRIC = "mahjong_settle_seconds"
SHOWN_METRIC = "mahjong_result_shown_seconds"
BATCH_HANDS_METRIC = "mahjong_settle_batch_hands"
BATCH_SECONDS_METRIC = "mahjong_settle_batch_seconds"  # by step: "/room", "/store"
GC_METRIC = "mahjong_gc_pause_seconds"  # by generation: "/2" is the whole heap
BOT_METRIC = "mahjong_bot_decision_seconds"  # by level: "/expert"
SCRAPED = (LATENCY_METRIC, SETTLE_METRIC, SHOWN_METRIC, BATCH_HANDS_METRIC, BATCH_SECONDS_METRIC,
           GC_METRIC, BOT_METRIC)
HANDOFF_METRIC = "mahjong_ws_handoffs"
BEFORE_BURST = 0.25  # seconds: the burst window's first scrape comes this much before it
BUSY_METRIC = "mahjong_busy_spells"  # times a process began to shed new work
SHED_METRIC = "mahjong_shed_requests"  # by what: requests refused meanwhile
COLLECTED_METRIC = "mahjong_gc_collected_objects"  # by generation
BACK_AFTER = 5.0  # a burst's leavers sit again 1-2 times this long after leaving

Buckets = list[tuple[float, float]]


class Options(BaseModel):
    url: str | None = None  # None: --spawn
    tables: int = Field(default=10, ge=1, le=MAX_TABLES)
    seconds: float = Field(default=30, ge=1, le=MAX_SECONDS)
    echo_seconds: float | None = Field(default=None, ge=1, le=300)  # None: min(seconds, 10)
    variant: str = "lishui"
    stake: int = Field(default=1, ge=1)
    database_url: str | None = None  # for --spawn: PostgreSQL instead of a SQLite file
    redis_url: str | None = None  # --spawn: a cluster (server_processes > 1 needs it)
    server_processes: int = Field(default=1, ge=1, le=64)  # --spawn: PROCESSES
    client_processes: int = Field(default=1, ge=1, le=MAX_CLIENT_PROCESSES)
    echo: bool = True
    seed: int = 1
    think_ms: tuple[float, float] = (0.0, 0.0)  # drawn uniformly per answer; (0, 0): at once
    warm_seconds: float = Field(default=0, ge=0, le=600)  # play before the memory reading
    burst_at: float | None = Field(default=None, ge=0)  # seconds into the run
    burst_every: int = Field(default=2, ge=1)  # every this many-th table takes part
    burst_window: float = Field(default=15, ge=1, le=600)
    profile_server: Path | None = None  # with --spawn: the server's cProfile stats go here
    table_path: bool = True  # sockets open /ws/<table_id>: served by the table's process
    house_bots: int = 0  # seats per table the server's house bots play; the rest load clients
    bot_level: BotLevel = DEFAULT_BOT_LEVEL  # the tables' bot_level: who plays those seats
    # --spawn: BOT_DELAY_MS, min and max ms (see `bot_delay`)
    bot_delay_ms: DelayRange | None = None

    @field_validator("house_bots")
    @classmethod
    def _house_seats(cls, value: int) -> int:
        if not 0 <= value <= 3:
            raise ValueError(
                f"--house-bots is the seats per table the house's bots play: 0-3, not {value} "
                "(at least one seat of each table is a load client)"
            )
        return value

    @property
    def bot_delay(self) -> tuple[int, int]:
        """How long a spawned server's house bots and 托管 wait before each decision (its
        BOT_DELAY_MS, min and max ms): `bot_delay_ms` if given; else with house bots the
        load clients' own think time (drawn the same way: uniformly, before every answer,
        a claim's pass included), so that a table with bots plays at the pace of one
        without; else at once (a run measures the server, not a human pace)."""
        if self.bot_delay_ms is not None:
            return self.bot_delay_ms
        if self.house_bots:
            low, high = self.think_ms
            return (min(round(low), MAX_BOT_DELAY_MS), min(round(high), MAX_BOT_DELAY_MS))
        return (0, 0)

    @property
    def players(self) -> int:
        """Load clients per table."""
        return 4 - self.house_bots

    @property
    def clients(self) -> int:
        """Load clients in all."""
        return self.tables * self.players

    @model_validator(mode="after")
    def _consistent(self) -> Options:
        low, high = self.think_ms
        if not 0 <= low <= high <= 30_000:
            raise ValueError("think time: 0 <= min <= max <= 30000 ms")
        if self.server_processes > 1 and (
            self.url is not None or self.database_url is None or self.redis_url is None
        ):
            raise ValueError("several server processes: --spawn with --database-url and --redis-url")
        if self.bot_delay_ms is not None and self.url is not None:
            raise ValueError("--bot-delay-ms is a spawned server's setting: with --spawn only")
        if self.burst_at is not None and self.burst_at + self.burst_window > self.seconds:
            raise ValueError("the burst and its window must end within the run")
        if self.client_processes > self.tables:
            raise ValueError("no more client processes than tables")
        return self


@dataclass
class Series:
    """What the coordinator keeps of a phase, second by second (all processes together)."""

    seconds: int
    sent: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)
    hands: list[int] = field(default_factory=list)
    open: list[int] = field(default_factory=list)
    dropped: int = 0
    errors: int = 0
    latencies: list[list[float]] = field(default_factory=list)  # per second
    steady: list[list[float]] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)  # the latest client loop of the second
    server_cpu: list[list[float]] = field(default_factory=list)  # per second, per process

    def __post_init__(self) -> None:
        n = self.seconds
        self.sent, self.received, self.hands, self.open = [0] * n, [0] * n, [0] * n, [0] * n
        self.latencies = [[] for _ in range(n)]
        self.steady = [[] for _ in range(n)]
        self.lag = [0.0] * n

    def add(self, tick: Tick) -> None:
        s = tick.second
        self.sent[s] += tick.sent
        self.received[s] += tick.received
        self.hands[s] += tick.hands
        self.open[s] += tick.open
        self.dropped += tick.dropped
        self.errors += tick.errors
        self.latencies[s] += tick.latencies
        self.steady[s] += tick.steady
        self.lag[s] = max(self.lag[s], tick.lag)

    def phase(self) -> PhaseReport:
        """The whole phase: connections at its end, messages, latency."""
        messages = sum(self.sent) + sum(self.received)
        latencies = self.window(0, self.seconds)
        return PhaseReport(
            connections=self.open[-1] if self.open else 0,
            dropped=self.dropped,
            seconds=float(self.seconds),
            messages=messages,
            messages_per_s=round(messages / self.seconds, 1),
            latency_p50_ms=ms(percentile(latencies, 0.5)),
            latency_p99_ms=ms(percentile(latencies, 0.99)),
            latency_samples=len(latencies),
        )

    def window(self, first: int, last: int, which: str = "latencies") -> list[float]:
        rows: list[list[float]] = getattr(self, which)
        return [v for row in rows[first:last] for v in row]


class Pool:
    """The client processes and their pipes."""

    def __init__(self, shares: list[Share]) -> None:
        context = multiprocessing.get_context("spawn")
        self.conns: list[Connection] = []
        self.procs: list[BaseProcess] = []
        for share in shares:
            mine, theirs = context.Pipe()
            proc = context.Process(target=worker.main, args=(share, theirs), daemon=True)
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)
        self._threads = ThreadPoolExecutor(max_workers=len(shares))

    async def step(self, command: Command, on_tick: Callable[[Tick], None] | None = None,
                   ) -> list[Done]:
        """Send `command` to every process; their answers (ticks go to `on_tick`)."""
        for conn in self.conns:
            conn.send(command)
        loop = asyncio.get_running_loop()

        async def answer(conn: Connection) -> Done:
            while True:
                got = await loop.run_in_executor(self._threads, conn.recv)
                if isinstance(got, Done):
                    return got
                if on_tick is not None:
                    on_tick(got)

        return list(await asyncio.gather(*(answer(c) for c in self.conns)))

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    def stop(self) -> None:
        for conn in self.conns:
            try:
                conn.send(Command("stop"))
            except OSError:
                pass
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
        self._threads.shutdown(wait=False)


class Progress:
    """One line per second from the series: on a terminal it rewrites itself."""

    def __init__(self, out: TextIO, series: Series, total: int, label: str, processes: int,
                 ) -> None:
        self.out, self.series, self.total, self.label = out, series, total, label
        self.processes = processes
        self.tty = out.isatty()
        self._ticks: dict[int, int] = {}

    def tick(self, tick: Tick) -> None:
        self.series.add(tick)
        s = tick.second
        self._ticks[s] = self._ticks.get(s, 0) + 1
        if self._ticks[s] < self.processes:
            return
        series = self.series
        recent = series.latencies[s]
        p50, p99 = ms(percentile(recent, 0.5)), ms(percentile(recent, 0.99))
        line = (
            f"[{self.label} {s + 1:5d}s] conns {series.open[s]}/{self.total}"
            f"  hands {sum(series.hands[:s + 1])}"
            f"  msgs/s {series.sent[s] + series.received[s]:,}"
            f"  p50 {p50 if p50 is not None else '-'} ms  p99 {p99 if p99 is not None else '-'} ms"
            f"  errors {series.errors}  client lag {series.lag[s] * 1000:.0f} ms"
        )
        if series.server_cpu:
            line += f"  server CPU {series.server_cpu[-1]}"
        self.out.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


async def _scrape(http: httpx.AsyncClient, urls: list[str]) -> dict[str, Buckets] | None:
    """The cumulative latency buckets of every process of the server added up, by metric;
    None when /metrics is not there."""
    found: dict[str, Buckets] = {}
    for url in urls:
        response = None
        for _ in range(2):  # a kept-alive connection the server closed meanwhile: once more
            try:
                response = await http.get(url)
                break
            except httpx.HTTPError:
                continue
        if response is None:
            return None
        if response.status_code != 200:
            return None
        for family in text_string_to_metric_families(response.text):
            if family.name not in SCRAPED:
                continue
            series: dict[str, Buckets] = {}  # a labelled family: one series per label value
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    key = family.name + "".join(
                        f"/{v}" for k, v in sorted(sample.labels.items()) if k != "le")
                    series.setdefault(key, []).append((float(sample.labels["le"]), sample.value))
            for key, buckets in series.items():
                buckets.sort()
                mine = found.setdefault(key, [])
                if not mine:
                    mine.extend(buckets)
                else:
                    found[key] = [
                        (b, c + c2) for (b, c), (_, c2) in zip(mine, buckets, strict=True)
                    ]
    return found or None


async def _counted(http: httpx.AsyncClient, urls: list[str], metric: str, label: str | None,
                  ) -> dict[str, int] | None:
    """A counter of every process of the server added up, by `label` (None: one total,
    keyed "")."""
    found: dict[str, int] = {}
    for url in urls:
        try:
            response = await http.get(url)
        except httpx.HTTPError:
            return None
        for family in text_string_to_metric_families(response.text):
            if family.name == metric:
                for sample in family.samples:
                    if sample.name.endswith("_total"):
                        key = sample.labels[label] if label is not None else ""
                        found[key] = found.get(key, 0) + int(sample.value)
    return found or None


def _diff(before: dict[str, Buckets] | None, after: dict[str, Buckets] | None,
          metric: str) -> Buckets | None:
    """A histogram's buckets over a window: what `after` counted beyond `before`."""
    if before is None or after is None or metric not in after:
        return None
    # a labelled series appears with its first observation: none before it
    earlier = before.get(metric) or [(bound, 0.0) for bound, _ in after[metric]]
    return [(bound, a - b) for (bound, a), (_, b) in zip(after[metric], earlier, strict=True)]


def _window(before: dict[str, Buckets] | None, after: dict[str, Buckets] | None,
            metric: str = LATENCY_METRIC) -> ServerLatency | None:
    diff = _diff(before, after, metric)
    if diff is None:
        return None
    return ServerLatency(
        count=int(diff[-1][1]),
        p50_ms=ms(histogram_quantile(diff, 0.50)),
        p99_ms=ms(histogram_quantile(diff, 0.99)),
    )


def _batches(before: dict[str, Buckets] | None, after: dict[str, Buckets] | None,
             ) -> BatchReport | None:
    """The settler's batches over a window: their sizes, their wait for room, their store."""
    hands = _diff(before, after, BATCH_HANDS_METRIC)
    room = _window(before, after, BATCH_SECONDS_METRIC + "/room")
    store = _window(before, after, BATCH_SECONDS_METRIC + "/store")
    if hands is None or room is None or store is None:
        return None
    p50, p99 = (histogram_quantile(hands, q) for q in (0.50, 0.99))
    return BatchReport(
        batches=int(hands[-1][1]),
        hands_p50=None if p50 is None else round(p50, 1),
        hands_p99=None if p99 is None else round(p99, 1),
        room=room, store=store,
    )


def _bot_decisions(before: dict[str, Buckets] | None, after: dict[str, Buckets] | None,
                   ) -> dict[str, BotDecisions]:
    """How long the house bots took to choose over a window, by level (the levels that
    decided at all)."""
    found: dict[str, BotDecisions] = {}
    for level in BOT_LEVELS:
        diff = _diff(before, after, f"{BOT_METRIC}/{level}")
        if diff is None or diff[-1][1] <= 0:
            continue
        p50, p99 = (histogram_quantile(diff, q) for q in (0.50, 0.99))
        found[level] = BotDecisions(
            count=int(diff[-1][1]),
            p50_ms=None if p50 is None else round(p50 * 1000, 3),
            p99_ms=None if p99 is None else round(p99 * 1000, 3),
        )
    return found


def _latency(values: list[float]) -> Latency:
    return Latency(samples=len(values), p50_ms=ms(percentile(values, 0.5)),
                   p99_ms=ms(percentile(values, 0.99)))


async def _accounts(http: httpx.AsyncClient, names: list[str], spawned: Spawned | None,
                    ) -> list[str | BaseException]:
    if spawned is not None:
        return list(await seed_accounts(spawned.settings, names))

    async def account(username: str) -> str:
        body = {"username": username, "password": PASSWORD}
        await post(http, "/auth/register", f"register {username}", json=body)
        tokens = await post(http, "/auth/login", f"login {username}", json=body)
        return str(tokens["access_token"])

    return await bounded(SETUP_CONCURRENCY, [partial(account, n) for n in names])


def _shares(options: Options, url: str, tokens: list[list[str]]) -> list[Share]:
    k = options.client_processes
    bounds = [len(tokens) * i // k for i in range(k + 1)]
    think = (options.think_ms[0] / 1000, options.think_ms[1] / 1000)
    return [
        Share(i, url, bounds[i], tokens[bounds[i]:bounds[i + 1]], options.variant,
              options.stake, think, options.seed * 1000 + i, options.players, options.bot_level)
        for i in range(k)
    ]


async def run(options: Options, out: TextIO = sys.stderr) -> Report:
    """The whole run (see the module's docstring); starts and stops its own processes."""
    with workdir() as scratch:
        processes: list[Process] = []
        try:
            spawned: Spawned | None = None
            if options.url is None:
                spawned = await spawn_game_server(
                    Path(scratch), options.database_url, options.profile_server,
                    options.server_processes, options.redis_url,
                    house_bots_env(options.tables * options.house_bots, options.stake),
                    options.bot_delay,
                )
                processes.append(spawned.process)
                url = spawned.url
                low, high = options.bot_delay
                out.write(f"spawned a server at {url} ({options.server_processes} "
                          f"process{'es' if options.server_processes > 1 else ''}; its bots "
                          f"wait {low}-{high} ms before each decision)\n")
            else:
                url = require_loopback(options.url)
            return await _run(options, url, Path(scratch), processes, out, spawned)
        finally:
            for process in processes:
                process.stop()


def _server_pids(spawned: Spawned | None) -> list[int]:
    return procstat.tree(spawned.process.proc.pid) if spawned is not None else []


async def _run(
    options: Options, url: str, scratch: Path, processes: list[Process], out: TextIO,
    spawned: Spawned | None,
) -> Report:
    clients, players = options.clients, options.players
    metrics_urls = spawned.metrics if spawned is not None else [f"{url}/metrics"]
    failures: list[str] = []
    house = (f", {options.house_bots} {options.bot_level} house bot"
             f"{'s' if options.house_bots > 1 else ''} each" if options.house_bots else "")
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        out.write(f"setting up {options.tables} tables ({clients} clients{house}, "
                  f"{options.client_processes} client processes) ...\n")
        started = time.monotonic()
        rss_idle = procstat.rss_bytes(_server_pids(spawned))
        prefix = f"lt_{secrets.token_hex(3)}_"
        made = await _accounts(http, [f"{prefix}{i}" for i in range(clients)], spawned)
        failures += [repr(m) for m in made if isinstance(m, BaseException)]
        if failures:
            raise RuntimeError(f"{len(failures)} accounts failed; the first: {failures[0]}")
        tokens = [[str(t) for t in made[players * i:players * (i + 1)]]
                  for i in range(options.tables)]
        out.write(f"  {clients} accounts in {time.monotonic() - started:.1f} s\n")
        pool = Pool(_shares(options, url, tokens))
        try:
            ws_url = "ws" + url[len("http"):]
            sockets = {"ws_url": ws_url, "table_path": options.table_path}
            steps: list[tuple[str, dict[str, Any]]] = [
                ("tables", {}), ("sockets", sockets), ("seats", {}), ("fourth", {}),
            ]
            for step, args in steps:
                done = await pool.step(Command(step, args))
                failures += [f for d in done for f in d.failures]
                out.write(f"  {step}: {_summary(done)} at {time.monotonic() - started:.1f} s\n")
                if step == "tables":
                    rss_tables = procstat.rss_bytes(_server_pids(spawned))
                if step == "sockets":
                    rss_sockets = procstat.rss_bytes(_server_pids(spawned))
            setup_seconds = time.monotonic() - started
            if options.warm_seconds:
                out.write(f"  warming up for {options.warm_seconds:g} s ...\n")
                await asyncio.sleep(options.warm_seconds)
            rss_playing = procstat.rss_bytes(_server_pids(spawned))
            result = await _measure_game(options, pool, http, metrics_urls, spawned, out)
            rss_end = procstat.rss_bytes(_server_pids(spawned))
            handoffs = await _counted(http, metrics_urls, HANDOFF_METRIC, "way")
            busy = await _counted(http, metrics_urls, BUSY_METRIC, None)
            shed = await _counted(http, metrics_urls, SHED_METRIC, "what")
            collected = await _counted(http, metrics_urls, COLLECTED_METRIC, "generation")
            sizes = [s for d in result.done for s in d.values["sizes"]]
            await pool.step(Command("leave"))
            if spawned is not None:  # its teardown (every seat leaving) is not the echo's
                stopping = time.monotonic()
                await asyncio.to_thread(spawned.process.stop)
                out.write(f"  game server stopped in {time.monotonic() - stopping:.1f} s\n")
            echo: PhaseReport | None = None
            if options.echo:
                echo = await _measure_echo(options, pool, scratch, processes, sizes, out)
        finally:
            pool.stop()

    errors: dict[str, int] = {}
    late: dict[str, int] = {}
    for d in result.done:
        for code, n in d.values["errors"].items():
            errors[code] = errors.get(code, 0) + n
        for code, n in d.values["late"].items():
            late[code] = late.get(code, 0) + n
        failures += d.failures
    if failures:
        errors["setup_failed"] = len(failures)
        out.write(f"{len(failures)} set-up steps failed; the first: {failures[0]}\n")
    series = result.series
    if series.dropped:
        errors["connections_dropped"] = series.dropped
    game = result.phase
    ratio = (
        round(game.messages_per_s / echo.messages_per_s, 3)
        if echo is not None and echo.messages_per_s > 0 else None
    )
    # the tables are made before the sockets open (a socket names its table): a table's
    # memory is what it took when made and what playing added
    per_client = (
        (rss_sockets - rss_tables) / clients
        if rss_tables is not None and rss_sockets is not None else None
    )
    per_table = None
    if rss_idle is not None and rss_tables is not None and rss_sockets is not None \
            and rss_playing is not None:
        per_table = (rss_tables - rss_idle + rss_playing - rss_sockets) / options.tables
    return Report(
        url=url,
        tables=options.tables,
        clients=clients,
        think_ms=options.think_ms,
        server_processes=options.server_processes if spawned is not None else None,
        client_processes=options.client_processes,
        setup_seconds=round(setup_seconds, 2),
        game=game,
        hands=sum(series.hands),
        idle_tables=sum(int(d.values["idle_tables"]) for d in result.done),
        errors=sum(errors.values()),
        error_codes=errors,
        late_answers=late,
        server=result.server,
        burst=result.burst,
        machine=MachineReport(
            rss_idle_mib=_mib(rss_idle), rss_sockets_mib=_mib(rss_sockets),
            rss_playing_mib=_mib(rss_playing), rss_end_mib=_mib(rss_end),
            kib_per_client=None if per_client is None else round(per_client / 1024, 1),
            kib_per_table=None if per_table is None else round(per_table / 1024, 1),
            server_cores=result.server_cores, client_cores=result.client_cores,
            core_busy=result.core_busy,
        ),
        echo=echo,
        ratio=ratio,
        mean_message_bytes=round(sum(sizes) / len(sizes), 1) if sizes else None,
        table_path=options.table_path,
        house_bots=options.house_bots,
        bot_level=options.bot_level if options.house_bots else None,
        bot_decisions=result.bots,
        handoffs=handoffs,
        busy_spells=(busy or {}).get("", 0),
        shed=shed or {},
        gc_collected=collected or {},
    )


def _mib(value: int | None) -> float | None:
    return None if value is None else round(value / 2**20, 1)


def _summary(done: list[Done]) -> str:
    values: dict[str, int] = {}
    for d in done:
        for k, v in d.values.items():
            values[k] = values.get(k, 0) + int(v)
    failed = sum(len(d.failures) for d in done)
    text = ", ".join(f"{k} {v}" for k, v in values.items()) or "done"
    return text + (f" ({failed} failed)" if failed else "")


@dataclass
class GameResult:
    series: Series
    phase: PhaseReport
    done: list[Done]
    server: ServerLatency | None
    burst: BurstReport | None
    server_cores: float | None
    client_cores: float | None
    core_busy: list[float] | None
    bots: dict[str, BotDecisions]


async def _measure_game(
    options: Options, pool: Pool, http: httpx.AsyncClient, metrics_urls: list[str],
    spawned: Spawned | None, out: TextIO,
) -> GameResult:
    seconds = int(options.seconds)
    series = Series(seconds)
    progress = Progress(out, series, options.clients, "game", len(pool.conns))
    start = time.time() + 1.0
    burst_at = None if options.burst_at is None else start + options.burst_at
    scrapes: dict[int, dict[str, Buckets] | None] = {}
    edges = {0, seconds}
    if options.burst_at is not None:  # every second of the burst's window
        edges |= set(range(int(options.burst_at),
                           min(seconds, int(options.burst_at + options.burst_window)) + 1))

    # the window's first scrape a little before the leaves, so that a hand they end and
    # store within milliseconds (a quiet server) is counted inside the window, not before it
    opening = None if options.burst_at is None else int(options.burst_at)

    async def scraper() -> None:
        for k in range(seconds + 1):
            delay = start + k - time.time() - (BEFORE_BURST if k == opening else 0.0)
            if delay > 0:
                await asyncio.sleep(delay)
            if k == 0:
                marks.append((procstat.cpu_seconds(_server_pids(spawned)),
                              procstat.cpu_seconds(pool.pids()), procstat.CoreTimes.now()))
            # /metrics where a window starts or ends, and each second of a burst's window
            # (its p99 by second): a scrape costs the server too
            scrapes[k] = await _scrape(http, metrics_urls) if k in edges else None
            cpu = [procstat.cpu_seconds([pid]) or 0.0 for pid in _server_pids(spawned)]
            if last_cpu and len(last_cpu) == len(cpu):
                series.server_cpu.append([round(b - a, 2) for a, b in zip(last_cpu, cpu)])
            last_cpu[:] = cpu
        marks.append((procstat.cpu_seconds(_server_pids(spawned)),
                      procstat.cpu_seconds(pool.pids()), procstat.CoreTimes.now()))

    marks: list[tuple[float | None, float | None, procstat.CoreTimes | None]] = []
    last_cpu: list[float] = []
    scraping = asyncio.create_task(scraper())
    args: dict[str, Any] = {"start": start, "seconds": seconds}
    if burst_at is not None:
        args |= {"burst_at": burst_at, "burst_every": options.burst_every,
                 "back_after": BACK_AFTER}
    done = await pool.step(Command("measure", args), progress.tick)
    await scraping
    progress.done()
    phase = series.phase()
    burst = None
    if options.burst_at is not None:
        first = int(options.burst_at)
        last = min(seconds, first + int(options.burst_window))
        outside = series.window(0, first, "steady") + series.window(last, seconds, "steady")
        quiet_before = scrapes.get(first)
        burst = BurstReport(
            at_second=first,
            window_seconds=last - first,
            tables=sum(int(d.values["burst_tables"]) for d in done),
            others_client=_latency(series.window(first, last, "steady")),
            others_outside_client=_latency(outside),
            server=_window(quiet_before, scrapes.get(last)),
            settle=_window(quiet_before, scrapes.get(last), SETTLE_METRIC),
            shown=_window(quiet_before, scrapes.get(last), SHOWN_METRIC),
            batches=_batches(quiet_before, scrapes.get(last)),
            server_by_second=[_window(scrapes.get(k), scrapes.get(k + 1))
                              for k in range(first, last)],
            whole_heap_by_second=[_window(scrapes.get(k), scrapes.get(k + 1), GC_METRIC + "/2")
                                  for k in range(first, last)],
        )
    (cpu0, client0, cores0), (cpu1, client1, cores1) = marks
    return GameResult(
        series=series, phase=phase, done=done,
        server=_window(scrapes.get(0), scrapes.get(seconds)),
        burst=burst,
        server_cores=None if cpu0 is None or cpu1 is None else round((cpu1 - cpu0) / seconds, 3),
        client_cores=(
            None if client0 is None or client1 is None else round((client1 - client0) / seconds, 3)
        ),
        core_busy=None if cores0 is None or cores1 is None else cores1.busy_since(cores0),
        bots=_bot_decisions(scrapes.get(0), scrapes.get(seconds)),
    )


async def _measure_echo(
    options: Options, pool: Pool, scratch: Path, processes: list[Process], sizes: list[int],
    out: TextIO,
) -> PhaseReport:
    url, echo_servers = await spawn_echo_servers(scratch, options.server_processes)
    processes += echo_servers
    seconds = int(options.echo_seconds or min(options.seconds, 10.0))
    series = Series(seconds)
    progress = Progress(out, series, options.clients, "echo", len(pool.conns))
    rng = random.Random(options.seed)
    sample = rng.sample(sizes, min(len(sizes), 2000)) if sizes else [200]
    opened = await pool.step(Command("echo_open", {"url": url, "sizes": sample}))
    out.write(f"echo: {_summary(opened)}\n")
    await pool.step(Command("echo", {"start": time.time() + 1.0, "seconds": seconds}),
                    progress.tick)
    progress.done()
    phase = series.phase()
    if phase.connections < options.clients:
        failed = sum(len(d.failures) for d in opened)
        out.write(f"echo: {phase.connections} of {options.clients} connections held "
                  f"({failed} failed to open)\n")
    return phase
