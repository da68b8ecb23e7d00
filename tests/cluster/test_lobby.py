"""The lobby of a cluster: every node lists every table, and sitting, leaving and calling
bots at a table another node owns is decided by the owner."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from app.store.db import Database
from tests.api.helpers import admin, fund_house, login, register


@pytest.fixture
async def two_nodes(
    settings: Settings, redis_url: str, prefix: str, redis: object
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    async with AsyncExitStack() as stack:
        clients = []
        for name in ("a", "b"):
            app = create_app(settings.model_copy(
                update={"redis_url": redis_url, "redis_prefix": prefix, "node_id": name}
            ))
            await stack.enter_async_context(app.router.lifespan_context(app))
            transport = httpx.ASGITransport(app=app)
            clients.append(await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url=f"http://{name}")
            ))
        yield clients[0], clients[1]


async def _headers(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    await register(http, name)
    return {"Authorization": f"Bearer {(await login(http, name))['access_token']}"}


async def test_sit_leave_and_bots_at_a_table_of_another_node(
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient], db: Database
) -> None:
    await fund_house(db)
    a, b = two_nodes
    ann, bob = await _headers(a, "ann"), await _headers(b, "bob")
    created = await a.post("/tables", json={"variant": "huzhou", "stake": 10}, headers=ann)
    assert created.status_code == 201
    table_id = created.json()["id"]
    listed = (await b.get("/tables", headers=bob)).json()
    assert [(t["id"], t["variant"], t["stake"], t["seats_taken"]) for t in listed] == [
        (table_id, "huzhou", 10, 0)
    ]

    sat = await b.post(f"/tables/{table_id}/sit", json={"seat": 2}, headers=bob)
    assert sat.status_code == 200, sat.text
    assert sat.json()["seat"] == 2 and sat.json()["table"]["seats_taken"] == 1
    again = await b.post(f"/tables/{table_id}/sit", headers=bob)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_seated"
    poor = await b.post(f"/tables/{table_id}/sit", json={"seat": 2}, headers=ann)
    assert poor.json()["error"]["code"] == "seat_taken"
    # a stake of 1000 needs 100,000 silver: refused on the calling node already
    rich = await a.post("/tables", json={"variant": "huzhou", "stake": 1000}, headers=ann)
    refused = await b.post(f"/tables/{rich.json()['id']}/sit", headers=bob)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_balance"
    missing = await b.post("/tables/nosuchtable/sit", headers=bob)
    assert missing.status_code == 404

    left = await b.post(f"/tables/{table_id}/leave", headers=bob)
    assert left.status_code == 200 and left.json()["seats_taken"] == 0
    not_seated = await b.post(f"/tables/{table_id}/leave", headers=bob)
    assert not_seated.json()["error"]["code"] == "wrong_table"

    assert (await b.post(f"/tables/{table_id}/sit", headers=bob)).status_code == 200
    stranger = await b.post(f"/tables/{table_id}/fill-bots", headers=ann)
    assert stranger.json()["error"]["code"] == "wrong_table"
    filled = await b.post(f"/tables/{table_id}/fill-bots", headers=bob)
    assert filled.status_code == 200, filled.text
    seats = filled.json()["seats"]
    assert None not in seats and len(set(seats)) == 4
    # A (the owner) and B list the same full table
    for http, headers in ((a, ann), (b, bob)):
        table = next(t for t in (await http.get("/tables", headers=headers)).json()
                     if t["id"] == table_id)
        assert table["seats"] == seats


async def test_every_table_endpoint_answers_alike_from_every_node(
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient], db: Database
) -> None:
    """A table's players, read through the node that does not own it, are the owner's."""
    a, b = two_nodes
    ann, bob = await _headers(a, "ann"), await _headers(b, "bob")
    table_id = (await a.post("/tables", json={"variant": "wenzhou", "stake": 2},
                             headers=ann)).json()["id"]
    assert (await a.post(f"/tables/{table_id}/sit", json={"seat": 1}, headers=ann)).status_code \
        == 200
    answers = [await http.get(f"/tables/{table_id}/players", headers=bob) for http in (a, b)]
    assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
    assert answers[0].json() == answers[1].json()
    body = answers[1].json()
    assert (body["table_id"], body["variant"], body["stake"]) == (table_id, "wenzhou", 2)
    assert [s["name"] for s in body["seats"]] == [None, "ann", None, None]
    assert body["seats"][1]["balance"] == 10000 and body["seats"][1]["bot"] is False
    missing = await b.get("/tables/nosuchtable/players", headers=bob)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_limits_and_the_supply_hold_across_nodes(
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient], db: Database
) -> None:
    """Tables opened on either node count toward one account's limit; bots called through
    either node come from the one house and leave the supply as it was."""
    a, b = two_nodes
    _, boss = await admin(a, db)
    await fund_house(db)
    ann, bob, cat = await _headers(a, "ann"), await _headers(b, "bob"), await _headers(a, "cat")
    ann_id = (await a.get("/me", headers=ann)).json()["id"]
    before = (await b.get("/admin/silver", headers=boss)).json()
    opened = [
        (await http.post("/tables", json={"variant": "lishui", "stake": 1}, headers=ann)).json()
        for http in (a, b, a)
    ]
    # a player at each table (none of them abandoned); ann calls bots through node B to the
    # table node A owns
    for http, headers, table in ((b, ann, opened[0]), (a, bob, opened[1]), (b, cat, opened[2])):
        sat = await http.post(f"/tables/{table['id']}/sit", headers=headers)
        assert sat.status_code == 200, sat.text
    filled = await b.post(f"/tables/{opened[0]['id']}/fill-bots", headers=ann)
    assert filled.status_code == 200, filled.text
    assert filled.json()["seats_taken"] == 4
    for http in (a, b):
        refused = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                  headers=ann)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "too_many_tables"
    after = (await a.get("/admin/silver", headers=boss)).json()
    assert after["total"] == before["total"] and after["unexplained"] == 0
    assert after["bots"] == 3 * 100 and after["bot_accounts"] == 3

    # ann gets up (an escape if the hand was dealt): only bots sit at her table on node A,
    # so opening another through node B closes it there
    assert (await b.post(f"/tables/{opened[0]['id']}/leave", headers=ann)).status_code == 200
    async with asyncio.timeout(10):
        while any(t["id"] == opened[0]["id"] and ann_id in t["seats"]
                  for t in (await b.get("/tables", headers=ann)).json()):
            await asyncio.sleep(0.05)
    again = await b.post("/tables", json={"variant": "lishui", "stake": 1}, headers=ann)
    assert again.status_code == 201, again.text
    listed = {t["id"] for t in (await a.get("/tables", headers=ann)).json()}
    assert listed == {opened[1]["id"], opened[2]["id"], again.json()["id"]}
    final = (await b.get("/admin/silver", headers=boss)).json()
    assert final["total"] == before["total"] and final["unexplained"] == 0
