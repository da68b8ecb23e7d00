"""Leaderboards (排行榜): silver, points and win rate; ties share a rank; banned accounts, the
house account and its bots are left out."""

from __future__ import annotations

import httpx
from sqlalchemy import update

from app.store import accounts, house, ledger
from app.store.db import Database
from app.store.models import Account
from tests.api.helpers import assert_error, fund_house, player, register, set_stats


async def _players(client: httpx.AsyncClient, names: list[str]) -> dict[str, int]:
    return {name: int((await register(client, name))["id"]) for name in names}


async def _ban(db: Database, account_id: int) -> None:
    async with db.sessions() as s, s.begin():
        await s.execute(update(Account).where(Account.id == account_id).values(banned=True))


async def test_silver_orders_by_balance_with_titles_and_shared_ranks(
    client: httpx.AsyncClient, db: Database
) -> None:
    ids = await _players(client, ["ann", "bob", "cat", "dan", "eve"])
    async with db.sessions() as s:
        await ledger.post(s, ids["bob"], 90000, "house_reward", "t:bob")
    async with db.sessions() as s:
        await ledger.post(s, ids["cat"], 2000, "house_reward", "t:cat")
    async with db.sessions() as s:
        await ledger.post(s, ids["dan"], 2000, "house_reward", "t:dan")
    async with db.sessions() as s:
        await ledger.adjust(s, ids["eve"], -9000, "test", ids["eve"])
    await _ban(db, ids["ann"])
    board = (await client.get("/leaderboards/silver")).json()
    assert board["limit"] == 20 and board["offset"] == 0
    assert [(r["rank"], r["username"], r["title"], r["value"]) for r in board["rows"]] == [
        (1, "bob", "赌鬼", 100000),
        (2, "cat", "赌客", 12000),
        (2, "dan", "赌客", 12000),
        (4, "eve", "菜鸟", 1000),
    ]
    page = (await client.get("/leaderboards/silver", params={"limit": 2, "offset": 2})).json()
    assert [(r["rank"], r["username"]) for r in page["rows"]] == [(2, "dan"), (4, "eve")]


async def test_points_by_variant(client: httpx.AsyncClient, db: Database) -> None:
    ids = await _players(client, ["ann", "bob", "cat", "dan"])
    await set_stats(db, ids["ann"], "huzhou", points=10, hands=3)
    await set_stats(db, ids["bob"], "huzhou", points=50, hands=9)
    await set_stats(db, ids["cat"], "huzhou", points=70, hands=9)
    await set_stats(db, ids["dan"], "lishui", points=999, hands=9)
    await _ban(db, ids["cat"])
    board = (await client.get("/leaderboards/points/huzhou")).json()
    assert [(r["rank"], r["username"], r["title"], r["value"]) for r in board["rows"]] == [
        (1, "bob", "生手", 50),
        (2, "ann", "生手", 10),
    ]
    lishui = (await client.get("/leaderboards/points/lishui")).json()
    assert [r["username"] for r in lishui["rows"]] == ["dan"]
    assert (await client.get("/leaderboards/points/fuzhou")).json()["rows"] == []
    error = assert_error(await client.get("/leaderboards/points/mahjong"), 404, "not_found")
    assert "huzhou" in error["details"]["variants"]


async def test_win_rate_needs_min_hands(client: httpx.AsyncClient, db: Database) -> None:
    ids = await _players(client, ["ann", "bob", "cat", "dan", "eve"])
    await set_stats(db, ids["ann"], "wenzhou", hands=20, wins=5)  # 0.25
    await set_stats(db, ids["bob"], "wenzhou", hands=30, wins=10)  # 0.3333
    await set_stats(db, ids["cat"], "wenzhou", hands=19, wins=19)  # too few hands
    await set_stats(db, ids["dan"], "wenzhou", hands=40, wins=10)  # 0.25, ties with ann
    await set_stats(db, ids["eve"], "wenzhou", hands=50, wins=40)  # banned
    await _ban(db, ids["eve"])
    board = (await client.get("/leaderboards/win-rate/wenzhou")).json()
    assert [
        (r["rank"], r["username"], r["value"], r["wins"], r["hands"]) for r in board["rows"]
    ] == [
        (1, "bob", 0.3333, 10, 30),
        (2, "ann", 0.25, 5, 20),
        (2, "dan", 0.25, 10, 40),
    ]
    assert all(r["title"] == "生手" for r in board["rows"])
    wider = (await client.get("/leaderboards/win-rate/wenzhou", params={"min_hands": 1})).json()
    assert [r["username"] for r in wider["rows"]] == ["cat", "bob", "ann", "dan"]
    assert_error(await client.get("/leaderboards/win-rate/nowhere"), 404, "not_found")
    assert_error(
        await client.get("/leaderboards/win-rate/wenzhou", params={"min_hands": 0}),
        422,
        "validation_error",
    )
    assert_error(
        await client.get("/leaderboards/silver", params={"limit": 0}), 422, "validation_error"
    )
    assert_error(
        await client.get("/leaderboards/silver", params={"offset": -1}), 422, "validation_error"
    )


async def test_numbers_past_the_databases_range_are_refused_not_failed(
    client: httpx.AsyncClient,
) -> None:
    """A huge offset or min_hands is a 422, not a driver's overflow answered as a 500."""
    await player(client, "ann")
    for path, params in (
        ("/leaderboards/silver", {"offset": 2**63}),
        ("/leaderboards/points/lishui", {"offset": 2**63}),
        ("/leaderboards/win-rate/lishui", {"min_hands": 2**31}),
    ):
        assert_error(await client.get(path, params=params), 422, "validation_error")
    # the largest it takes is answered: past the last row, an empty page
    far = await client.get("/leaderboards/silver", params={"offset": 2**63 - 1})
    assert far.status_code == 200 and far.json()["rows"] == [], far.text
    many = await client.get("/leaderboards/win-rate/lishui", params={"min_hands": 2**31 - 1})
    assert many.status_code == 200 and many.json()["rows"] == [], many.text


async def add_bots(db: Database, silver: int, *names: str) -> list[int]:
    """House bots (`bot-<n>`) that won big and played a lot; and the house funded."""
    await fund_house(db)
    ids = []
    for name in names:
        async with db.sessions() as s, s.begin():
            ids.append((await accounts.create(s, name, house.NO_PASSWORD)).id)
        async with db.sessions() as s:
            await ledger.post(s, ids[-1], silver, "house_reward", f"t:{name}")
        for variant in ("huzhou", "lishui"):
            await set_stats(db, ids[-1], variant, points=10_000, hands=100, wins=90)
    return ids


async def test_bots_and_the_house_are_on_no_board(client: httpx.AsyncClient, db: Database
                                                  ) -> None:
    ids = await _players(client, ["ann", "bob"])
    await set_stats(db, ids["ann"], "huzhou", points=10, hands=30, wins=3)
    await add_bots(db, 500_000, "bot-1", "bot-2")  # richer, higher and luckier than anyone
    boards = [
        "/leaderboards/silver", "/leaderboards/points/huzhou",
        "/leaderboards/win-rate/huzhou", "/leaderboards/points/lishui",
    ]
    listed = {path: [r["username"] for r in (await client.get(path)).json()["rows"]]
              for path in boards}
    assert listed == {
        "/leaderboards/silver": ["ann", "bob"],  # not house-bank's float, not the bots'
        "/leaderboards/points/huzhou": ["ann"],
        "/leaderboards/win-rate/huzhou": ["ann"],
        "/leaderboards/points/lishui": [],
    }
    first = (await client.get("/leaderboards/silver")).json()["rows"][0]
    assert first["rank"] == 1  # ranks count people only


async def test_my_place_on_each_board_is_the_rank_the_board_gives(
    client: httpx.AsyncClient, db: Database
) -> None:
    """A player far down a board learns their own rank and value (GET .../me), tied ranks
    shared as on the board; a board that does not rank them says rank null, and the bots
    above them do not count."""
    ids = await _players(client, ["ann", "bob", "cat"])
    _, dan = await player(client, "dan")
    dan_id = int((await client.get("/me", headers=dan)).json()["id"])
    async with db.sessions() as s:
        await ledger.post(s, ids["ann"], 50000, "house_reward", "t:ann")
    async with db.sessions() as s:
        await ledger.post(s, dan_id, 2000, "house_reward", "t:dan")
    async with db.sessions() as s:
        await ledger.post(s, ids["bob"], 2000, "house_reward", "t:bob")
    await add_bots(db, 900_000, "bot-1")
    silver = (await client.get("/leaderboards/silver")).json()["rows"]
    mine = (await client.get("/leaderboards/silver/me", headers=dan)).json()
    assert mine == {"rank": 2, "username": "dan", "title": "赌客", "value": 12000}
    assert (2, "dan") in [(r["rank"], r["username"]) for r in silver]

    await set_stats(db, ids["ann"], "huzhou", points=90, hands=30, wins=9)  # 0.3
    await set_stats(db, ids["bob"], "huzhou", points=40, hands=40, wins=8)  # 0.2
    await set_stats(db, dan_id, "huzhou", points=40, hands=10, wins=5)  # 0.5, few hands
    points = (await client.get("/leaderboards/points/huzhou/me", headers=dan)).json()
    assert (points["rank"], points["value"]) == (2, 40)  # ties with bob, below ann (the bot: off)
    rate = (await client.get("/leaderboards/win-rate/huzhou/me", headers=dan)).json()
    assert (rate["rank"], rate["value"], rate["wins"], rate["hands"]) == (None, None, 5, 10)
    wider = await client.get(
        "/leaderboards/win-rate/huzhou/me", params={"min_hands": 10}, headers=dan
    )
    assert (wider.json()["rank"], wider.json()["value"]) == (1, 0.5)
    unplayed = (await client.get("/leaderboards/points/fuzhou/me", headers=dan)).json()
    assert (unplayed["rank"], unplayed["value"]) == (None, None)

    assert_error(await client.get("/leaderboards/silver/me"), 401, "unauthorized")
    assert_error(
        await client.get("/leaderboards/points/mahjong/me", headers=dan), 404, "not_found"
    )
    assert_error(
        await client.get(
            "/leaderboards/win-rate/huzhou/me", params={"min_hands": 0}, headers=dan
        ),
        422,
        "validation_error",
    )
