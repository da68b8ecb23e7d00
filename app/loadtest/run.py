"""One load run: set up the tables, play for the given seconds, measure the echo server, report.

Set-up (not measured), in steps so that no table plays while the next ones are set up: every
account is registered and logged in over REST, every socket opened (each says hello and
waits for its `pong`, so the server routes to it), every table created with a one-second
pause between hands and three of its seats taken, and last every fourth player sits (which
starts the table's first hand). Then every counter starts from zero and the bots play for
`seconds`, with a progress line once a second. At the end every bot leaves its table (an
escape if a hand is in play) and closes; then as many echo clients as there were bots run
against the bare echo server for `echo_seconds`, and the report compares the two.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel, Field
from websockets.exceptions import InvalidStatus

from app.loadtest.clients import EchoClient, GameBot
from app.loadtest.seed import seed_accounts
from app.loadtest.servers import (
    Process,
    require_loopback,
    spawn_echo_server,
    spawn_game_server,
    workdir,
)
from app.loadtest.stats import (
    Meter,
    PhaseReport,
    Report,
    ServerLatency,
    histogram_quantile,
    ms,
    percentile,
)
from app.settings import Settings

MAX_TABLES = 500
MAX_SECONDS = 3600
PASSWORD = "load-test-password"
SETUP_CONCURRENCY = 16  # tables being set up at once
LATENCY_METRIC = "mahjong_action_broadcast_seconds"

T = TypeVar("T")


class Options(BaseModel):
    url: str | None = None  # None: --spawn
    tables: int = Field(default=10, ge=1, le=MAX_TABLES)
    seconds: float = Field(default=30, gt=0, le=MAX_SECONDS)
    echo_seconds: float | None = Field(default=None, gt=0, le=300)  # None: min(seconds, 10)
    variant: str = "lishui"
    stake: int = Field(default=1, ge=1)
    database_url: str | None = None  # for --spawn: PostgreSQL instead of a SQLite file
    echo: bool = True
    seed: int = 1
    think_ms: float = Field(default=0, ge=0, le=30_000)  # mean think time before an answer
    profile_server: Path | None = None  # with --spawn: the server's cProfile stats go here


@dataclass
class Table:
    table_id: str
    bots: list[GameBot]
    tokens: list[str]


async def _bounded(limit: int, jobs: Sequence[Callable[[], Awaitable[T]]]) -> list[T | BaseException]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs), return_exceptions=True)


BUSY_RETRIES = 5


async def _post(http: httpx.AsyncClient, path: str, what: str, **kwargs: Any) -> dict[str, object]:
    """POST as a client would: a 503 `busy` is retried after its Retry-After (a few times)."""
    for _ in range(BUSY_RETRIES):
        response = await http.post(path, **kwargs)
        if response.status_code != 503:
            break
        await asyncio.sleep(float(response.headers.get("retry-after", "1")))
    return _ok(response, what)


def _ok(response: httpx.Response, what: str) -> dict[str, object]:
    if response.status_code >= 400:
        raise RuntimeError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    body: dict[str, object] = response.json()
    return body


async def _account(http: httpx.AsyncClient, username: str) -> str:
    """Register and log in: the access token."""
    body = {"username": username, "password": PASSWORD}
    await _post(http, "/auth/register", f"register {username}", json=body)
    tokens = await _post(http, "/auth/login", f"login {username}", json=body)
    return str(tokens["access_token"])


async def _open_bot(bot: GameBot, ws_url: str, token: str) -> GameBot:
    try:
        await bot.join(ws_url, token)
    except InvalidStatus as refused:
        if refused.response.status_code == 429:  # WS_CONNECTIONS_PER_ADDRESS
            raise RuntimeError(
                "the server refused a socket (429): its WS_CONNECTIONS_PER_ADDRESS must be at "
                "least 4 x --tables for a load test from one address"
            ) from refused
        raise
    return bot


async def _open_table(
    http: httpx.AsyncClient, options: Options, bots: list[GameBot], tokens: list[str]
) -> Table:
    """Create a table and sit three of its four bots (nothing plays yet)."""
    created = await _post(
        http, "/tables", "create a table",
        json={"variant": options.variant, "stake": options.stake, "timers": {"ready": 1}},
        headers=_bearer(tokens[0]),
    )
    table = Table(str(created["id"]), bots, tokens)
    for seat, bot in enumerate(bots):
        bot.table_id, bot.seat = table.table_id, seat
    for seat in range(3):
        await _sit(http, table, seat)
    return table


async def _sit(http: httpx.AsyncClient, table: Table, seat: int) -> Table:
    path = f"/tables/{table.table_id}/sit"
    await _post(http, path, "sit", json={"seat": seat}, headers=_bearer(table.tokens[seat]))
    return table


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _set_up(
    http: httpx.AsyncClient, ws_url: str, options: Options, meter: Meter, rng: random.Random,
    out: TextIO, spawned: Settings | None,
) -> tuple[list[Table], list[BaseException], list[GameBot]]:
    """Accounts (straight into a spawned server's database, else over REST), then sockets,
    then tables (so that no table plays while accounts are still being made): the tables
    set up, the failures and every bot."""
    prefix = f"lt_{secrets.token_hex(3)}_"
    clients = options.tables * 4
    started = time.monotonic()
    names = [f"{prefix}{i}" for i in range(clients)]
    made: list[str | BaseException]
    if spawned is not None:
        made = list(await seed_accounts(spawned, names))
    else:
        made = await _bounded(SETUP_CONCURRENCY, [partial(_account, http, name) for name in names])
    out.write(f"  {clients} accounts in {time.monotonic() - started:.1f} s\n")
    bots = [
        GameBot(meter, random.Random(rng.random()), counts_hands=i % 4 == 0,
                think=options.think_ms / 1000)
        for i in range(clients)
    ]
    indices = [i for i, token in enumerate(made) if isinstance(token, str)]
    opened = await _bounded(SETUP_CONCURRENCY * 4, [
        partial(_open_bot, bots[i], ws_url, str(made[i])) for i in indices
    ])
    ready = {i for i, result in zip(indices, opened, strict=True) if isinstance(result, GameBot)}
    out.write(f"  {len(ready)} sockets open at {time.monotonic() - started:.1f} s\n")
    failures: list[BaseException] = [
        r for r in [*made, *opened] if isinstance(r, BaseException)
    ]
    jobs = []
    for t in range(options.tables):
        group = range(4 * t, 4 * t + 4)
        if all(i in ready for i in group):
            seats = [bots[i] for i in group]
            tokens = [str(made[i]) for i in group]
            jobs.append(partial(_open_table, http, options, seats, tokens))
    opened_tables = await _bounded(SETUP_CONCURRENCY, jobs)
    failures += [r for r in opened_tables if isinstance(r, BaseException)]
    out.write(f"  tables opened at {time.monotonic() - started:.1f} s\n")
    # the fourth players last, all at once: no table plays while the others are set up
    seated = await _bounded(SETUP_CONCURRENCY, [
        partial(_sit, http, table, 3) for table in opened_tables if isinstance(table, Table)
    ])
    tables = [r for r in seated if isinstance(r, Table)]
    failures += [r for r in seated if isinstance(r, BaseException)]
    out.write(f"  {len(tables)} tables playing at {time.monotonic() - started:.1f} s\n")
    return tables, failures, bots


async def _server_histogram(http: httpx.AsyncClient) -> list[tuple[float, float]] | None:
    """The server's cumulative latency buckets, or None when /metrics is not there."""
    try:
        response = await http.get("/metrics")
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    buckets: list[tuple[float, float]] = []
    for family in text_string_to_metric_families(response.text):
        if family.name != LATENCY_METRIC:
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                buckets.append((float(sample.labels["le"]), sample.value))
    return sorted(buckets) or None


def _window(
    before: list[tuple[float, float]] | None, after: list[tuple[float, float]] | None
) -> ServerLatency | None:
    if before is None or after is None or len(before) != len(after):
        return None
    diff = [(bound, a - b) for (bound, a), (_, b) in zip(after, before, strict=True)]
    return ServerLatency(
        count=int(diff[-1][1]),
        p50_ms=ms(histogram_quantile(diff, 0.50)),
        p99_ms=ms(histogram_quantile(diff, 0.99)),
    )


class Progress:
    """One line a second: on a terminal it rewrites itself; otherwise one line each."""

    def __init__(self, out: TextIO, meter: Meter, total: int, label: str) -> None:
        self.out, self.meter, self.total, self.label = out, meter, total, label
        self.tty = out.isatty()
        self._messages = 0
        self._latencies = 0

    def tick(self, elapsed: float) -> None:
        meter = self.meter
        messages = meter.sent + meter.received
        recent = meter.latencies[self._latencies:]
        p50, p99 = ms(percentile(recent, 0.5)), ms(percentile(recent, 0.99))
        line = (
            f"[{self.label} {elapsed:5.0f}s] conns {meter.open}/{self.total}  hands {meter.hands}"
            f"  msgs/s {messages - self._messages:,}  p50 {p50 if p50 is not None else '-'} ms"
            f"  p99 {p99 if p99 is not None else '-'} ms  errors {sum(meter.errors.values())}"
        )
        self._messages, self._latencies = messages, len(meter.latencies)
        self.out.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


async def _measure(
    seconds: float, meter: Meter, total: int, label: str, out: TextIO,
    work: Callable[[float], Awaitable[object]] | None = None,
) -> float:
    """Run for `seconds` from now (with `work(until)` if given), printing progress; the
    seconds actually measured."""
    meter.restart()
    started = time.monotonic()
    until = started + seconds
    progress = Progress(out, meter, total, label)
    task = asyncio.ensure_future(work(until)) if work is not None else None
    while (now := time.monotonic()) < until:
        await asyncio.sleep(min(1.0, until - now))
        progress.tick(time.monotonic() - started)
    if task is not None:
        await task
    progress.done()
    return time.monotonic() - started


async def run(options: Options, out: TextIO = sys.stderr) -> Report:
    """The whole run (see the module's docstring); starts and stops its own processes."""
    with workdir() as scratch:
        processes: list[Process] = []
        try:
            spawned: Settings | None = None
            if options.url is None:
                url, server, spawned = await spawn_game_server(
                    Path(scratch), options.database_url, options.profile_server
                )
                processes.append(server)
                out.write(f"spawned a server at {url}\n")
            else:
                url = require_loopback(options.url)
            return await _run(options, url, Path(scratch), processes, out, spawned)
        finally:
            for process in processes:
                process.stop()


async def _run(
    options: Options, url: str, scratch: Path, processes: list[Process], out: TextIO,
    spawned: Settings | None,
) -> Report:
    rng = random.Random(options.seed)
    meter = Meter()
    ws_url = "ws" + url[len("http"):]
    clients = options.tables * 4
    limits = httpx.Limits(max_connections=SETUP_CONCURRENCY * 2)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        out.write(f"setting up {options.tables} tables ({clients} clients) ...\n")
        started = time.monotonic()
        tables, failures, bots = await _set_up(http, ws_url, options, meter, rng, out, spawned)
        if failures:
            out.write(f"{len(failures)} set-up steps failed; the first: {failures[0]!r}\n")
        setup_seconds = time.monotonic() - started
        before = await _server_histogram(http)
        elapsed = await _measure(options.seconds, meter, clients, "game", out)
        after = await _server_histogram(http)
        game = PhaseReport.of(meter, elapsed)
        hands, errors, late = meter.hands, dict(meter.errors), dict(meter.late)
        errors_total = sum(errors.values()) + len(failures) + meter.dropped
        if failures:
            errors["setup_failed"] = len(failures)
        if meter.dropped:
            errors["connections_dropped"] = meter.dropped
        seated = [bot for table in tables for bot in table.bots]
        await asyncio.gather(*(bot.leave() for bot in seated), return_exceptions=True)
        await asyncio.gather(*(bot.close() for bot in bots), return_exceptions=True)
        sizes = list(meter.sizes)

    echo: PhaseReport | None = None
    if options.echo:
        echo_url, echo_server = await spawn_echo_server(scratch)
        processes.append(echo_server)
        echo = await _echo(echo_url, clients, sizes, options, rng, out)
        if echo.dropped or echo.connections < clients:
            out.write(f"echo: {echo.connections} of {clients} connections held\n")
    ratio = (
        round(game.messages_per_s / echo.messages_per_s, 3)
        if echo is not None and echo.messages_per_s > 0 else None
    )
    return Report(
        url=url,
        tables=options.tables,
        clients=clients,
        setup_seconds=round(setup_seconds, 2),
        game=game,
        hands=hands,
        errors=errors_total,
        error_codes=errors,
        late_answers=late,
        server=_window(before, after),
        echo=echo,
        ratio=ratio,
        mean_message_bytes=round(sum(sizes) / len(sizes), 1) if sizes else None,
    )


async def _echo(
    url: str, clients: int, sizes: list[int], options: Options, rng: random.Random, out: TextIO
) -> PhaseReport:
    meter = Meter()
    echoes = [EchoClient(meter, random.Random(rng.random()), sizes) for _ in range(clients)]
    opened = await _bounded(SETUP_CONCURRENCY * 4, [partial(e.open, url) for e in echoes])
    live = [e for e, r in zip(echoes, opened, strict=True) if not isinstance(r, BaseException)]
    seconds = options.echo_seconds or min(options.seconds, 10.0)

    async def work(until: float) -> None:
        await asyncio.gather(*(e.run(until) for e in live), return_exceptions=True)

    elapsed = await _measure(seconds, meter, clients, "echo", out, work)
    report = PhaseReport.of(meter, elapsed)
    await asyncio.gather(*(e.close() for e in echoes), return_exceptions=True)
    return report
