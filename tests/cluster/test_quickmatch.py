"""Quick match in a cluster, two nodes in this process sharing Redis and the database: the
queues live in Redis (app/cluster/matchqueue.py) with the rules of one process's; players
whose sockets are on both nodes, queueing at once through both, are seated at tables where
each player sits once, exactly one node forming each table, and every one of them is told
`seated` on its own node."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from app.api.matcher import Matcher
from app.cluster.keys import Keys
from app.cluster.matchqueue import RedisMatchQueue
from app.main import create_app
from app.protocol import SeatedMessage
from app.settings import Settings
from app.tables.matching import Forming, Waiter, queue_name
from app.tables.registry import TableRegistry
from tests.api.helpers import login, register
from tests.live import UNTHROTTLED
from tests.sinks import Sink
from tests.waits import until

Node = tuple[FastAPI, httpx.AsyncClient]


@pytest.fixture
async def nodes(
    database_url: str, redis_url: str, prefix: str, redis: Redis
) -> AsyncIterator[tuple[Node, Node]]:
    settings = Settings(
        database_url=database_url, jwt_secret="test-secret-" + "x" * 32, argon2_time_cost=1,
        argon2_memory_kib=1024, argon2_parallelism=1, redis_url=redis_url,
        redis_prefix=prefix, quick_match_fill_seconds=3600, quick_match_grace_seconds=3600,
        **UNTHROTTLED,
    )
    async with AsyncExitStack() as stack:
        made = []
        for name in ("a", "b"):
            app = create_app(settings.model_copy(update={"node_id": name}))
            await stack.enter_async_context(app.router.lifespan_context(app))
            transport = httpx.ASGITransport(app=app)
            made.append((app, await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url=f"http://{name}")
            )))
        yield made[0], made[1]


async def test_the_queues_in_redis(redis: Redis, prefix: str) -> None:
    queue = RedisMatchQueue(redis, Keys(prefix))
    lishui, wenzhou = queue_name("lishui", "beginner"), queue_name("wenzhou", "beginner")
    for account in (1, 2, 3):
        standing = await queue.join(account, lishui)
    assert (standing.state, standing.position, standing.waiting) == ("queued", 3, 3)
    sinces = [w.since for w in await queue.look(lishui)]
    assert sinces == sorted(set(sinces))  # strictly in the order they joined
    assert not any(w.present for w in await queue.look(lishui))  # no socket anywhere
    await redis.set(Keys(prefix).online(2), "a")
    assert [w.present for w in await queue.look(lishui)] == [False, True, False]
    assert (await queue.join(1, lishui)).position == 1
    moved = await queue.join(1, wenzhou)
    assert (moved.queue, moved.position, moved.waiting) == (wenzhou, 1, 1)
    assert await queue.counts() == {lishui: 2, wenzhou: 1}

    waiters = await queue.look(lishui)
    assert not await queue.take(lishui, [waiters[0], Waiter(3, 1, 0, True)])
    assert await queue.take(lishui, waiters)
    assert not await queue.take(lishui, waiters)
    assert await queue.counts() == {wenzhou: 1}
    assert (await queue.standing(2)).state == "matching"
    with pytest.raises(Forming):
        await queue.leave(2)
    with pytest.raises(Forming):
        await queue.join(3, wenzhou)
    await queue.join(4, lishui)
    await queue.put_back(lishui, waiters, "no_bots_free")
    assert [w.account for w in await queue.look(lishui)] == [2, 3, 4]
    assert (await queue.standing(3)).reason == "no_bots_free"
    await queue.tell(lishui, await queue.look(lishui), None)
    assert (await queue.standing(3)).reason is None

    taken = (await queue.look(lishui))[:2]
    assert await queue.take(lishui, taken)
    await queue.finish([2, 3], table_id="t1")
    seated = await queue.standing(3)
    assert (seated.state, seated.table_id, seated.queue) == ("seated", "t1", lishui)
    assert 0 < await redis.pttl(Keys(prefix).match_player(3)) <= 300_000
    await queue.remove(lishui, await queue.look(lishui), "disconnected")
    gone = await queue.standing(4)
    assert (gone.state, gone.reason) == ("idle", "disconnected")
    await queue.leave(1)
    assert (await queue.standing(1)).state == "idle"
    assert await queue.counts() == {}
    assert await redis.smembers(Keys(prefix).match_queues) == set()


async def _player(http: httpx.AsyncClient, name: str) -> tuple[int, dict[str, str]]:
    made = await register(http, name)
    return int(made["id"]), {"Authorization": f"Bearer {(await login(http, name))['access_token']}"}


async def test_players_on_two_nodes_queueing_at_once_each_sit_once(
    nodes: tuple[Node, Node], redis: Redis, prefix: str
) -> None:
    (app_a, a), (app_b, b) = nodes
    people = []
    for n in range(8):
        http = a if n % 2 == 0 else b
        people.append((http, *await _player(http, f"player{n}")))
    sinks: dict[int, Sink] = {}
    for http, account, _ in people:
        sinks[account] = Sink()
        app = app_a if http is a else app_b
        registry: TableRegistry = app.state.tables
        registry.connections.connect(account, sinks[account])  # its socket, on its own node
    keys = Keys(prefix)

    async def everyone_online() -> bool:
        return all(await redis.mget([keys.online(a) for _, a, _ in people]))

    async with asyncio.timeout(10):
        while not await everyone_online():
            await asyncio.sleep(0.02)

    # all at once, each through its own node; both nodes' matchers look at once too
    answers = await asyncio.gather(*(
        http.post("/quick-match", json={"variant": "shanghai", "level": "beginner"},
                  headers=headers)
        for http, _, headers in people
    ))
    assert [r.status_code for r in answers] == [202] * 8, [r.text for r in answers]
    matchers: list[Matcher] = [app_a.state.matcher, app_b.state.matcher]
    for _ in range(20):
        await asyncio.gather(*(m.run_once() for m in matchers))

    async def seated() -> dict[int, str]:
        found = {}
        for http, account, headers in people:
            body = (await http.get("/quick-match", headers=headers)).json()
            if body["state"] == "seated":
                found[account] = body["table_id"]
        return found

    async with asyncio.timeout(20):
        while len(where := await seated()) < 8:
            await asyncio.sleep(0.05)
    tables = set(where.values())
    assert len(tables) == 2
    for table_id in tables:
        assert sum(t == table_id for t in where.values()) == 4
    # each table is on one node, and lists its four players once; nobody sits twice
    seats: list[int] = []
    live_tables = [live for app in (app_a, app_b) for live in app.state.tables.all()]
    for live in live_tables:
        seats += [x for x in live.accounts() if x is not None]
    assert sorted(seats) == sorted(where)
    assert {live.table_id for live in live_tables} == tables  # no other table was made
    # every player is told on its own node, whichever node formed its table
    for account, table_id in where.items():
        sink = sinks[account]
        await until(lambda s=sink, t=table_id: any(
            isinstance(m, SeatedMessage) and m.table_id == t for m in s.messages
        ), 10, f"seated for {account}")
        assert sum(isinstance(m, SeatedMessage) for m in sink.messages) >= 1
        assert {m.table_id for m in sink.messages if isinstance(m, SeatedMessage)} == {table_id}
    # each player's one seat claim names its table
    for account, table_id in where.items():
        assert (await redis.get(keys.seated(account)) or "").startswith(f"{table_id}|")
    assert await redis.smembers(keys.match_queues) == set()
