"""The lobby of a cluster: every node lists every table, and sitting, leaving and calling
bots at a table another node owns is decided by the owner."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import login, register


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
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
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
