"""`PROCESSES=2 python -m app`: one command, two server processes sharing one port
(app/ops/supervisor.py), each a node of the cluster.

The supervisor upgrades an empty database and grants the house its float once, then starts
two workers on one listening socket. Four players log in over REST and open their table
sockets on that one port until the sockets have landed on both processes (presence in
Redis names each socket's node); they sit at one table and play a whole hand, so at least
one player plays through a process that is not the table's. The hand is stored once and
paid, and each worker's /metrics (on its own port) counts the sockets it holds. A worker killed with SIGKILL comes back as a new node; SIGTERM to the supervisor
then stops every worker, and the supervisor exits 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.cluster.keys import Keys
from app.loadtest.servers import UNBARRED_SIGNUPS, free_port, free_ports
from app.store.db import async_url
from tests.cluster.processes import ROOT, Player, open_table, play, register
from tests.conftest import POSTGRES_URL, empty_database_url
from tests.outage import check_hands_paid
from tests.waits import until
from tests.wsclient import open_socket

HOUSE_FLOAT = 5000
START_SECONDS = 60  # two interpreters importing the app on a loaded machine
SUPERVISOR = "app.ops.supervisor"

pytestmark = pytest.mark.skipif(POSTGRES_URL is None, reason="TEST_DATABASE_URL is not set")


@dataclass
class Served:
    """The supervisor's process, its port and its log (JSON lines, workers' too)."""

    process: subprocess.Popen[bytes]
    address: str
    database: str
    log: Path
    metrics_port: int  # worker i's /metrics: this + i - 1

    def lines(self) -> list[dict[str, Any]]:
        found = []
        for line in self.log.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                found.append(entry)
        return found

    def said(self, start: str) -> list[dict[str, Any]]:
        """The supervisor's lines whose message starts with `start`."""
        return [
            e for e in self.lines()
            if e.get("logger") == SUPERVISOR and str(e.get("message", "")).startswith(start)
        ]

    def up(self) -> dict[str, int]:
        """node -> pid of every worker that said it serves."""
        return {e["worker_node"]: e["worker_pid"] for e in self.said("worker") if " is up" in e["message"]}


def _supervise(redis_url: str, prefix: str, tmp_path: Path, attempt: int) -> Served | None:
    """`PROCESSES=2 python -m app` serving on fresh ports and an empty database; None when
    a worker found one of its ports taken meanwhile (it then stops them all)."""
    database = empty_database_url("postgresql", tmp_path)  # the supervisor migrates it
    port, metrics = free_port(), free_ports(2)
    log = tmp_path / f"processes-{attempt}.log"
    env = dict(os.environ) | {
        "PROCESSES": "2", "NODE_ID": "pt", "HOST": "127.0.0.1", "PORT": str(port),
        "DATABASE_URL": database, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix,
        "JWT_SECRET": "processes-test-secret-" + "x" * 32, "HOUSE_FLOAT": str(HOUSE_FLOAT),
        "LOG_FORMAT": "json", "LOG_LEVEL": "info", "LEASE_MS": "1500",
        "WATCH_INTERVAL_MS": "200", "ARGON2_TIME_COST": "1", "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_PARALLELISM": "1", "PYTHONPATH": str(ROOT), "METRICS_PORT": str(metrics),
    } | UNBARRED_SIGNUPS  # every player registers from 127.0.0.1
    process = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    running = Served(process, f"127.0.0.1:{port}", database, log, metrics)
    deadline = time.monotonic() + START_SECONDS
    while not running.said("serving on"):
        if process.poll() is not None and "address already in use" in log.read_text():
            return None
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the supervisor exited or is not serving:\n{log.read_text()}")
        time.sleep(0.2)
    return running


@pytest.fixture
def served(redis_url: str, prefix: str, tmp_path: Path) -> Iterator[Served]:
    for attempt in range(3):  # the ports were free when picked; another process may bind one
        running = _supervise(redis_url, prefix, tmp_path, attempt)
        if running is not None:
            break
    else:
        raise AssertionError("three starts found a port taken")
    process = running.process
    try:
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(40)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        for pid in running.up().values():  # never leave a worker behind
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


async def test_a_hand_across_two_processes_on_one_port(
    served: Served, redis: Redis, prefix: str
) -> None:
    keys = Keys(prefix)
    workers = served.up()
    assert sorted(workers) == ["pt-1", "pt-2"]
    stop = asyncio.Event()
    clients, players, accounts = await _four(served.address, ("ann", "ben", "cat", "dan"))
    tasks = [asyncio.create_task(play(p, served.address, stop)) for p in players]
    try:
        async with asyncio.timeout(90):
            # reconnect the last player until the four sockets are on both processes
            nodes = await _socket_nodes(redis, keys, accounts)
            tries = 0
            while len(set(nodes)) < 2:
                tries += 1
                assert tries <= 30, f"every socket stayed on {nodes[0]}"
                await _reconnect(players[3])
                nodes = await _socket_nodes(redis, keys, accounts)

            table_id = await open_table(clients[0], players[0])
            for seat, (http, player) in enumerate(zip(clients, players)):
                player.table_id = table_id
                sat = await http.post(f"/tables/{table_id}/sit", json={"seat": seat},
                                      headers=player.headers)
                assert sat.status_code == 200, sat.text
            owner = str(await redis.get(keys.lease(table_id))).split("|")[0]
            assert owner in workers
            hand = f"{table_id}-1"
            await until(lambda: all(hand in p.ended for p in players), 60, "the first hand")
            # the sockets stayed where they were: some seats played through the other process
            assert await _socket_nodes(redis, keys, accounts) == nodes
            assert {owner} < set(nodes), (owner, nodes)
            # each worker's /metrics on its own port counts the sockets it holds
            for worker in (1, 2):
                held = await _metric(served.metrics_port + worker - 1, "mahjong_ws_connections")
                assert held == nodes.count(f"pt-{worker}"), (worker, nodes)
    finally:
        await _stop(stop, tasks, clients)

    assert len({json.dumps(p.ended[hand], sort_keys=True) for p in players}) == 1
    url = served.database
    await check_hands_paid(url, [hand], 1, {hand: list(players[0].ended[hand]["net"])})
    assert await _house_floats(url) == [HOUSE_FLOAT]  # granted once, by the supervisor

    # a worker that dies comes back as a new node on the same port
    os.kill(workers["pt-1"], signal.SIGKILL)
    await until(lambda: "pt-1.1" in served.up(), START_SECONDS, "worker 1 to come back")
    assert served.process.poll() is None
    assert await _metric(served.metrics_port, "mahjong_ws_connections") == 0  # pt-1.1's
    pids = set(served.up().values())

    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(40) == 0, served.log.read_text()
    assert served.said("stopping 2 workers")
    for pid in pids:
        assert not _alive(pid), f"worker {pid} outlived its supervisor"
    print(f"\nsockets on {nodes}, table on {owner}, reconnects to spread: {tries}")


async def test_a_socket_that_names_its_table_is_served_by_the_tables_process(
    served: Served, redis: Redis, prefix: str
) -> None:
    """``/ws/<table_id>``: whichever worker the kernel gives the connection to, the socket
    ends up on the worker that owns the table (app/ops/handoff.py), each of several times it
    reconnects; a hand played over those sockets crosses no process. A hint naming no table
    is served where it landed, and so is a plain ``/ws``."""
    keys = Keys(prefix)
    stop = asyncio.Event()
    clients, players, accounts = await _four(served.address, ("eve", "fay", "gus", "hal"))
    tasks: list[asyncio.Task[None]] = []
    try:
        async with asyncio.timeout(120):
            table_id = await open_table(clients[0], players[0])
            owner = str(await redis.get(keys.lease(table_id))).split("|")[0]
            # a hint that names no table, and no hint: both served wherever they land
            stray = await open_socket(served.address, players[0].token, "/ws/no-such-table")
            plain = await open_socket(served.address, players[1].token)
            landed = set(await _socket_nodes(redis, keys, accounts[:2]))
            await stray.close()
            await plain.close()
            for player in players:
                player.table_id, player.path = table_id, f"/ws/{table_id}"
            # three sit, so that no hand starts while the sockets move (a seat reconnecting
            # as its hand ends and the next one deals is shown the new hand, not the result)
            for seat in range(3):
                await _sit(clients[seat], players[seat], table_id, seat)
            tasks = [asyncio.create_task(play(p, served.address, stop)) for p in players]
            for _ in range(3):  # each time, the kernel picks a worker; the socket moves
                await until(lambda: all(p.ws is not None for p in players), 20, "sockets")
                assert await _socket_nodes(redis, keys, accounts) == [owner] * 4
                for player in players:
                    await _reconnect(player)
            await until(lambda: all(p.ws is not None for p in players), 20, "sockets")
            await _sit(clients[3], players[3], table_id, 3)
            hand = f"{table_id}-1"
            await until(lambda: all(hand in p.ended for p in players), 60, "the first hand")
            assert await _socket_nodes(redis, keys, accounts) == [owner] * 4
            handed = [await _handoffs(served.metrics_port + w - 1) for w in (1, 2)]
    finally:
        await _stop(stop, tasks, clients)
    # 16 sockets named the table: those the owner accepted itself were kept, the others
    # were passed by the other worker and taken by the owner (plus the stray hint, kept)
    mine = handed[int(owner.removeprefix("pt-")) - 1]
    other = handed[2 - int(owner.removeprefix("pt-"))]
    assert mine["passed"] == 0 and other["taken"] == 0
    assert other["passed"] == mine["taken"] > 0
    assert mine["kept"] + other["kept"] + other["passed"] == 16 + 1
    print(f"\ntable on {owner}; the stray hint and plain /ws landed on {sorted(landed)}; "
          f"handed over: {handed}")


async def _sit(http: httpx.AsyncClient, player: Player, table_id: str, seat: int) -> None:
    sat = await http.post(f"/tables/{table_id}/sit", json={"seat": seat}, headers=player.headers)
    assert sat.status_code == 200, sat.text


async def _four(
    address: str, names: tuple[str, str, str, str]
) -> tuple[list[httpx.AsyncClient], list[Player], list[int]]:
    """Four players registered and logged in on `address`: a client each, and their ids."""
    clients = [httpx.AsyncClient(base_url=f"http://{address}") for _ in range(4)]
    players = [await register(http, name, address) for http, name in zip(clients, names)]
    accounts = [int((await http.get("/me", headers=p.headers)).json()["id"])
                for http, p in zip(clients, players)]
    return clients, players, accounts


async def _stop(
    stop: asyncio.Event, tasks: list[asyncio.Task[None]], clients: list[httpx.AsyncClient]
) -> None:
    """The players stop playing and their clients close."""
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for http in clients:
        await http.aclose()


async def _handoffs(port: int) -> dict[str, float]:
    """A worker's `mahjong_ws_handoffs_total` by way."""
    async with httpx.AsyncClient() as http:
        scraped = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
    found = {"passed": 0.0, "taken": 0.0, "kept": 0.0}
    for line in scraped.splitlines():
        if line.startswith("mahjong_ws_handoffs_total{"):
            way = line.split('way="')[1].split('"')[0]
            found[way] = float(line.split()[1])
    return found


async def _metric(port: int, name: str) -> float:
    """The value of the unlabelled metric `name` on a worker's monitoring port."""
    async with httpx.AsyncClient() as http:
        scraped = await http.get(f"http://127.0.0.1:{port}/metrics")
    assert scraped.status_code == 200
    line = next(x for x in scraped.text.splitlines() if x.startswith(f"{name} "))
    return float(line.split()[1])


async def _reconnect(player: Player) -> None:
    """Close the player's socket; `play` opens another (wherever the kernel puts it)."""
    old = player.ws
    assert old is not None
    await old.close()
    await until(lambda: player.ws is not old, 10, "a new socket")


async def _socket_nodes(redis: Redis, keys: Keys, accounts: list[int]) -> list[str]:
    """The node holding each account's table socket, once all four have one."""
    async with asyncio.timeout(10):
        while True:
            nodes = await redis.mget([keys.online(a) for a in accounts])
            if all(nodes):
                return [str(n) for n in nodes]
            await asyncio.sleep(0.05)


async def _house_floats(url: str) -> list[int]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT delta FROM ledger WHERE reason = 'house_float'")
            )
            return [int(delta) for (delta,) in rows]
    finally:
        await engine.dispose()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
