"""Leaderboards from Redis sorted sets give the same pages as the PostgreSQL queries: the
order, shared ranks, titles, paging and banned accounts, the house and its bots left out; a
settled hand updates its seats at once (queued: the hand's result does not wait for it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.cluster.boards import Boards
from app.main import create_app
from app.settings import Settings
from app.store import ledger
from app.store.db import Database
from app.store.models import Account, VariantStats
from app.tables.settlement.results import read_profiles
from tests.api.helpers import register, set_stats
from tests.api.test_leaderboard import add_bots


async def _client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http


async def _pages(http: httpx.AsyncClient, path: str) -> list[object]:
    return [
        (await http.get(path, params={"limit": limit, "offset": offset})).json()
        for limit, offset in ((20, 0), (2, 0), (2, 2), (3, 1), (5, 10))
    ]


async def test_redis_boards_match_the_database(
    settings: Settings, db: Database, redis_url: str, prefix: str, redis: object
) -> None:
    clustered_settings = settings.model_copy(
        update={"redis_url": redis_url, "redis_prefix": prefix, "node_id": "boards"}
    )
    plain_app, clustered_app = create_app(settings), create_app(clustered_settings)
    plain_gen, clustered_gen = _client(plain_app), _client(clustered_app)
    plain = await anext(plain_gen)
    clustered = await anext(clustered_gen)
    try:
        network = clustered_app.state.network
        assert isinstance(network.boards, Boards)
        names = ["ann", "bob", "cat", "dan", "eve", "fay"]
        ids = {name: int((await register(plain, name))["id"]) for name in names}
        for name, amount in (("bob", 90000), ("cat", 2000), ("dan", 2000)):
            async with db.sessions() as s:
                await ledger.post(s, ids[name], amount, "house_reward", f"t:{name}")
        await set_stats(db, ids["ann"], "huzhou", points=10, hands=3)
        await set_stats(db, ids["bob"], "huzhou", points=50, hands=9)
        await set_stats(db, ids["cat"], "huzhou", points=50, hands=9)
        await set_stats(db, ids["eve"], "huzhou", points=70, hands=9)
        bots = await add_bots(db, 900_000, "bot-1", "bot-2")
        await network.boards.rebuild()
        # banned after the boards were built: the page finds out and drops the account
        async with db.sessions() as s, s.begin():
            await s.execute(update(Account).where(Account.id == ids["fay"]).values(banned=True))

        for path in ("/leaderboards/silver", "/leaderboards/points/huzhou",
                     "/leaderboards/points/fuzhou"):
            assert await _pages(clustered, path) == await _pages(plain, path), path
        silver = (await clustered.get("/leaderboards/silver")).json()["rows"]
        assert [(r["rank"], r["username"]) for r in silver][:4] == [
            (1, "bob"), (2, "cat"), (2, "dan"), (4, "ann"),
        ]
        assert "fay" not in [r["username"] for r in silver]
        assert not {"bot-1", "bot-2", "house-bank"} & {r["username"] for r in silver}

        # a hand settled: its seats move on the boards without waiting for a rebuild
        async with db.sessions() as s:
            await ledger.post(s, ids["eve"], 500000, "house_reward", "t:eve")
        stale = (await clustered.get("/leaderboards/silver", params={"limit": 1})).json()
        assert stale["rows"][0]["username"] == "bob"  # read from Redis, not the database
        async with db.sessions() as s, s.begin():
            await s.execute(
                update(VariantStats)
                .where(VariantStats.account_id == ids["ann"], VariantStats.variant == "huzhou")
                .values(points=99)
            )
        for seats in ([ids["eve"], ids["ann"], ids["bob"], ids["cat"]],
                      [bots[0], ids["ann"], bots[1], ids["cat"]]):
            read = await read_profiles(db.sessions, {(a, "huzhou") for a in seats})
            network.boards.queue({a: p for (a, _), p in read.items()}, "huzhou")
        await network.boards.drain()  # both hands' seats, in one write or two
        top = (await clustered.get("/leaderboards/silver", params={"limit": 1})).json()["rows"]
        assert top[0]["username"] == "eve" and top[0]["value"] == 510000
        points = (await clustered.get("/leaderboards/points/huzhou")).json()["rows"]
        assert (points[0]["rank"], points[0]["username"], points[0]["value"]) == (1, "ann", 99)
        for path in ("/leaderboards/silver", "/leaderboards/points/huzhou"):
            assert await _pages(clustered, path) == await _pages(plain, path), path
    finally:
        for gen in (clustered_gen, plain_gen):
            await gen.aclose()
