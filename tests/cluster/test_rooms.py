"""A private room in a cluster: its table lives on the node that opened it; the room stays
out of every node's lobby, a player joins by code through another node, the `room`
messages reach a socket on that node, and a dissolve vote asked and answered through
different nodes dissolves the table where it lives (the hand in play voided)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import NoReturn

import httpx
import pytest

from app.protocol.rooms import RoomMessage
from app.store.db import Database
from app.tables.errors import UNAVAILABLE, RemoteRefused
from app.tables.registry import TableRegistry
from tests.api.helpers import fund_house, login, register
from tests.cluster.test_lobby import Node, nodes  # noqa: F401  (the fixture)
from tests.sinks import LONG, Sink


async def _headers(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    await register(http, name)
    return {"Authorization": f"Bearer {(await login(http, name))['access_token']}"}


async def _until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def _rooms(socket: Sink) -> list[RoomMessage]:
    return [m for m in socket.messages if isinstance(m, RoomMessage)]


async def test_a_room_across_two_nodes_is_joined_and_dissolved_by_vote(
    nodes: tuple[Node, Node], db: Database  # noqa: F811
) -> None:
    await fund_house(db)
    (app_a, a), (app_b, b) = nodes
    ann, bob = await _headers(a, "ann"), await _headers(b, "bob")
    made = await a.post("/rooms", json={
        "variant": "lishui", "stake": 1, "timers": LONG, "length": {"count": 4},
    }, headers=ann)
    assert made.status_code == 201, made.text
    code, table_id = made.json()["code"], made.json()["table_id"]
    registry_a: TableRegistry = app_a.state.tables
    registry_b: TableRegistry = app_b.state.tables
    assert registry_a.get(table_id) is not None and registry_b.get(table_id) is None

    # not listed on either node; bob (on B) joins by code and his socket there is told
    for http, who in ((a, ann), (b, bob)):
        assert table_id not in [t["id"] for t in (await http.get("/tables", headers=who)).json()]
    ann_id = (await a.get("/me", headers=ann)).json()["id"]
    bob_id = (await b.get("/me", headers=bob)).json()["id"]
    bob_socket = Sink()
    registry_b.connections.connect(bob_id, bob_socket)
    registry_a.connections.connect(ann_id, Sink())
    assert (await a.post(f"/rooms/{code}/join", headers=ann)).json()["seat"] == 0
    joined = await b.post(f"/rooms/{code}/join", headers=bob)
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == 1 and joined.json()["room"]["seats"][:2] == [ann_id, bob_id]
    filled = await a.post(f"/tables/{table_id}/fill-bots", headers=ann)
    assert filled.status_code == 200, filled.text
    live = registry_a.get(table_id)
    assert live is not None
    await _until(lambda: live.table.hand is not None)  # the first hand is dealt

    # bob asks through B, ann agrees through A: dissolved on A, bob told on B
    asked = await b.post(f"/rooms/{code}/dissolve", headers=bob)
    assert asked.status_code == 200, asked.text
    assert sorted(asked.json()["vote"]["voters"]) == sorted([ann_id, bob_id])  # no bot votes
    await _until(lambda: any(m.room.vote is not None for m in _rooms(bob_socket)))
    agreed = await a.post(f"/rooms/{code}/vote", json={"agree": True}, headers=ann)
    assert agreed.status_code == 200, agreed.text
    assert agreed.json()["status"] == "dissolved"
    await _until(lambda: registry_a.get(table_id) is None)
    await _until(lambda: any(m.room.status == "dissolved" for m in _rooms(bob_socket)))
    final = (await b.get(f"/rooms/{code}", headers=bob)).json()
    assert final["status"] == "dissolved"
    assert [h["outcome"] for h in final["scoreboard"]["hands"]] == ["voided"]
    for http, who in ((a, ann), (b, bob)):  # no silver moved
        assert (await http.get("/me", headers=who)).json()["balance"] == 10_000


async def test_a_room_whose_table_is_moving_answers_table_unavailable(
    nodes: tuple[Node, Node], db: Database, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """While the room's table fails over (its node gone, no other has taken it yet), the room
    API answers 503 `table_unavailable` with Retry-After, as documented, and not 500."""
    (_, a), (app_b, b) = nodes
    ann = await _headers(a, "ann")
    made = await a.post("/rooms", json={
        "variant": "lishui", "stake": 1, "timers": LONG, "length": {"count": 4},
    }, headers=ann)
    code = made.json()["code"]
    assert (await b.get(f"/rooms/{code}", headers=ann)).status_code == 200

    async def moving(*_: object, **__: object) -> NoReturn:
        raise RemoteRefused(UNAVAILABLE, "the table is moving to another server; try again")

    registry_b: TableRegistry = app_b.state.tables
    monkeypatch.setattr(registry_b.network.tables, "admin", moving)
    for path in (f"/rooms/{code}", "/me/rooms"):
        answer = await b.get(path, headers=ann)
        assert answer.status_code == 503, (path, answer.text)
        assert answer.json()["error"]["code"] == "table_unavailable"
        assert answer.headers["Retry-After"] == "2"
    dissolve = await b.post(f"/rooms/{code}/dissolve", headers=ann)
    assert (dissolve.status_code, dissolve.json()["error"]["code"]) == (503, "table_unavailable")
