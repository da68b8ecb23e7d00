"""Quick match end to end over real WebSockets: two server processes sharing PostgreSQL (or
SQLite) and Redis. Four players, two with their socket on node A and two on node B, queue
through their own node; they are seated at one table (formed on one node, `seated` reaching
every socket through the other) and play a hand to its settlement, paid once. Then a fifth
player queues alone: after the wait (QUICK_MATCH_FILL_SECONDS) house bots fill the table and
a hand is played with them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
import websockets
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection

from app.cluster.keys import Keys
from app.store.db import Database
from tests.api.helpers import fund_house
from tests.cluster.processes import Node, Player, _handle, register
from tests.outage import check_hands_paid
from tests.waits import until
from tests.wsclient import open_socket

FILL_SECONDS = 4  # the bots' wait: long enough for four players to queue first


@pytest.fixture(autouse=True)
def _bots_wait(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The node processes (the `nodes` fixture copies this environment) fill with bots
    after FILL_SECONDS."""
    monkeypatch.setenv("QUICK_MATCH_FILL_SECONDS", str(FILL_SECONDS))
    yield


async def _serve(player: Player, ws: ClientConnection) -> None:
    """Take the seat quick match announces, and answer every prompt with its first legal
    action."""
    answered = asyncio.Event()
    try:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "seated":
                player.table_id = message["table_id"]
                continue
            await _handle(player, ws, message, answered)
    except websockets.ConnectionClosed:
        pass


async def _account_id(http: httpx.AsyncClient, player: Player) -> int:
    return int((await http.get("/me", headers=player.headers)).json()["id"])


async def test_quick_match_across_two_nodes_and_the_bots_after_the_wait(
    nodes: tuple[Node, Node], cluster_database: str, redis: Redis, prefix: str
) -> None:
    a, b = nodes
    keys = Keys(prefix)
    async with (
        asyncio.timeout(150),
        httpx.AsyncClient(base_url=f"http://{a.address}") as http_a,
        httpx.AsyncClient(base_url=f"http://{b.address}") as http_b,
    ):
        http = {a.address: http_a, b.address: http_b}
        homes = (a, b, a, b)
        players = [
            await register(http[home.address], name, home.address)
            for name, home in zip(("ada", "bob", "cyd", "dio"), homes, strict=True)
        ]
        ids = [await _account_id(http_a, p) for p in players]
        sockets = [await open_socket(p.node, p.token) for p in players]
        tasks = [asyncio.create_task(_serve(p, ws)) for p, ws in zip(players, sockets, strict=True)]
        try:
            # every socket is known to the cluster before anyone queues
            async with asyncio.timeout(10):
                while not all(await redis.mget([keys.online(i) for i in ids])):
                    await asyncio.sleep(0.05)
            answers = await asyncio.gather(*(
                http[p.node].post("/quick-match", json={"variant": "lishui", "level": "beginner"},
                                  headers=p.headers)
                for p in players
            ))
            assert [r.status_code for r in answers] == [202] * 4, [r.text for r in answers]
            await until(lambda: all(p.table_id for p in players), 20, "four seats")
            table_id = players[0].table_id
            assert {p.table_id for p in players} == {table_id}
            # one table, its four seats the four players (no bot: they were there first)
            listed = next(t for t in (await http_b.get("/tables", headers=players[1].headers)
                                      ).json() if t["id"] == table_id)
            assert sorted(listed["seats"]) == sorted(ids) and listed["stake"] == 1
            assert not any(seat["bot"] for seat in listed["players"])
            for p in players:
                body = (await http[p.node].get("/quick-match", headers=p.headers)).json()
                assert (body["state"], body["table_id"]) == ("seated", table_id)

            first = f"{table_id}-1"
            await until(lambda: all(first in p.ended for p in players), 60, "the first hand")
            assert len({json.dumps(p.ended[first], sort_keys=True) for p in players}) == 1
            await check_hands_paid(cluster_database, [first], 1,
                                   {first: list(players[0].ended[first]["net"])})

            # a fifth player alone: the bots come after the wait
            db = Database.connect(cluster_database)
            try:
                await fund_house(db)
            finally:
                await db.close()
            eve = await register(http_b, "eve", b.address)
            eve_id = await _account_id(http_b, eve)
            eve_socket = await open_socket(b.address, eve.token)
            tasks.append(asyncio.create_task(_serve(eve, eve_socket)))
            sockets.append(eve_socket)
            async with asyncio.timeout(10):
                while not await redis.get(keys.online(eve_id)):
                    await asyncio.sleep(0.05)
            queued = await http_b.post(
                "/quick-match", json={"variant": "wenzhou", "level": "beginner"},
                headers=eve.headers,
            )
            assert queued.status_code == 202, queued.text
            body = queued.json()
            assert (body["position"], body["waiting"]) == (1, 1)
            assert 0 < body["bots_in_seconds"] <= FILL_SECONDS
            await until(lambda: eve.table_id, FILL_SECONDS + 20, "the bots' table")
            table = next(t for t in (await http_a.get("/tables", headers=eve.headers)).json()
                         if t["id"] == eve.table_id)
            assert table["variant"] == "wenzhou" and eve_id in table["seats"]
            assert [seat["bot"] for seat in table["players"]].count(True) == 3
            hand = f"{eve.table_id}-1"
            await until(lambda: hand in eve.ended, 60, "a hand with the bots")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for ws in sockets:
                await ws.close()
