"""The processes a load run starts: the server under test (`--spawn`) and the echo server.

Both listen on a free loopback port in subprocesses of their own, so that they do not share
the load test's event loops. The spawned game server is `python -m app` on a fresh SQLite file
(or the `--database-url` given), with cheap Argon2 parameters so that thousands of accounts
register in seconds, a random JWT secret, warnings-only logs, and no request limit or
cap on the sockets one address may open in the way of its loopback clients (every bot
connects from 127.0.0.1). A run with house bots (`--house-bots`) gives the server a pool of
bots and a house float that seat them all (`house_bots_env`), and its bots (and 托管) play
at the pace the run asks for (`BOT_DELAY_MS`; at once unless `--bot-delay-ms` or house bots).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from app.settings import Settings
from app.tables.registry import MIN_BALANCE_PER_STAKE

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0

# Argon2 at its cheapest sensible setting: only for a throwaway load-test server
CHEAP_ARGON2 = {"ARGON2_TIME_COST": "1", "ARGON2_MEMORY_KIB": "1024", "ARGON2_PARALLELISM": "1"}
# every load client calls from 127.0.0.1: the request limits (app/api/throttle.py) would
# cut a run of hundreds of tables to a player's share
# ... and the registration bars and the signup grant's (app/api/signups.py) would stop
# the accounts a run or a test registers from there after a few
UNBARRED_SIGNUPS = {
    name: "1000000"
    for name in ("REGISTER_PER_ADDRESS_HOUR", "REGISTER_PER_ADDRESS_DAY",
                 "REGISTER_PER_NETWORK_DAY", "SIGNUP_GRANTS_PER_ADDRESS_DAY",
                 "SIGNUP_GRANTS_PER_NETWORK_DAY")
}
UNTHROTTLED = {
    name: "1000000"
    for name in ("REQUESTS_PER_ADDRESS", "REQUESTS_PER_ACCOUNT", "WS_CONNECTS_PER_ADDRESS",
                 "WS_CONNECTS_PER_ACCOUNT", "BOT_SEATS_PER_HOUR")
} | UNBARRED_SIGNUPS
MAX_HOUSE_FLOAT = 10**12  # app/settings.py house_float's bound


def house_bots_env(seats: int, stake: int) -> dict[str, str]:
    """What a spawned server needs to seat `seats` house bots at once at tables of `stake`:
    a pool that large (BOT_POOL_SIZE) and a house float (HOUSE_FLOAT, granted once to a
    fresh database) that brings every one of them to the table's minimum twice over. The
    operators' defaults (a pool of 200, a float of 1,000,000) are left alone; an empty
    dict without house bots."""
    if seats <= 0:
        return {}
    defaults = Settings.model_fields
    needed = 2 * seats * MIN_BALANCE_PER_STAKE * stake
    return {
        "BOT_POOL_SIZE": str(max(defaults["bot_pool_size"].default, seats)),
        "HOUSE_FLOAT": str(min(MAX_HOUSE_FLOAT, max(defaults["house_float"].default, needed))),
    }


class LoopbackOnly(ValueError):
    """The load test refuses any target but this machine."""


def require_loopback(url: str) -> str:
    """`url` without a trailing slash, if its host is a loopback address (or localhost)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LoopbackOnly(f"not an http(s) URL: {url!r}")
    host = parts.hostname
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LoopbackOnly(f"the load test only targets this machine (loopback), not {host!r}")
    return url.rstrip("/")


def _first_ephemeral_port() -> int:
    """Where the range the kernel draws outgoing connections' local ports from begins."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_port() -> int:
    """A loopback port nothing listens on, for a server about to start.

    Drawn at random below the ephemeral range: a port the kernel handed out (bind to 0) is
    one it may give the next outgoing connection of any process before our server binds it,
    which made server starts fail with "address already in use" under parallel tests. A
    machine whose ephemeral range leaves no room below it gets the kernel's choice.
    """
    low = _first_ephemeral_port()
    if low <= 11_000:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    for _ in range(200):
        port = secrets.randbelow(low - 10_000) + 10_000
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port in 10000-{low - 1}")


class Process:
    """A child process with its output in a file; `stop` ends it (SIGTERM, then SIGKILL)."""

    def __init__(
        self, args: list[str], env: dict[str, str], log: Path, stop_timeout: float = 15.0
    ) -> None:
        self.log = log
        self.stop_timeout = stop_timeout
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=self._out, stderr=subprocess.STDOUT
        )

    def tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._out.close()


async def wait_http(url: str, process: Process) -> None:
    """Poll `url` until it answers 200; fail with the child's output if it dies or hangs."""
    deadline = time.monotonic() + START_TIMEOUT
    async with httpx.AsyncClient(timeout=2) as http:
        while time.monotonic() < deadline:
            if process.proc.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{process.tail()}")
            try:
                if (await http.get(url)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the server did not answer {url} in {START_TIMEOUT:g} s:\n{process.tail()}")


async def wait_port(port: int, process: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.proc.poll() is not None:
            raise RuntimeError(f"the echo server exited at start:\n{process.tail()}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"the echo server did not listen in {START_TIMEOUT:g} s")


@dataclass(frozen=True)
class Spawned:
    """A game server the load test started: its base URL, its process (with `processes`
    > 1 a supervisor whose children are the workers), the settings it was given (the
    database and the JWT secret) and where each of its processes' /metrics is."""

    url: str
    process: Process
    settings: Settings
    metrics: list[str]


def free_ports(n: int) -> int:
    """The first of `n` consecutive free loopback ports."""
    for _ in range(100):
        first = free_port()
        if first + n > 65535:
            continue
        try:
            with contextlib.ExitStack() as stack:
                for port in range(first, first + n):
                    s = stack.enter_context(socket.socket())
                    s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
    raise RuntimeError(f"no {n} consecutive free ports")


def game_server_env(
    workdir: Path, port: int, database_url: str | None = None,
    house: dict[str, str] | None = None, bot_delay_ms: tuple[int, int] = (0, 0),
) -> dict[str, str]:
    """The environment of a spawned game server listening on `port`: this process's
    (without its REDIS_URL and TEST_MODE) and the load test's settings; `house`: the house
    bots' (`house_bots_env`); `bot_delay_ms`: how long its house bots and 托管 wait before
    each decision (BOT_DELAY_MS, min and max ms; (0, 0): at once)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TEST_MODE")}
    env.update(CHEAP_ARGON2 | UNTHROTTLED)
    env.update(
        HOST="127.0.0.1",
        PORT=str(port),
        DATABASE_URL=database_url or f"sqlite:///{workdir / 'loadtest.db'}",
        JWT_SECRET=secrets.token_hex(32),
        LOG_LEVEL="warning",
        MIGRATE_ON_START="true",
        # every bot's socket comes from this machine's one address
        WS_CONNECTIONS_PER_ADDRESS="1000000",
        MAX_CONNECTIONS_PER_PEER="1000000",
        BOT_DELAY_MS=",".join(map(str, bot_delay_ms)),
    )
    env.update(house or {})
    return env


async def spawn_game_server(
    workdir: Path, database_url: str | None = None, profile: Path | None = None,
    processes: int = 1, redis_url: str | None = None, house: dict[str, str] | None = None,
    bot_delay_ms: tuple[int, int] = (0, 0),
) -> Spawned:
    """Start `python -m app` on a free loopback port. With `profile` the server runs under
    cProfile and writes its stats there when it stops. With `redis_url` each process is a
    node of a cluster (keys under a prefix of this run's own). With `processes` > 1 it is
    `PROCESSES=N python -m app` (which needs PostgreSQL and `redis_url`), each worker's
    /metrics on a port of its own. `house` and `bot_delay_ms`: see `game_server_env`."""
    port = free_port()
    env = game_server_env(workdir, port, database_url, house, bot_delay_ms)
    url = f"http://127.0.0.1:{port}"
    metrics = [f"{url}/metrics"]
    if redis_url is not None:  # a cluster of one node or more
        run = secrets.token_hex(3)  # keys of its own: no table of an earlier run is adopted
        env.update(REDIS_URL=redis_url, NODE_ID=f"load-{run}", REDIS_PREFIX=f"load-{run}:")
    if processes > 1:
        if redis_url is None or database_url is None:
            raise ValueError("several server processes need --database-url and --redis-url")
        first = free_ports(processes)
        env.update(PROCESSES=str(processes), METRICS_PORT=str(first))
        metrics = [f"http://127.0.0.1:{first + i}/metrics" for i in range(processes)]
    command = [sys.executable, "-m", "app"]
    if profile is not None:
        command = [sys.executable, "-m", "app.loadtest.profiled", str(profile.resolve())]
    # a profiled server is slower to shut down, and writes its stats only if it gets to
    process = Process(command, env, workdir / "server.log", 120.0 if profile else 35.0)
    try:
        await wait_http(f"{url}/health", process)
        for address in metrics:  # every worker serves
            await wait_http(address, process)
    except BaseException:
        process.stop()
        raise
    settings = Settings(database_url=env["DATABASE_URL"], jwt_secret=env["JWT_SECRET"])
    return Spawned(url, process, settings, metrics)


async def spawn_echo_servers(workdir: Path, processes: int = 1) -> tuple[str, list[Process]]:
    """Start `processes` bare echo servers (`python -m app.loadtest.echo`) on one port;
    its ws:// URL."""
    port = free_port()
    started: list[Process] = []
    try:
        for i in range(processes):
            started.append(Process(
                [sys.executable, "-m", "app.loadtest.echo", str(port)], dict(os.environ),
                workdir / f"echo-{i}.log",
            ))
        for process in started:
            await wait_port(port, process)
    except BaseException:
        for process in started:
            process.stop()
        raise
    return f"ws://127.0.0.1:{port}/", started


def workdir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="mahjong-load-")
