"""Real server processes (uvicorn) on loopback for the cluster's tests, and players that
play over their WebSockets: each answers every prompt with its first legal action and, when
its socket drops, reconnects to a fallback node and resumes."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from app.loadtest.servers import free_port
from tests.wsclient import Pacer, table_socket

Message = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Node:
    name: str
    address: str
    process: subprocess.Popen[bytes]
    log: Path


def start_node(name: str, env: dict[str, str], tmp_path: Path) -> Node:
    port = free_port()
    log = tmp_path / f"node-{name}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "app"],  # the server as deployed (app/ops/serve.py)
        cwd=ROOT,
        env=env | {
            "NODE_ID": name, "HOST": "127.0.0.1", "PORT": str(port), "LOG_LEVEL": "warning",
            "LOG_FORMAT": "text", "MIGRATE_ON_START": "false", "HOUSE_FLOAT": "0",
        },
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    return Node(name, f"127.0.0.1:{port}", process, log)


@contextmanager
def two_nodes(env: dict[str, str], tmp_path: Path) -> Iterator[tuple[Node, Node]]:
    """Nodes a and b, server processes of `env`, up until the block ends."""
    started = [start_node("a", env, tmp_path), start_node("b", env, tmp_path)]
    try:
        for node in started:
            wait_up(node)
        yield started[0], started[1]
    finally:
        stop_all([node.process for node in started])


def stop_all(processes: list[subprocess.Popen[bytes]], grace: float = 15) -> None:
    """SIGTERM to each (a graceful stop), then SIGKILL to any still there after `grace`."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def wait_up(node: Node) -> None:
    wait_answering(f"http://{node.address}/health", node.process, node.log, f"node {node.name}")


def wait_answering(
    url: str, process: subprocess.Popen[bytes], log: Path, what: str, seconds: float = 30
) -> None:
    """Return once `url` answers 200; fail with the process's log if it exits first or
    `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited:\n{log.read_text()}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start:\n{log.read_text()}")


@dataclass
class Player:
    name: str
    token: str
    headers: dict[str, str]
    node: str
    table_id: str = ""
    path: str = "/ws"  # the socket's path: /ws/<table_id> names the table it plays at
    last_seq: int = 0
    ws: ClientConnection | None = None
    ended: dict[str, Message] = field(default_factory=dict)  # hand id -> hand_ended
    seen: dict[str, int] = field(default_factory=dict)  # hand id -> events seen
    over: set[str] = field(default_factory=set)  # hands seen won, drawn or escaped
    got_at: list[float] = field(default_factory=list)  # when each message arrived
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    # its answers stay under the server's 20 messages a second per socket: a dropped answer
    # (rate_limited) would leave the prompt to its timer
    pacer: Pacer = field(default_factory=Pacer)


async def register(http: httpx.AsyncClient, name: str, node: str) -> Player:
    body = {"username": name, "password": "correct horse battery"}
    assert (await http.post("/auth/register", json=body)).status_code == 201
    token = (await http.post("/auth/login", json=body)).json()["access_token"]
    return Player(name, token, {"Authorization": f"Bearer {token}"}, node)


async def open_table(http: httpx.AsyncClient, host: Player) -> str:
    """A 丽水 table at stake 1 with short timers, opened by `host`: its id."""
    created = await http.post(
        "/tables",
        json={"variant": "lishui", "stake": 1,
              "timers": {"discard": 5, "claim": 2, "decide": 2, "ready": 1}},
        headers=host.headers,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def play(player: Player, fallback: str, stop: asyncio.Event) -> None:
    """Answer every prompt with its first legal action; when the socket drops, reconnect
    to `fallback` and resume until the table answers."""
    while not stop.is_set():
        try:
            async with table_socket(player.node, player.token, player.path) as ws:
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
        except (websockets.WebSocketException, OSError):  # closed, or refused while down
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
        elif message["event"]["kind"] in ("won", "exhaustive_draw", "escaped"):
            player.over.add(message["hand_id"])
    elif kind == "snapshot":
        player.last_seq = message["seq"]
    elif kind == "prompt":
        answer = {
            "type": "action", "table_id": player.table_id,
            "seq": max(player.last_seq, message["seq"]), "action": message["legal_actions"][0],
        }
        await player.pacer.wait()
        await ws.send(json.dumps(answer))
