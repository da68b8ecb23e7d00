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
import signal
import time

import httpx
import pytest
import websockets
from redis.asyncio import Redis

from app.cluster.keys import Keys
from tests.cluster.processes import Node, Player, open_table, play, register
from tests.outage import check_hands_paid
from tests.waits import until
from tests.wsclient import open_socket, table_socket

TAKEOVER_SECONDS = 5.0


async def test_two_nodes_survive_the_owner_being_killed(
    nodes: tuple[Node, Node], cluster_database: str, redis: Redis, prefix: str
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
            await register(http_a if home is a else http_b, name, home.address)
            for name, home in zip(names, homes)
        ]
        table_id = await open_table(http_a, players[0])
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
        first_socket = await open_socket(a.address, players[0].token)
        await _until_present(redis, prefix, players[0], "a")
        async with table_socket(b.address, players[0].token) as second:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with asyncio.timeout(5):
                    while True:  # the first hand may have been dealt already
                        await first_socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
            await second.send(json.dumps({"type": "ping", "nonce": "still-here"}))
            while (answer := json.loads(await second.recv()))["type"] != "pong":
                pass
            assert answer == {"v": 2, "type": "pong", "nonce": "still-here"}

        tasks = [asyncio.create_task(play(p, b.address, stop)) for p in players]
        try:
            first = f"{table_id}-1"
            await until(lambda: all(first in p.ended for p in players), 40, "the first hand")

            def running() -> str | None:
                """A later hand in play that has gone some way (seen from B's side)."""
                watcher = players[2]
                return next((
                    h for h, n in watcher.seen.items()
                    if h != first and h not in watcher.ended and n >= 10
                ), None)

            # kill the owner in the middle of a hand
            await until(running, 30, "a second hand to get going")
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
            await until(lambda: all(second in p.ended for p in players), 40,
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
    nets = {h: list(e["net"]) for p in players for h, e in p.ended.items()}
    await check_hands_paid(cluster_database, hands, 1, nets)
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
