"""The abuse of issue 14 against the real server: what each attack costs it, and whether it
keeps answering.

    python -m bench.bench_abuse [--write]

Starts `python -m app` on a fresh SQLite file (settings by environment: real Argon2, a
random 64-character JWT secret, no trusted proxy, so that every loopback source address is
a peer of its own, the registration bars lifted: the set-up registers (d)'s readers from one
address) with an open-file soft limit of 1,024, as the process of the issue's run
had, then runs four attacks, each from its own source address:

(a) idle and half-sent connections: 2,000 sockets from 20 addresses that send nothing, half
    a request head, or a head and half its body; and 600 more from one address (over the
    per-address cap);
(b) body floods: five 100 MB bodies to POST /auth/login at once;
(c) a login flood: 100 concurrent wrong guesses of one account's password;
(d) slow readers: WebSocket clients (one account each) that send ping frames as fast as they
    can and never read.

For each it prints the server's resident memory (VmRSS, sampled every 50 ms: before, peak,
and 2 s after the attack's sockets are gone) and the latency of GET /health, asked on a new
connection every 100 ms from 127.0.0.2 while the attack runs (a probe that gets no answer
in 5 s fails). Progress lines go to stderr; the Markdown section to stdout, and with
`--write` into bench/results.md (replacing the section of an earlier run). About 2 minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import re
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from base64 import b64encode
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from app.loadtest.servers import UNBARRED_SIGNUPS, free_port
from app.ops.serve import raise_open_file_limit
from app.settings import Settings
from bench import sections

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Abuse of the edge (`python -m bench.bench_abuse`)"

# the table socket's protocol: 1 takes the token in the query (`/ws?token=`), 2 in a
# `hello` message first; `socket_opening` is the one place that differs
PROTOCOL = 2

SERVER_FILES = 1024  # the open-file soft limit the server is started with
HOST = "127.0.0.1"
PROBE_SOURCE = "127.0.0.2"
PROBE_EVERY = 0.1
PROBE_TIMEOUT = 5.0
SETTLE = 2.0  # seconds after an attack before its "after" figure

IDLE = 2000  # sockets of attack (a), spread over IDLE_SOURCES addresses ...
IDLE_SOURCES = 20
CAPPED = 600  # ... and these from one address
HOLD_LIMIT = 30.0  # seconds: a socket the server still holds then is counted as never closed
CONNECT_LIMIT = 10.0  # seconds to connect, else the socket counts as not connected
BODIES = 5
BODY_BYTES = 100_000_000
GUESSES = 100
READERS = 10
READ_SECONDS = 20.0
DROP_LIMIT = 60.0  # seconds after the slow readers stop sending that the drop is awaited
TCP_ESTABLISHED = 1  # the first byte of Linux's TCP_INFO

_started = time.monotonic()


def progress(message: str) -> None:
    print(f"[{time.monotonic() - _started:6.1f} s] {message}", file=sys.stderr, flush=True)


def rss_mib(pid: int) -> float:
    """The process's resident memory in MiB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def probe_health(port: int) -> float | None:
    """Seconds to GET /health on a new connection; None without a 200 in time."""
    start = time.perf_counter()
    try:
        with socket.create_connection(
            (HOST, port), timeout=PROBE_TIMEOUT, source_address=(PROBE_SOURCE, 0)
        ) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
    except OSError:
        return None
    return time.perf_counter() - start if data.startswith(b"HTTP/1.1 200") else None


@dataclass
class Figures:
    """One attack's figures."""

    attack: str
    outcome: str = ""
    rss_before: float = 0.0
    rss_peak: float = 0.0
    rss_after: float = 0.0
    latencies: list[float] = field(default_factory=list)
    failed: int = 0

    def row(self) -> str:
        ms = sorted(x * 1000 for x in self.latencies)
        health = f"{statistics.median(ms):.1f} / {ms[-1]:.0f}" if ms else "-"
        return (
            f"| {self.attack} | {self.outcome} | {self.rss_before:,.0f} / {self.rss_peak:,.0f}"
            f" / {self.rss_after:,.0f} | {health} | {self.failed} of "
            f"{self.failed + len(ms)} |"
        )


class Watch:
    """Samples the server's VmRSS every 50 ms and probes /health every `PROBE_EVERY`
    seconds (each in a thread, so that the attack's event loop does not delay them) while
    the block runs; `settled` takes the after figure."""

    def __init__(self, pid: int, port: int, figures: Figures) -> None:
        self.pid, self.port, self.figures = pid, port, figures
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._sample, daemon=True),
            threading.Thread(target=self._probe, daemon=True),
        ]

    def __enter__(self) -> Self:
        self.figures.rss_before = self.figures.rss_peak = rss_mib(self.pid)
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.figures.rss_peak = max(self.figures.rss_peak, rss_mib(self.pid))

    def _probe(self) -> None:
        while not self._stop.wait(PROBE_EVERY):
            latency = probe_health(self.port)
            if latency is None:
                self.figures.failed += 1
            else:
                self.figures.latencies.append(latency)

    def settled(self) -> None:
        time.sleep(SETTLE)
        self.figures.rss_after = rss_mib(self.pid)


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def open_file_line(self) -> str:
        found = re.search(r"open-file limit: .*", self.log.read_text(errors="replace"))
        return found.group(0) if found else "(no open-file limit line logged)"


@contextmanager
def serve(workdir: Path, tree: Path = ROOT) -> Iterator[Server]:
    """`python -m app` of the checkout `tree` on a fresh SQLite file in `workdir`, started
    with an open-file soft limit of `SERVER_FILES`."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k.lower() not in Settings.model_fields}
    env.update(
        HOST=HOST, PORT=str(port), DATABASE_URL=f"sqlite:///{workdir / 'abuse.db'}",
        JWT_SECRET=secrets.token_hex(32), LOG_LEVEL="info", LOG_FORMAT="text",
        FORWARDED_ALLOW_IPS="192.0.2.1",  # no trusted proxy: each source is a peer
        MIGRATE_ON_START="true", PYTHONPATH=str(tree),
    )
    env.update(UNBARRED_SIGNUPS)  # the set-up registers (d)'s readers from one address
    log = workdir / "server.log"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(SERVER_FILES, soft), hard))  # inherited
    try:
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "app"], cwd=tree, env=env, stdout=out,
                stderr=subprocess.STDOUT,
            )
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    server = Server(process, port, log)
    try:
        deadline = time.monotonic() + 60
        while probe_health(port) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _open(port: int, source: str, receive_buffer: int | None = None) -> tuple[
    asyncio.StreamReader, asyncio.StreamWriter
]:
    sock = socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
    except BaseException:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock)


NEVER = float("inf")  # a socket the server did not close in time


def _spread(values: list[float | None], limit: float) -> str:
    """min / median / max seconds of `values`; how many stayed open `limit` seconds (NEVER)
    and how many could not connect (None)."""
    closed = [value for value in values if value is not None and value != NEVER]
    parts = [
        f"{min(closed):.1f} / {statistics.median(closed):.1f} / {max(closed):.1f} s"
        if closed else "none closed"
    ]
    if kept_open := values.count(NEVER):
        parts.append(f"{kept_open} still open after {limit:g} s")
    if refused := values.count(None):
        parts.append(f"{refused} could not connect in {CONNECT_LIMIT:g} s")
    return ", ".join(parts)


# (a) idle and half-sent connections

LOGIN_HEAD = (
    b"POST /auth/login HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
    b"Content-Length: 60\r\n\r\n"
)
OPENERS = {
    "nothing": b"",
    "half a head": b"GET /health HTTP/1.1\r\nHost: be",
    "a head and half its body": LOGIN_HEAD + b'{"username": "vict',
}


async def _held(
    port: int, source: str, opener: bytes, gate: asyncio.Semaphore
) -> float | None:
    """Open a connection from `source`, send `opener`; seconds until the server closed it
    (NEVER if it still held it after `HOLD_LIMIT` seconds, None if it did not connect)."""
    async with gate:
        try:
            reader, writer = await asyncio.wait_for(_open(port, source), CONNECT_LIMIT)
        except (OSError, TimeoutError):
            return None
    opened = time.monotonic()
    writer.write(opener)
    try:
        await asyncio.wait_for(reader.read(), HOLD_LIMIT)
    except ConnectionError:
        pass
    except TimeoutError:
        return NEVER
    finally:
        writer.transport.abort()
    return time.monotonic() - opened


async def idle_sockets(server: Server, figures: Figures) -> None:
    gate = asyncio.Semaphore(200)  # connections being opened at once
    kinds = list(OPENERS)
    spread = [
        (kinds[n % 3], asyncio.create_task(_held(
            server.port, f"127.0.0.{10 + n % IDLE_SOURCES}", OPENERS[kinds[n % 3]], gate
        )))
        for n in range(IDLE)
    ]
    capped = [
        asyncio.create_task(_held(server.port, "127.0.0.50", b"", gate)) for _ in range(CAPPED)
    ]
    every = [task for _, task in spread] + capped
    while not all(task.done() for task in every):
        await asyncio.wait(every, timeout=2.0)
        progress(f"(a) {sum(not t.done() for t in every):,} of {len(every):,} sockets still open")
    per_kind = {
        kind: _spread([task.result() for k, task in spread if k == kind], HOLD_LIMIT)
        for kind in kinds
    }
    times = [task.result() for task in capped]
    at_once = sum(t is not None and t < 1.0 for t in times)
    held = [t for t in times if t is None or t >= 1.0]
    figures.outcome = (
        f"{IDLE:,} sockets from {IDLE_SOURCES} addresses, closed after (min / median / max) "
        + "; ".join(f"{kind}: {spread}" for kind, spread in per_kind.items())
        + f". {CAPPED} more from one address: {at_once} closed at once, "
        f"{len(held)} held ({_spread(held, HOLD_LIMIT)})"
    )


# (b) body floods

async def _flood_body(port: int, source: str, number: int) -> tuple[str, int, float]:
    """POST a `BODY_BYTES` body to /auth/login as fast as the server takes it; the status
    line it answered (or how it ended), the bytes sent, the seconds taken."""
    started = time.monotonic()
    reader, writer = await _open(port, source)
    prefix, suffix = b'{"username": "victim", "password": "', b'"}'
    writer.write(
        b"POST /auth/login HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {BODY_BYTES}\r\n\r\n".encode() + prefix
    )
    answer = asyncio.create_task(reader.readline())
    chunk = memoryview(b"a" * (1 << 20))
    filler = BODY_BYTES - len(prefix) - len(suffix)
    sent = len(prefix)
    try:
        while filler > 0 and not answer.done():
            piece = chunk[: min(filler, len(chunk))]
            writer.write(piece)
            await writer.drain()
            filler -= len(piece)
            sent += len(piece)
        if filler == 0:
            writer.write(suffix)
            sent += len(suffix)
        line = await asyncio.wait_for(answer, 60)
        status = line.decode(errors="replace").strip() or "closed, no answer"
    except (ConnectionError, TimeoutError) as exc:
        answer.cancel()
        status = f"{type(exc).__name__}"
    writer.transport.abort()
    progress(f"(b) body {number}: {status} after {sent / 1e6:,.1f} MB")
    return status, sent, time.monotonic() - started


async def body_floods(server: Server, figures: Figures) -> None:
    results = await asyncio.gather(
        *(_flood_body(server.port, "127.0.0.4", n + 1) for n in range(BODIES))
    )
    statuses = Counter(" ".join(status.split(" ")[1:2]) or status for status, _, _ in results)
    figures.outcome = (
        f"{BODIES} x {BODY_BYTES / 1e6:,.0f} MB to POST /auth/login: "
        + ", ".join(f"{count} x {status}" for status, count in statuses.items())
        + f"; {sum(sent for _, sent, _ in results) / 1e6:,.0f} MB sent in all, "
        f"{max(seconds for _, _, seconds in results):.1f} s"
    )


# (c) a login flood

def _client(server: Server, source: str, connections: int) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(
        local_address=source, limits=httpx.Limits(max_connections=connections)
    )
    return httpx.AsyncClient(base_url=server.url, transport=transport, timeout=120)


async def login_flood(server: Server, figures: Figures, http: httpx.AsyncClient) -> None:
    async def guess(number: int) -> tuple[int, float]:
        started = time.monotonic()
        answer = await http.post(
            "/auth/login", json={"username": "victim", "password": f"guess-{number:04d}"}
        )
        return answer.status_code, time.monotonic() - started

    started = time.monotonic()
    results = await asyncio.gather(*(guess(n) for n in range(GUESSES)))
    took = time.monotonic() - started
    statuses = Counter(status for status, _ in results)
    waits = [seconds for _, seconds in results]
    figures.outcome = (
        f"{GUESSES} wrong passwords for one account at once: "
        + ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
        + f"; all answered in {took:.1f} s (each: median {statistics.median(waits):.1f} s, "
        f"max {max(waits):.1f} s)"
    )


# (d) slow readers

def socket_opening(token: str) -> tuple[str, list[str]]:
    """The table socket's path and the messages that authenticate `token` (`PROTOCOL`)."""
    if PROTOCOL >= 2:
        return "/ws", [json.dumps({"v": 2, "type": "hello", "token": token})]
    return f"/ws?token={token}", []


def ping(nonce: str) -> str:
    return json.dumps({"v": PROTOCOL, "type": "ping", "nonce": nonce})


def text_frame(text: str) -> bytes:
    """A masked WebSocket text frame, as a client sends it."""
    payload = text.encode()
    mask = secrets.token_bytes(4)
    size = len(payload)
    length = bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2, "big")
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _slow_reader(port: int, token: str, until: float) -> tuple[int, float]:
    """Open the table socket, send pings until `until` without ever reading, then wait for
    the server to drop the connection; the frames sent, and the seconds from opening to
    the drop (NEVER if the server still held it `DROP_LIMIT` seconds after `until`)."""
    reader, writer = await _open(port, "127.0.0.5", receive_buffer=4096)
    opened = time.monotonic()
    path, opening = socket_opening(token)
    key = b64encode(secrets.token_bytes(16)).decode()
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"no WebSocket: {head[:80]!r}")
    for message in opening:
        writer.write(text_frame(message))
    batch = text_frame(ping("slow")) * 100
    frames = 0
    try:
        while (left := until - time.monotonic()) > 0:
            writer.write(batch)
            await asyncio.wait_for(writer.drain(), left)
            frames += 100
    except (ConnectionError, TimeoutError):
        pass  # dropped, or the server reads no more either
    sock = writer.get_extra_info("socket")
    try:
        while time.monotonic() < until + DROP_LIMIT:
            if writer.transport.is_closing() or sock.getsockopt(
                socket.IPPROTO_TCP, socket.TCP_INFO, 1
            )[0] != TCP_ESTABLISHED:
                return frames, time.monotonic() - opened
            await asyncio.sleep(0.25)
        return frames, NEVER
    except OSError:  # the transport found the reset and closed its socket
        return frames, time.monotonic() - opened
    finally:
        writer.transport.abort()


async def _tokens(http: httpx.AsyncClient, count: int) -> list[str]:
    async def token(number: int) -> str:
        name, password = f"reader{number}", "correct horse battery"
        created = await http.post("/auth/register", json={"username": name, "password": password})
        created.raise_for_status()
        pair = await http.post("/auth/login", json={"username": name, "password": password})
        pair.raise_for_status()
        return str(pair.json()["access_token"])

    return list(await asyncio.gather(*(token(n) for n in range(count))))


async def slow_readers(server: Server, figures: Figures, tokens: list[str]) -> None:
    until = time.monotonic() + READ_SECONDS
    readers = [asyncio.create_task(_slow_reader(server.port, t, until)) for t in tokens]
    while not all(task.done() for task in readers):
        await asyncio.wait(readers, timeout=5.0)
        progress(
            f"(d) {sum(not task.done() for task in readers)} slow readers connected, "
            f"server RSS {rss_mib(server.process.pid):,.0f} MiB"
        )
    frames = sum(task.result()[0] for task in readers)
    figures.outcome = (
        f"{len(tokens)} sockets (one account each) sent {frames:,} pings in "
        f"{READ_SECONDS:.0f} s and read nothing; dropped by the server (min / median / max) "
        f"{_spread([task.result()[1] for task in readers], READ_SECONDS + DROP_LIMIT)} "
        "after they opened"
    )


# the run

async def attack(
    server: Server, name: str, run: Callable[[Figures], Awaitable[None]]
) -> Figures:
    figures = Figures(name)
    progress(f"{name}: starts")
    with Watch(server.process.pid, server.port, figures) as watch:
        await run(figures)
    await asyncio.to_thread(watch.settled)
    progress(f"{name}: {figures.outcome}")
    progress(f"{name}: {figures.row()}")
    return figures


async def run_async(server: Server, attacks: str) -> list[Figures]:
    rows = []
    if "a" in attacks:
        rows.append(
            await attack(server, "(a) idle and half-sent", lambda f: idle_sockets(server, f))
        )
    if "b" in attacks:
        rows.append(await attack(server, "(b) body floods", lambda f: body_floods(server, f)))
    if "c" in attacks:
        async with _client(server, "127.0.0.3", GUESSES) as http:
            created = await http.post(
                "/auth/register", json={"username": "victim", "password": "the real password"}
            )
            created.raise_for_status()
            rows.append(
                await attack(server, "(c) login flood", lambda f: login_flood(server, f, http))
            )
    if "d" in attacks:
        async with _client(server, "127.0.0.6", READERS) as http:
            progress(f"(d) registering {READERS} accounts (real Argon2)")
            tokens = await _tokens(http, READERS)
        rows.append(
            await attack(server, "(d) slow readers", lambda f: slow_readers(server, f, tokens))
        )
    return rows


def report(server: Server, rows: list[Figures], seconds: float) -> str:
    defaults = {name: info.default for name, info in Settings.model_fields.items()}
    setup = (
        f"Run on {dt.date.today().isoformat()} ({os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the start), {seconds:.0f} s: "
        "`python -m bench.bench_abuse --write`. The server is `python -m app` on a fresh "
        "SQLite file with the default settings (request time limit "
        f"{defaults['request_timeout_seconds']:g} s, {defaults['max_connections_per_peer']} "
        f"connections per address, Argon2 {defaults['argon2_memory_kib'] // 1024} MiB / "
        f"t={defaults['argon2_time_cost']} / p={defaults['argon2_parallelism']}) and no "
        "trusted proxy, started with an open-file soft limit of "
        f"{SERVER_FILES:,}; it logged `{server.open_file_line()}`. Each attack comes from its "
        "own loopback address; /health is asked on a new connection every "
        f"{PROBE_EVERY * 1000:.0f} ms from another during the attack (a probe fails "
        f"without an answer in {PROBE_TIMEOUT:g} s). RSS is VmRSS in MiB, the peak sampled "
        f"every 50 ms, after = {SETTLE:g} s after the attack's sockets are gone."
    )
    lines = [
        HEADING,
        "",
        setup,
        "",
        "| attack | what the server did | RSS MiB before / peak / after "
        + "| /health p50 / max ms | failed probes |",
        "|---|---|---:|---:|---:|",
        *(row.row() for row in rows),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="put the figures in results.md")
    parser.add_argument("--attacks", default="abcd", help="which attacks (default: abcd)")
    parser.add_argument(
        "--tree", type=Path, default=ROOT,
        help="serve the app of this checkout instead (a worktree of an earlier commit)",
    )
    args = parser.parse_args()
    before, after = raise_open_file_limit()  # this process holds thousands of sockets too
    progress(f"the benchmark's open-file limit: {after} (was {before})")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mahjong-abuse-") as workdir, serve(
        Path(workdir), args.tree.resolve()
    ) as server:
        progress(f"server pid {server.process.pid} on port {server.port}: "
                 f"{server.open_file_line()}")
        rows = asyncio.run(run_async(server, args.attacks))
        section = report(server, rows, time.monotonic() - started)
    print(section)
    if args.write:
        sections.write(HEADING, section)
        progress(f"written to {sections.RESULTS}")


if __name__ == "__main__":
    main()
