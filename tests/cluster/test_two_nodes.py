"""Two real server processes (uvicorn) on loopback sharing the database and Redis.

Four players: two sit and play over node A, two over node B (their sit goes to the owner
over the bus, their messages are routed to it and back). The table is opened on A. After
one whole hand, A is killed with SIGKILL in the middle of a later one; B takes the table
over within 5 seconds, the players of A reconnect to B and resume, and the hand finishes.
Then every balance equals its ledger, and every hand was settled exactly once.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from redis.asyncio import Redis
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import ClientConnection, connect

from app.cluster.keys import Keys
from app.store import migrate
from app.store.db import async_url
from tests.conftest import POSTGRES_URL, empty_database_url

Message = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
TAKEOVER_SECONDS = 5.0
LEASE_MS = 1500


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Node:
    name: str
    address: str
    process: subprocess.Popen[bytes]
    log: Path


def _start(name: str, env: dict[str, str], tmp_path: Path) -> Node:
    port = _free_port()
    log = tmp_path / f"node-{name}.log"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning", "--ws", "websockets-sansio",
        ],
        cwd=ROOT,
        env=env | {"NODE_ID": name},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    return Node(name, f"127.0.0.1:{port}", process, log)


def _wait_up(node: Node) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if node.process.poll() is not None:
            raise RuntimeError(f"node {node.name} exited:\n{node.log.read_text()}")
        try:
            if httpx.get(f"http://{node.address}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"node {node.name} did not start:\n{node.log.read_text()}")


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = (
        empty_database_url("postgresql", tmp_path) if POSTGRES_URL
        else f"sqlite:///{tmp_path / 'cluster.db'}"
    )
    migrate.upgrade(url)
    return url


@pytest.fixture
def nodes(
    database: str, redis_url: str, prefix: str, tmp_path: Path
) -> Iterator[tuple[Node, Node]]:
    env = dict(os.environ) | {
        "DATABASE_URL": database,
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": prefix,
        "JWT_SECRET": "cluster-test-secret-" + "x" * 32,
        "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_PARALLELISM": "1",
        "LEASE_MS": str(LEASE_MS),
        "WATCH_INTERVAL_MS": "200",
        "PYTHONPATH": str(ROOT),
    }
    started = [_start("a", env, tmp_path), _start("b", env, tmp_path)]
    try:
        for node in started:
            _wait_up(node)
        yield started[0], started[1]
    finally:
        for node in started:
            if node.process.poll() is None:
                node.process.send_signal(signal.SIGTERM)
        for node in started:
            try:
                node.process.wait(15)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait(5)


@dataclass
class Player:
    name: str
    token: str
    headers: dict[str, str]
    node: str
    table_id: str = ""
    last_seq: int = 0
    ws: ClientConnection | None = None
    ended: dict[str, Message] = field(default_factory=dict)  # hand id -> hand_ended
    seen: dict[str, int] = field(default_factory=dict)  # hand id -> events seen
    got_at: list[float] = field(default_factory=list)  # when each message arrived
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0


async def _register(http: httpx.AsyncClient, name: str, node: str) -> Player:
    body = {"username": name, "password": "correct horse battery"}
    assert (await http.post("/auth/register", json=body)).status_code == 201
    token = (await http.post("/auth/login", json=body)).json()["access_token"]
    return Player(name, token, {"Authorization": f"Bearer {token}"}, node)


async def _play(player: Player, fallback: str, stop: asyncio.Event) -> None:
    """Answer every prompt with its first legal action; when the socket drops, reconnect
    to `fallback` and resume until the table answers."""
    while not stop.is_set():
        try:
            async with connect(f"ws://{player.node}/ws?token={player.token}") as ws:
                player.ws = ws
                answered = asyncio.Event()
                resumer = asyncio.create_task(_resume_until(player, ws, answered))
                try:
                    async for raw in ws:
                        message = json.loads(raw)
                        player.got_at.append(time.monotonic())
                        await _handle(player, ws, message, answered)
                finally:
                    resumer.cancel()
        except (websockets.ConnectionClosed, OSError):
            pass
        if stop.is_set():
            return
        player.node = fallback
        player.reconnects += 1
        await asyncio.sleep(0.1)


async def _resume_until(player: Player, ws: ClientConnection, answered: asyncio.Event) -> None:
    """After (re)connecting: `resume` every half second until the table answers."""
    if not player.table_id:
        return
    while not answered.is_set():
        resume = {"type": "resume", "table_id": player.table_id, "last_seq": player.last_seq}
        await ws.send(json.dumps(resume))
        try:
            await asyncio.wait_for(answered.wait(), 0.5)
        except TimeoutError:
            pass


async def _handle(
    player: Player, ws: ClientConnection, message: Message, answered: asyncio.Event
) -> None:
    kind = message["type"]
    if kind == "error":
        player.errors.append(message["code"])
        return
    if kind in ("event", "prompt", "snapshot"):
        answered.set()
    if kind == "event":
        player.last_seq = max(player.last_seq, message["seq"])
        player.seen[message["hand_id"]] = player.seen.get(message["hand_id"], 0) + 1
        if message["event"]["kind"] == "hand_ended":
            player.ended[message["hand_id"]] = message["event"]
    elif kind == "snapshot":
        player.last_seq = message["seq"]
    elif kind == "prompt":
        answer = {
            "type": "action", "table_id": player.table_id,
            "seq": max(player.last_seq, message["seq"]), "action": message["legal_actions"][0],
        }
        await ws.send(json.dumps(answer))


async def _until(condition: Any, seconds: float, what: str) -> None:
    try:
        async with asyncio.timeout(seconds):
            while not condition():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def test_two_nodes_survive_the_owner_being_killed(
    nodes: tuple[Node, Node], database: str, redis: Redis, prefix: str
) -> None:
    a, b = nodes
    stop = asyncio.Event()
    async with (
        asyncio.timeout(90),
        httpx.AsyncClient(base_url=f"http://{a.address}") as http_a,
        httpx.AsyncClient(base_url=f"http://{b.address}") as http_b,
    ):
        names = ("ada", "bob", "cyd", "dio")
        homes = (a, a, b, b)
        players = [
            await _register(http_a if home is a else http_b, name, home.address)
            for name, home in zip(names, homes)
        ]
        created = await http_a.post(
            "/tables",
            json={"variant": "lishui", "stake": 1,
                  "timers": {"discard": 5, "claim": 2, "decide": 2, "ready": 1}},
            headers=players[0].headers,
        )
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        # B lists the table A opened (the directory), and seats go to the owner from B too
        listed = (await http_b.get("/tables", headers=players[2].headers)).json()
        assert [t["id"] for t in listed] == [table_id]
        for seat, player in enumerate(players):
            http = http_a if player.node == a.address else http_b
            sat = await http.post(
                f"/tables/{table_id}/sit", json={"seat": seat}, headers=player.headers
            )
            assert sat.status_code == 200, sat.text
            assert sat.json()["seat"] == seat
            player.table_id = table_id
        taken = await http_b.post(f"/tables/{table_id}/sit", json={"seat": 0},
                                  headers=players[3].headers)
        assert taken.json()["error"]["code"] in ("seat_taken", "already_seated")

        # a second login on the other node closes the first socket (code 4000)
        first_socket = await connect(f"ws://{a.address}/ws?token={players[0].token}")
        await _until_present(redis, prefix, players[0], "a")
        async with connect(f"ws://{b.address}/ws?token={players[0].token}") as second:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with asyncio.timeout(5):
                    while True:  # the first hand may have been dealt already
                        await first_socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
            await second.send(json.dumps({"type": "ping", "nonce": "still-here"}))
            while (answer := json.loads(await second.recv()))["type"] != "pong":
                pass
            assert answer == {"v": 1, "type": "pong", "nonce": "still-here"}

        tasks = [asyncio.create_task(_play(p, b.address, stop)) for p in players]
        try:
            first = f"{table_id}-1"
            await _until(lambda: all(first in p.ended for p in players), 40, "the first hand")

            def running() -> str | None:
                """A later hand in play that has gone some way (seen from B's side)."""
                watcher = players[2]
                return next((
                    h for h, n in watcher.seen.items()
                    if h != first and h not in watcher.ended and n >= 10
                ), None)

            # kill the owner in the middle of a hand
            await _until(running, 30, "a second hand to get going")
            second = running() or ""
            a.process.send_signal(signal.SIGKILL)
            a.process.wait(5)
            killed = time.monotonic()

            async def served_by_b() -> bool:
                """B holds the table's lease, and lists the table as its own."""
                owner = await redis.get(Keys(prefix).lease(table_id))
                summary = await redis.hget(Keys(prefix).directory, table_id)
                return (owner or "").startswith("b|") and json.loads(summary or "{}").get(
                    "node"
                ) == "b"

            while not await served_by_b():
                assert time.monotonic() - killed < TAKEOVER_SECONDS, (
                    f"B did not take the table over in {TAKEOVER_SECONDS}s:\n"
                    + b.log.read_text()
                )
                await asyncio.sleep(0.1)
            takeover = time.monotonic() - killed
            await _until(lambda: all(second in p.ended for p in players), 40,
                         f"hand {second} to finish on B")
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    assert takeover < TAKEOVER_SECONDS
    # B restored the hand in play from its journal (not a fresh deal)
    assert f"took over table {table_id} (token 2, hand {second} at action" in b.log.read_text()
    assert players[0].reconnects >= 1 and players[1].reconnects >= 1  # they were on A
    # every seat saw the same end of each hand
    hands = sorted(set().union(*(p.ended for p in players)))
    assert first in hands and second in hands
    for hand_id in (first, second):
        assert len({json.dumps(p.ended[hand_id], sort_keys=True) for p in players}) == 1
    await _check_money(database, [p.name for p in players], hands)
    print(f"\ntakeover after SIGKILL: {takeover:.2f}s; reconnects: "
          f"{[p.reconnects for p in players]}")


async def _until_present(redis: Redis, prefix: str, player: Player, node: str) -> None:
    """Wait until presence says the player's socket is on `node`."""
    account = await _account_id(player)
    async with asyncio.timeout(5):
        while await redis.get(Keys(prefix).online(account)) != node:
            await asyncio.sleep(0.02)


async def _account_id(player: Player) -> int:
    async with httpx.AsyncClient(base_url=f"http://{player.node}") as http:
        return int((await http.get("/me", headers=player.headers)).json()["id"])


async def _check_money(database: str, names: list[str], hands: list[str]) -> None:
    """Every balance equals its ledger; each hand was settled once, for all four seats."""
    engine = create_async_engine(async_url(database))
    try:
        # a hand ends for the players just before its silver is settled
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            async with engine.connect() as conn:
                done = (await conn.execute(text(
                    "SELECT COUNT(DISTINCT hand_id) FROM ledger WHERE hand_id IN :hands"
                ).bindparams(bindparam("hands", expanding=True)), {"hands": hands})).scalar()
            if done == len(hands):
                break
            await asyncio.sleep(0.1)
        async with engine.connect() as conn:
            rows = (await conn.execute(text(
                "SELECT a.username, a.balance, COALESCE(SUM(l.delta), 0) "
                "FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id "
                "GROUP BY a.id, a.username, a.balance"
            ))).all()
            assert {r[0] for r in rows} >= set(names)
            for username, balance, total in rows:
                assert balance == total, f"{username}: balance {balance} != ledger {total}"
            for hand_id in hands:
                settled = (await conn.execute(text(
                    "SELECT account_id, COUNT(*) FROM ledger "
                    "WHERE hand_id = :h AND idempotency_key LIKE 'hand:%' GROUP BY account_id"
                ), {"h": hand_id})).all()
                assert len(settled) == 4 and all(n == 1 for _, n in settled), (hand_id, settled)
                records = (await conn.execute(text(
                    "SELECT voided FROM hand_records WHERE id = :h"
                ), {"h": hand_id})).all()
                assert len(records) == 1 and not records[0][0]
    finally:
        await engine.dispose()
