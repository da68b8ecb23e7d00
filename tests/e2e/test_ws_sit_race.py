"""Sitting right after connecting, under REST load: three players sit at a table; the fourth
opens its socket, says hello and at once sits down, with no wait for any answer. Whatever
the order in which the server handles the hello, the sit and the deal, the fourth seat gets
`seated` and `table_state` before any event of the hand, then every event of the hand from
`hand_started` on, in seq order, with its own dealt tiles (and its prompt when it deals).

Before the fix, some fourth sockets never got the hand at all (the deal went out before the
socket was registered) and some got its events before `seated` (the `seated` message waited
for a database read the events did not)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from app.loadtest.seed import seed_accounts
from app.settings import Settings
from tests.contract import check_server_message
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

TABLES = 50  # at once, each round
ROUNDS = 3
TIMERS = {"discard": 60, "claim": 60, "decide": 60, "ready": 1}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Settings]]:
    settings = sqlite_settings(tmp_path / "race.db", ws_connections_per_address=10_000)
    with live_server(settings) as (port, app):
        yield f"127.0.0.1:{port}", app.state.settings


async def _players(settings: Settings, count: int) -> list[dict[str, str]]:
    """`count` accounts with the signup grant, written as the load test writes its own
    (what is tested here is sitting, not signing up)."""
    names = [f"racer{i}" for i in range(count)]
    return [{"Authorization": f"Bearer {token}", "token": token}
            for token in await seed_accounts(settings, names)]


async def _sit(http: httpx.AsyncClient, table_id: str, player: dict[str, str]) -> None:
    headers = {"Authorization": player["Authorization"]}
    sat = await http.post(f"/tables/{table_id}/sit", json={}, headers=headers)
    assert sat.status_code == 200, sat.text


async def _until_hand(ws: ClientConnection) -> list[dict[str, Any]]:
    """Everything the socket gets up to its first prompt or the dealt tiles of all four
    seats, whichever comes later: enough to see the start of the hand."""
    got: list[dict[str, Any]] = []
    dealt = 0
    async with asyncio.timeout(20):
        while dealt < 4:
            message = json.loads(await ws.recv())
            check_server_message(message)  # tests/e2e/conftest.py asserts none failed
            got.append(message)
            if message["type"] == "event" and message["event"]["kind"] == "dealt":
                dealt += 1
    return got


async def _race(
    server: str, http: httpx.AsyncClient, players: list[dict[str, str]]
) -> list[dict[str, Any]]:
    created = await http.post("/tables", json={"variant": "lishui", "stake": 1,
                                               "timers": TIMERS},
                              headers={"Authorization": players[0]["Authorization"]})
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    sockets = await asyncio.gather(*(open_socket(server, p["token"]) for p in players[:3]))
    await asyncio.gather(*(_sit(http, table_id, p) for p in players[:3]))
    last = await open_socket(server, players[3]["token"])  # no wait for any answer
    try:
        await _sit(http, table_id, players[3])
        return await _until_hand(last)
    finally:
        for ws in [*sockets, last]:
            await ws.close()


def _check(received: list[dict[str, Any]]) -> None:
    kinds = [m["type"] for m in received]
    assert kinds[:2] == ["seated", "table_state"], kinds
    seat = received[0]["seat"]
    events = [m for m in received if m["type"] == "event"]
    assert events[0]["event"]["kind"] == "hand_started", kinds
    seqs = [m["seq"] for m in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs  # every one, in order
    mine = [m["event"] for m in events
            if m["event"]["kind"] == "dealt" and m["event"]["seat"] == seat]
    assert len(mine) == 1 and mine[0]["tiles"], mine


async def _load(server: str, stop: asyncio.Event, headers: dict[str, str]) -> int:
    """REST load beside the races: profile reads, four at a time."""
    reads = 0
    # a loaded machine (the suite runs in three processes) may answer slowly: the test is
    # about order, not speed
    async with httpx.AsyncClient(base_url=f"http://{server}", headers=headers,
                                 timeout=30) as http:
        while not stop.is_set():
            await asyncio.gather(*(http.get("/me") for _ in range(4)))
            reads += 4
    return reads


async def test_a_seat_that_sits_right_after_connecting_gets_every_event_in_order(
    server: tuple[str, Settings],
) -> None:
    address, settings = server
    accounts = await _players(settings, 4 * ROUNDS * TABLES)
    players = [accounts[i:i + 4] for i in range(0, len(accounts), 4)]
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as http:
        stop = asyncio.Event()
        reader = {"Authorization": players[0][0]["Authorization"]}
        load = asyncio.create_task(_load(address, stop, reader))
        try:
            for round_ in range(ROUNDS):
                tables = players[round_ * TABLES:(round_ + 1) * TABLES]
                races = await asyncio.gather(*(_race(address, http, p) for p in tables))
                for received in races:
                    _check(received)
        finally:
            stop.set()
        assert await load > 0
