"""Admin table commands in a cluster: an operator may ask any node. Every command reaches
the node owning the table and answers exactly as that node answers for its own table;
the list shows every node's tables; an owner that does not answer is a clear error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from app.cluster import calls as cluster_calls
from app.cluster.keys import Keys
from app.main import create_app
from app.protocol import ErrorMessage
from app.settings import Settings
from app.store.db import Database
from app.tables.registry import LiveTable, TableRegistry
from tests.api.helpers import admin, assert_error, player
from tests.sinks import LONG, Sink


@dataclass
class Node:
    app: FastAPI
    http: httpx.AsyncClient

    @property
    def registry(self) -> TableRegistry:
        registry: TableRegistry = self.app.state.tables
        return registry


@pytest.fixture
async def two_nodes(
    settings: Settings, redis_url: str, prefix: str, redis: object
) -> AsyncIterator[tuple[Node, Node]]:
    async with AsyncExitStack() as stack:
        nodes = []
        for name in ("a", "b"):
            app = create_app(settings.model_copy(
                update={"redis_url": redis_url, "redis_prefix": prefix, "node_id": name,
                        "watch_interval_ms": 60000}  # no takeover behind the test's back
            ))
            await stack.enter_async_context(app.router.lifespan_context(app))
            transport = httpx.ASGITransport(app=app)
            http = await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url=f"http://{name}")
            )
            nodes.append(Node(app, http))
        yield nodes[0], nodes[1]


async def _dealt(live: LiveTable) -> None:
    async with asyncio.timeout(10):
        while live.table.hand is None:
            await asyncio.sleep(0.025)


async def _table_on_a(a: Node, b: Node) -> tuple[LiveTable, list[int]]:
    """A table opened on A, two players sitting through A and two through B, first hand
    dealt."""
    _, host = await player(a.http, "host")
    opened = await a.http.post(
        "/tables", json={"variant": "lishui", "stake": 1, "timers": LONG}, headers=host
    )
    assert opened.status_code == 201, opened.text
    table_id = opened.json()["id"]
    ids = []
    for name, node in (("ann", a), ("bob", b), ("cat", a), ("dan", b)):
        account, headers = await player(node.http, name)
        sat = await node.http.post(f"/tables/{table_id}/sit", headers=headers)
        assert sat.status_code == 200, sat.text
        ids.append(account)
    live = a.registry.get(table_id)
    assert live is not None and b.registry.get(table_id) is None
    await _dealt(live)
    return live, ids


def _same(here: httpx.Response, there: httpx.Response) -> dict[str, Any]:
    assert here.status_code == there.status_code == 200, (here.text, there.text)
    assert here.json() == there.json()
    body: dict[str, Any] = here.json()
    return body


async def test_every_command_reaches_the_owner_from_any_node(
    two_nodes: tuple[Node, Node], db: Database
) -> None:
    a, b = two_nodes
    live, ids = await _table_on_a(a, b)
    table_id = live.table_id
    _, boss = await admin(b.http, db)
    base = f"/admin/tables/{table_id}"

    # a test-mode-free table of B's own, so that each node has one
    _, host = await player(b.http, "bhost")
    own = await b.http.post("/tables", json={"variant": "wenzhou", "stake": 2}, headers=host)
    b_table = own.json()["id"]

    listed = _same(await b.http.get("/admin/tables", headers=boss),
                   await a.http.get("/admin/tables", headers=boss))
    assert sorted(t["id"] for t in listed) == sorted([table_id, b_table])
    mine = next(t for t in listed if t["id"] == table_id)
    assert [s["account_id"] for s in mine["seats"]] == ids
    assert [s["username"] for s in mine["seats"]] == ["ann", "bob", "cat", "dan"]
    assert mine["hand_id"] == live.table.hand_id and mine["paused"] is False

    inspected = _same(await b.http.get(base, headers=boss), await a.http.get(base, headers=boss))
    assert inspected["view"] is not None and inspected["revealed"] is False
    assert all(s["hand"] is None for s in inspected["view"]["seats"])
    reveal = base + "?reveal=true&reason=dispute"
    revealed = _same(await b.http.get(reveal, headers=boss), await a.http.get(reveal, headers=boss))
    assert all(s["hand"] for s in revealed["view"]["seats"])
    assert_error(await b.http.get(base + "?reveal=true", headers=boss), 422, "validation_error")

    # a table that exists nowhere: the same error from both nodes
    for path in ("", "/pause", "/resume", "/dissolve"):
        method = "GET" if path == "" else "POST"
        there = await a.http.request(method, f"/admin/tables/nosuch{path}", headers=boss)
        here = await b.http.request(method, f"/admin/tables/nosuch{path}", headers=boss)
        assert_error(here, 404, "not_found")
        assert here.json() == there.json()
    missing = await b.http.post("/admin/tables/nosuch/kick", json={"seat": 0}, headers=boss)
    assert missing.json() == (
        await a.http.post("/admin/tables/nosuch/kick", json={"seat": 0}, headers=boss)
    ).json()

    paused = await b.http.post(base + "/pause", headers=boss)
    assert paused.status_code == 200 and paused.json()["paused"] is True
    assert live.table.paused  # on A, the owner
    assert [s["username"] for s in paused.json()["seats"]] == ["ann", "bob", "cat", "dan"]
    resumed = await b.http.post(base + "/resume", headers=boss)
    assert resumed.status_code == 200 and resumed.json()["paused"] is False
    assert not live.table.paused

    bob = Sink()
    b.registry.connections.connect(ids[1], bob)  # bob's socket is on B, the table on A
    kicked = await b.http.post(base + "/kick", json={"seat": 1}, headers=boss)
    assert kicked.status_code == 200, kicked.text
    assert kicked.json()["kicked_account_id"] == ids[1]
    async with asyncio.timeout(5):  # told on B
        while not any(isinstance(m, ErrorMessage) and m.code == "kicked" for m in bob.messages):
            await asyncio.sleep(0.02)
    assert kicked.json()["table"]["seats"][1]["account_id"] is None
    assert live.accounts() == [ids[0], None, ids[2], ids[3]]
    empty = await b.http.post(base + "/kick", json={"seat": 1}, headers=boss)
    assert_error(empty, 404, "not_found")

    dissolved = await b.http.post(base + "/dissolve", headers=boss)
    assert dissolved.status_code == 200, dissolved.text
    assert dissolved.json()["table_id"] == table_id
    assert a.registry.get(table_id) is None
    left = (await b.http.get("/admin/tables", headers=boss)).json()
    assert [t["id"] for t in left] == [b_table]


async def test_an_owner_that_does_not_answer_is_a_clear_error(
    two_nodes: tuple[Node, Node],
    db: Database,
    redis: Redis,
    redis_url: str,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = two_nodes
    _, boss = await admin(b.http, db)
    keys = Keys(prefix)
    monkeypatch.setattr(cluster_calls, "ADMIN_CALL_TIMEOUT", 0.3)
    monkeypatch.setattr(cluster_calls, "CALL_TIMEOUT", 0.3)
    _, sitter = await player(b.http, "sitter")
    # a table whose lease names a node that listens but never answers
    await redis.set(keys.lease("stuck"), "ghost|1")
    await redis.hset(keys.directory, "stuck", '{"id": "stuck", "stake": 1}')
    ghost = Redis.from_url(redis_url, decode_responses=True)
    pubsub = ghost.pubsub()
    await pubsub.subscribe(keys.channel("ghost"))
    try:
        paused = await b.http.post("/admin/tables/stuck/pause", headers=boss)
        assert_error(paused, 503, "table_unavailable")
        assert_error(await b.http.get("/admin/tables", headers=boss), 503, "table_unavailable")
        # a player's sit there: the table is there, its node late (not `not_found`)
        sat = await b.http.post("/tables/stuck/sit", json={}, headers=sitter)
        assert_error(sat, 503, "table_unavailable")
    finally:
        await pubsub.unsubscribe()
        await pubsub.aclose()
        await ghost.aclose()
    # listed, but nobody holds its lease (its node died, another takes it over soon)
    await redis.delete(keys.lease("stuck"))
    moving = await a.http.get("/admin/tables/stuck", headers=boss)
    assert_error(moving, 503, "table_unavailable")
    await redis.hdel(keys.directory, "stuck")
    assert (await a.http.get("/admin/tables", headers=boss)).json() == []
