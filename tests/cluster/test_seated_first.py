"""Wherever a player's socket lands and whichever reaches the table's owner first, the
socket or the sit, the first messages of the table it gets are ``seated`` and then
``table_state``; events, prompts and snapshots come only after them (docs/protocol.md,
"Connecting"). The same holds for a new socket opened during a hand, with no ``resume``.

Two server processes; each table is opened on A, its owner. Of its four players one opens
its socket on A and then sits, one opens it on B and then sits, one sits and then opens
it on A, and the last sits (which deals the first hand at once) and then opens it on B.
With the hand in play each then closes its socket and opens a new one, on the other node
or on the same. Repeated over `RUNS` tables: before the fix, a socket opened on B after
its sit got the hand's events and prompts and neither ``seated`` nor ``table_state``
until it sent ``resume`` (every run here; 19 of 20 in the report that found it), and a
new socket opened on B during a hand got events and no ``seated`` at all.
"""

from __future__ import annotations

import asyncio
import json

import httpx
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection

from app.cluster.keys import Keys
from tests.cluster.processes import Node, Player, register
from tests.wsclient import open_socket

RUNS = 12
STREAM = frozenset({"event", "prompt", "snapshot"})  # what must wait for seated
FIRST_SECONDS = 30.0  # a loaded machine
# short turns: a new socket on the owner gets the next event, at the latest when the
# prompt nobody answers times out
TIMERS = {"discard": 1, "claim": 1, "decide": 1, "ready": 1}


async def _first_of_table(ws: ClientConnection, table_id: str) -> list[str]:
    """The types of the table's messages the socket gets, up to the first event, prompt or
    snapshot (included)."""
    kinds: list[str] = []
    try:
        async with asyncio.timeout(FIRST_SECONDS):
            while True:
                message = json.loads(await ws.recv())
                if message.get("table_id") != table_id:
                    continue
                kinds.append(message["type"])
                if message["type"] in STREAM:
                    return kinds
    except TimeoutError:
        raise AssertionError(f"nothing of the hand came in {FIRST_SECONDS} s: {kinds}") from None


async def _account(node: Node, player: Player) -> int:
    async with httpx.AsyncClient(base_url=f"http://{node.address}") as http:
        return int((await http.get("/me", headers=player.headers)).json()["id"])


async def _present(redis: Redis, keys: Keys, account: int, node: Node) -> None:
    """Wait until presence names `node` for the account (its socket is registered)."""
    async with asyncio.timeout(10):
        while await redis.get(keys.online(account)) != node.name:
            await asyncio.sleep(0.02)


async def _sit(node: Node, player: Player, table_id: str) -> None:
    async with httpx.AsyncClient(base_url=f"http://{node.address}", timeout=30) as http:
        sat = await http.post(f"/tables/{table_id}/sit", json={}, headers=player.headers)
    assert sat.status_code == 200, sat.text


async def _one_table(run: int, a: Node, b: Node, redis: Redis, keys: Keys) -> list[str]:
    """One table's four players in the four orders, then a new socket each during the
    hand: the cases whose first messages were not seated then table_state."""
    failed: list[str] = []
    async with httpx.AsyncClient(base_url=f"http://{a.address}", timeout=30) as http:
        players = [await register(http, f"s{run}p{i}", a.address) for i in range(4)]
        created = await http.post("/tables", json={"variant": "lishui", "stake": 1,
                                                   "timers": TIMERS},
                                  headers=players[0].headers)
        assert created.status_code == 201, created.text
        table_id = str(created.json()["id"])  # opened on A: A owns it
    sockets: list[ClientConnection] = []
    try:
        # socket first: registered on its node before the sit reaches the owner
        for player, node in ((players[0], a), (players[1], b)):
            sockets.append(await open_socket(node.address, player.token))
            await _present(redis, keys, await _account(node, player), node)
            await _sit(node, player, table_id)
        # sit first: the sit is answered (the owner seated the player), then the socket
        for player, node in ((players[2], a), (players[3], b)):
            await _sit(node, player, table_id)
            sockets.append(await open_socket(node.address, player.token))
        cases = ["socket on A, then sit", "socket on B, then sit",
                 "sit, then socket on A", "sit, then socket on B"]
        got = await asyncio.gather(*(_first_of_table(ws, table_id) for ws in sockets))
        failed += [f"{case}: {kinds}" for case, kinds in zip(cases, got)
                   if kinds[:2] != ["seated", "table_state"]]

        # the hand is in play: a new socket each, on the other node or the same
        moves = [(a, b), (b, a), (a, a), (b, b)]
        for ws in sockets:
            await ws.close()
        sockets = [await open_socket(to.address, p.token) for p, (_, to) in zip(players, moves)]
        got = await asyncio.gather(*(_first_of_table(ws, table_id) for ws in sockets))
        failed += [f"new socket {frm.name} -> {to.name}: {kinds}"
                   for (frm, to), kinds in zip(moves, got)
                   if kinds[:2] != ["seated", "table_state"]]
    finally:
        for ws in sockets:
            await ws.close()
    return failed


async def test_seated_and_table_state_come_first_on_either_node(
    nodes: tuple[Node, Node], redis: Redis, prefix: str
) -> None:
    a, b = nodes
    keys = Keys(prefix)
    # the runs' tables at once: each waits mostly on its prompts' timers
    results = await asyncio.gather(*(_one_table(run, a, b, redis, keys) for run in range(RUNS)))
    failed = [f"run {run}: {case}" for run, cases in enumerate(results) for case in cases]
    assert not failed, "\n".join(failed)
