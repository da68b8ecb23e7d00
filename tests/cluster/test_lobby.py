"""The lobby of a cluster: every node lists every table, and sitting, leaving and calling
bots at a table another node owns is decided by the owner. An account sits at one table
of the whole cluster at a time, and a ban reaches its socket and its seat on any node."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import func, select, update

from app.cluster.claims import Claims
from app.cluster.keys import Keys
from app.main import create_app
from app.settings import Settings
from app.store.db import Database
from app.store.house import BOT_PREFIX
from app.store.models import Account, LedgerEntry
from app.tables.bans import CLOSE_BANNED
from app.tables.registry import TableRegistry
from tests.api.helpers import admin, fund_house, login, make_admin, register
from tests.sinks import Sink

Node = tuple[FastAPI, httpx.AsyncClient]


@pytest.fixture
async def nodes(
    settings: Settings, redis_url: str, prefix: str, redis: object
) -> AsyncIterator[tuple[Node, Node]]:
    async with AsyncExitStack() as stack:
        made = []
        for name in ("a", "b"):
            app = create_app(settings.model_copy(
                update={"redis_url": redis_url, "redis_prefix": prefix, "node_id": name}
            ))
            await stack.enter_async_context(app.router.lifespan_context(app))
            transport = httpx.ASGITransport(app=app)
            made.append((app, await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url=f"http://{name}")
            )))
        yield made[0], made[1]


@pytest.fixture
def two_nodes(nodes: tuple[Node, Node]) -> tuple[httpx.AsyncClient, httpx.AsyncClient]:
    return nodes[0][1], nodes[1][1]


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
    # a stake of 1000 needs 100,000 silver: refused on the calling node already (ann, who
    # opens it, has won that much; bob has not)
    refused = await a.post("/tables", json={"variant": "huzhou", "stake": 1000}, headers=ann)
    assert refused.json()["error"]["code"] == "insufficient_balance"  # nothing opened
    async with db.sessions() as s, s.begin():
        await s.execute(update(Account).where(Account.username == "ann").values(balance=100000))
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


async def _until(condition: Callable[[], object], seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def _seats(http: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, list[int | None]]:
    return {t["id"]: t["seats"] for t in (await http.get("/tables", headers=headers)).json()}


async def test_one_table_at_a_time_across_the_cluster(
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient], redis: Redis, prefix: str
) -> None:
    a, b = two_nodes
    ann = await _headers(a, "ann")
    on_a = (await a.post("/tables", json={"variant": "lishui", "stake": 10}, headers=ann)).json()
    on_b = (await b.post("/tables", json={"variant": "lishui", "stake": 10}, headers=ann)).json()
    # the same account sits at both at once, each request through the other table's node
    answers = await asyncio.gather(
        b.post(f"/tables/{on_a['id']}/sit", headers=ann),
        a.post(f"/tables/{on_b['id']}/sit", headers=ann),
    )
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 409], [r.text for r in answers]
    won = on_a["id"] if answers[0].status_code == 200 else on_b["id"]
    lost = on_b["id"] if won == on_a["id"] else on_a["id"]
    refused = next(r for r in answers if r.status_code == 409).json()["error"]
    assert refused["code"] == "seated_elsewhere" and refused["details"] == {"table_id": won}
    assert (await redis.get(Keys(prefix).seated(1)) or "").startswith(f"{won}|")
    seats = await _seats(a, ann)
    assert seats[won].count(1) == 1 and 1 not in seats[lost]
    again = await a.post(f"/tables/{lost}/sit", headers=ann)
    assert again.status_code == 409 and again.json()["error"]["details"] == {"table_id": won}

    # up again (through the node that does not own the table): the claim is released
    assert (await a.post(f"/tables/{won}/leave", headers=ann)).status_code == 200
    for _ in range(100):  # released by the owner's writer
        if await redis.get(Keys(prefix).seated(1)) is None:
            break
        await asyncio.sleep(0.02)
    assert await redis.get(Keys(prefix).seated(1)) is None
    assert (await b.post(f"/tables/{lost}/sit", headers=ann)).status_code == 200


async def test_a_stale_claim_is_taken_over(
    two_nodes: tuple[httpx.AsyncClient, httpx.AsyncClient], redis: Redis, prefix: str
) -> None:
    """A claim whose table does not list the account (a release lost with its node) does
    not lock the account out once it is older than the grace."""
    a, _ = two_nodes
    ann = await _headers(a, "ann")
    table = (await a.post("/tables", json={"variant": "lishui", "stake": 10}, headers=ann)).json()
    await redis.set(Keys(prefix).seated(1), "gone|1000")  # long ago, at no listed table
    assert (await a.post(f"/tables/{table['id']}/sit", headers=ann)).status_code == 200
    assert (await redis.get(Keys(prefix).seated(1)) or "").startswith(f"{table['id']}|")


async def test_which_accounts_sit_anywhere_is_read_from_their_claims_alone(
    redis: Redis, prefix: str
) -> None:
    """A bot fill asks which of a few bots sit anywhere without reading every table: an
    account sits while it holds a claim, and a claim older than the grace counts only while
    its table's directory line lists the account (what a sit would not take over)."""
    keys = Keys(prefix)
    claims = Claims(redis, keys)
    assert await claims.claim(1, "t1") == "t1"
    await redis.set(keys.seated(2), "gone|1000")  # long ago, at no listed table
    await redis.set(keys.seated(3), "t3|1000")  # long ago, at a table that lists it
    await redis.hset(keys.directory, "t3", json.dumps({"seats": [3, None, None, None]}))
    await redis.set(keys.seated(5), "t3|1000")  # long ago, at a table without it
    assert await claims.seated([1, 2, 3, 4, 5]) == {1, 3}
    assert await claims.seated([4]) == set() and await claims.seated([]) == set()
    assert await claims.claim(2, "t2") == "t2"  # as a sit would: the stale claim is taken
    assert await claims.seated([2]) == {2}


async def test_a_ban_reaches_a_socket_and_a_seat_on_another_node(
    nodes: tuple[Node, Node], db: Database
) -> None:
    (_, a), (app_b, b) = nodes
    boss, ann = await _headers(a, "boss"), await _headers(a, "ann")
    await make_admin(db, 1)
    table = (await b.post("/tables", json={"variant": "lishui", "stake": 10}, headers=ann)).json()
    registry_b: TableRegistry = app_b.state.tables
    socket = Sink()
    registry_b.connections.connect(2, socket)  # ann's socket and table are on B
    assert (await b.post(f"/tables/{table['id']}/sit", headers=ann)).status_code == 200

    banned = await a.post("/admin/accounts/2/ban", headers=boss)  # asked on A
    assert banned.status_code == 200, banned.text
    await _until(lambda: socket.closed is not None)
    assert socket.closed == CLOSE_BANNED
    live = registry_b.get(table["id"])
    assert live is not None
    await _until(lambda: live.accounts() == [None] * 4)
    for _ in range(100):
        if (await _seats(a, boss))[table["id"]] == [None] * 4:
            break
        await asyncio.sleep(0.02)
    assert (await _seats(a, boss))[table["id"]] == [None] * 4


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
    # three bots, each brought to the table's 100 by the house (read from their funding
    # rows: the table's first hand, played by the bots and ann's 托管, may already be
    # settled, and it moves silver between ann and the bots)
    assert after["bot_accounts"] == 3
    async with db.sessions() as s:
        funded = (await s.execute(
            select(func.sum(LedgerEntry.delta)).join(Account)
            .where(Account.username.startswith(BOT_PREFIX), LedgerEntry.reason == "house_funding")
        )).scalar_one()
    assert funded == 3 * 100

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
