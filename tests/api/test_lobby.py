"""The lobby over REST: open a table, see it listed, sit down, get up, and the refusals."""

from __future__ import annotations

import asyncio

import httpx
from sqlalchemy import update

from app.store.db import Database
from app.store.models import Account
from tests.api.helpers import assert_error, fund_house, player


async def _open(client: httpx.AsyncClient, headers: dict[str, str], **body: object) -> dict:
    response = await client.post("/tables", json={"variant": "lishui", "stake": 1, **body},
                                 headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def test_open_list_sit_and_leave(client: httpx.AsyncClient) -> None:
    ann, ann_h = await player(client, "ann")
    bob, bob_h = await player(client, "bob")
    table = await _open(client, ann_h, stake=5, timers={"discard": 20})
    assert table["variant"] == "lishui" and table["stake"] == 5
    assert table["min_balance"] == 500
    assert table["seats_taken"] == 0 and table["status"] == "waiting"

    sat = await client.post(f"/tables/{table['id']}/sit", json={"seat": 2}, headers=ann_h)
    assert sat.status_code == 200, sat.text
    assert sat.json()["seat"] == 2
    sat = await client.post(f"/tables/{table['id']}/sit", headers=bob_h)
    assert sat.json()["seat"] == 0  # the first empty seat

    listed = (await client.get("/tables", headers=bob_h)).json()
    assert [t["id"] for t in listed] == [table["id"]]
    assert listed[0]["seats"] == [bob, None, ann, None]
    assert listed[0]["seats_taken"] == 2

    left = await client.post(f"/tables/{table['id']}/leave", headers=ann_h)
    assert left.status_code == 200, left.text
    assert left.json()["seats"] == [bob, None, None, None]


async def test_sitting_refusals(client: httpx.AsyncClient, db: Database) -> None:
    ann, ann_h = await player(client, "ann")
    _, bob_h = await player(client, "bob")
    table = await _open(client, ann_h)
    sit = f"/tables/{table['id']}/sit"
    await client.post(sit, json={"seat": 1}, headers=ann_h)

    assert_error(await client.post(sit, json={"seat": 1}, headers=bob_h), 409, "seat_taken")
    assert_error(await client.post(sit, headers=ann_h), 409, "already_seated")
    assert_error(await client.post(sit, json={"seat": 4}, headers=bob_h), 422,
                 "validation_error")
    assert_error(await client.post("/tables/nope/sit", headers=bob_h), 404, "not_found")
    assert_error(await client.post(f"/tables/{table['id']}/leave", headers=bob_h), 409,
                 "wrong_table")

    # 100 x the stake is the least a player brings to a table; new accounts hold 10000
    async with db.sessions() as s, s.begin():  # ann won enough for a dearer table
        await s.execute(update(Account).where(Account.id == ann).values(balance=20000))
    rich = await _open(client, ann_h, stake=100)
    poor = await _open(client, ann_h, stake=101)
    assert (await client.post(f"/tables/{rich['id']}/sit", headers=bob_h)).status_code == 200
    error = assert_error(await client.post(f"/tables/{poor['id']}/sit", headers=bob_h), 409,
                         "insufficient_balance")
    assert error["details"] == {"needed": 10100}

    async with db.sessions() as s, s.begin():
        await s.execute(update(Account).where(Account.id == ann).values(banned=True))
    assert_error(await client.post(f"/tables/{poor['id']}/sit", headers=ann_h), 403, "banned")


async def test_full_table_and_bad_requests(client: httpx.AsyncClient) -> None:
    headers = [(await player(client, name))[1] for name in ("ann", "bob", "cat", "dan", "eve")]
    table = await _open(client, headers[0])
    for h in headers[:4]:
        assert (await client.post(f"/tables/{table['id']}/sit", headers=h)).status_code == 200
    assert_error(await client.post(f"/tables/{table['id']}/sit", headers=headers[4]), 409,
                 "table_full")

    bad = await client.post("/tables", json={"variant": "tokyo", "stake": 1}, headers=headers[0])
    assert_error(bad, 422, "validation_error")
    bad = await client.post("/tables", json={"variant": "lishui", "stake": 0}, headers=headers[0])
    assert_error(bad, 422, "validation_error")
    assert_error(await client.get("/tables"), 401, "unauthorized")


async def test_bots_fill_the_empty_seats(client: httpx.AsyncClient, db: Database) -> None:
    await fund_house(db)
    ann, ann_h = await player(client, "ann")
    _, bob_h = await player(client, "bob")
    table = await _open(client, ann_h)
    fill = f"/tables/{table['id']}/fill-bots"
    assert_error(await client.post(fill, headers=ann_h), 409, "wrong_table")  # not seated yet

    await client.post(f"/tables/{table['id']}/sit", json={"seat": 1}, headers=ann_h)
    filled = await client.post(fill, headers=ann_h)
    assert filled.status_code == 200, filled.text
    seats = filled.json()["seats"]
    assert seats[1] == ann and None not in seats and len(set(seats)) == 4

    # the bots are accounts of their own, funded by the house to the table's minimum
    for n in (1, 2, 3):
        bot = await client.get(f"/accounts/bot-{n}")
        assert bot.status_code == 200 and bot.json()["balance"] == 100
    assert (await client.get("/accounts/bot-4")).status_code == 404

    # a bot sits at one table at a time: another table gets new ones
    other = await _open(client, bob_h)
    await client.post(f"/tables/{other['id']}/sit", headers=bob_h)
    await client.post(f"/tables/{other['id']}/fill-bots", headers=bob_h)
    assert (await client.get("/accounts/bot-6")).status_code == 200


async def test_one_table_at_a_time(client: httpx.AsyncClient) -> None:
    """Sitting while seated at another table names that table (409 `seated_elsewhere`);
    two sits of one account at once: one of them only."""
    _, ann_h = await player(client, "ann")
    # opened by five accounts: one may keep only `max_open_tables` (3) open
    openers = [(await player(client, f"opener{n}"))[1] for n in range(5)]
    tables = [(await _open(client, h, stake=100))["id"] for h in openers]
    assert (await client.post(f"/tables/{tables[0]}/sit", headers=ann_h)).status_code == 200
    for other in tables[1:]:
        error = assert_error(await client.post(f"/tables/{other}/sit", headers=ann_h), 409,
                             "seated_elsewhere")
        assert error["details"] == {"table_id": tables[0]}
    assert_error(await client.post(f"/tables/{tables[0]}/sit", headers=ann_h), 409,
                 "already_seated")
    listed = {t["id"]: t["seats_taken"] for t in (await client.get("/tables", headers=ann_h)).json()}
    assert listed == {tables[0]: 1, **{t: 0 for t in tables[1:]}}

    # once up, the player may sit elsewhere
    assert (await client.post(f"/tables/{tables[0]}/leave", headers=ann_h)).status_code == 200
    assert (await client.post(f"/tables/{tables[1]}/sit", headers=ann_h)).status_code == 200

    # concurrent sits of one account at four tables: exactly one succeeds
    _, bob_h = await player(client, "bob")
    answers = await asyncio.gather(*(
        client.post(f"/tables/{t}/sit", headers=bob_h) for t in tables[1:]
    ))
    won = [t for t, a in zip(tables[1:], answers, strict=True) if a.status_code == 200]
    assert len(won) == 1
    for answer in answers:
        if answer.status_code != 200:
            assert answer.json()["error"]["code"] == "seated_elsewhere"
            assert answer.json()["error"]["details"] == {"table_id": won[0]}
    seated = [t for t in (await client.get("/tables", headers=bob_h)).json() if t["seats_taken"]]
    assert sorted(t["id"] for t in seated) == sorted({tables[1], won[0]})


async def test_the_list_names_who_sits_at_each_seat(client: httpx.AsyncClient, db: Database
                                                    ) -> None:
    await fund_house(db)
    ann, ann_h = await player(client, "ann")
    table = await _open(client, ann_h)
    await client.post(f"/tables/{table['id']}/sit", json={"seat": 2}, headers=ann_h)
    empty = await _open(client, ann_h, variant="fuzhou")

    listed = {t["id"]: t for t in (await client.get("/tables", headers=ann_h)).json()}
    assert listed[table["id"]]["seats"] == [None, None, ann, None]  # kept as it was
    assert listed[table["id"]]["players"] == [
        {"seat": 0, "account_id": None, "name": None, "title": None, "bot": False},
        {"seat": 1, "account_id": None, "name": None, "title": None, "bot": False},
        {"seat": 2, "account_id": ann, "name": "ann", "title": "生手", "bot": False},
        {"seat": 3, "account_id": None, "name": None, "title": None, "bot": False},
    ]
    assert [p["name"] for p in listed[empty["id"]]["players"]] == [None] * 4

    filled = (await client.post(f"/tables/{table['id']}/fill-bots", headers=ann_h)).json()
    listed = {t["id"]: t for t in (await client.get("/tables", headers=ann_h)).json()}
    players = listed[table["id"]]["players"]
    assert [p["account_id"] for p in players] == filled["seats"]
    assert [p["bot"] for p in players] == [True, True, False, True]
    assert {p["name"] for p in players if p["bot"]} == {"bot-1", "bot-2", "bot-3"}
    assert all(p["title"] for p in players)


async def test_a_table_the_creator_cannot_afford_is_refused_before_it_is_made(
    client: httpx.AsyncClient,
) -> None:
    _, ann_h = await player(client, "ann")  # 10000 silver: a stake of 100 at most
    refused = await client.post("/tables", json={"variant": "lishui", "stake": 101},
                                headers=ann_h)
    error = assert_error(refused, 409, "insufficient_balance")
    assert error["details"] == {"needed": 10100}  # as sitting at such a table would say
    assert (await client.get("/tables", headers=ann_h)).json() == []
    # nothing was made, so nothing counts against the account's open tables
    for _ in range(3):
        await _open(client, ann_h, stake=100)


async def test_the_bots_level_is_chosen_with_the_table_and_shown(
    client: httpx.AsyncClient, db: Database
) -> None:
    await fund_house(db)
    _, ann_h = await player(client, "ann")
    plain = await _open(client, ann_h)
    assert plain["bot_level"] == "standard"  # nobody chose: the house's greedy bot
    await client.post(f"/tables/{plain['id']}/leave", headers=ann_h)

    bad = await client.post("/tables", json={"variant": "lishui", "stake": 1,
                                             "bot_level": "grandmaster"}, headers=ann_h)
    assert_error(bad, 422, "validation_error")
    listed = (await client.get("/tables", headers=ann_h)).json()
    assert [t["id"] for t in listed] == [plain["id"]]  # the refused one was not made

    table = await _open(client, ann_h, bot_level="expert")
    assert table["bot_level"] == "expert"
    await client.post(f"/tables/{table['id']}/sit", headers=ann_h)
    await client.post(f"/tables/{table['id']}/fill-bots", headers=ann_h)
    listed = {t["id"]: t for t in (await client.get("/tables", headers=ann_h)).json()}
    assert listed[table["id"]]["bot_level"] == "expert"
    assert listed[plain["id"]]["bot_level"] == "standard"
    players = (await client.get(f"/tables/{table['id']}/players", headers=ann_h)).json()
    assert players["bot_level"] == "expert" and sum(s["bot"] for s in players["seats"]) == 3
