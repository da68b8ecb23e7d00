"""A player makes a hand's replay public (issue 38): a friend opens the link without an
account and sees the ended hand with every seat's tiles; the player makes it private again
and the link answers nothing. Only a player of the ended hand may share it."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from app.rules.verify import check_hand
from app.store import ledger
from app.store.db import Database
from app.store.models import HandRecord
from app.tables.registry import TableRegistry
from tests.api.helpers import admin, assert_error, fund_house, player
from tests.api.test_replay import _played_hand
from tests.sinks import LONG


async def test_a_player_shares_a_replay_that_anyone_reads_and_unshares_it(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, ann = await _played_hand(client, app, db)
    _, bob = await player(client, "bob")
    # private: the friend with an account is refused, the one without is told nothing
    assert_error(await client.get(f"/hands/{hand_id}/replay", headers=bob), 403, "forbidden")
    assert_error(await client.get(f"/replays/{hand_id}"), 404, "not_found")
    own = (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()
    assert own["public"] is False

    shared = await client.put(f"/hands/{hand_id}/public", json={"public": True}, headers=ann)
    assert shared.status_code == 200, shared.text
    assert shared.json() == {"hand_id": hand_id, "public": True,
                             "path": f"/#/replay/{hand_id}", "api_path": f"/replays/{hand_id}"}
    # sharing twice changes nothing
    again = await client.put(f"/hands/{hand_id}/public", json={"public": True}, headers=ann)
    assert again.status_code == 200 and again.json()["public"] is True

    anonymous = await client.get(f"/replays/{hand_id}", params={"views": True})
    assert anonymous.status_code == 200, anonymous.text
    replay = anonymous.json()
    assert replay["public"] is True and replay["seat"] is None
    assert [p["name"] for p in replay["players"]] == ["ann", "bot-1", "bot-2", "bot-3"]
    # every seat's deal and every step's hands: the ended hand as its seed rebuilds it
    assert all(e["tiles"] is not None for e in replay["events"] if e["kind"] == "dealt")
    assert check_hand(replay["events"]).ok
    assert all(all(seat["hand"] is not None for seat in s["view"]["seats"])
               for s in replay["steps"])
    assert replay["result"]["net"] == replay["events"][-1]["net"]
    # a friend with an account reads it too, and ann sees every hand when she asks
    assert (await client.get(f"/hands/{hand_id}/replay", headers=bob)).json()["seat"] is None
    revealed = (await client.get(f"/hands/{hand_id}/replay", params={"reveal": True},
                                 headers=ann)).json()
    assert revealed["seat"] is None and revealed["events"] == replay["events"]

    private = await client.put(f"/hands/{hand_id}/public", json={"public": False}, headers=ann)
    assert private.status_code == 200 and private.json()["public"] is False
    assert_error(await client.get(f"/replays/{hand_id}"), 404, "not_found")
    assert_error(await client.get(f"/hands/{hand_id}/replay", headers=bob), 403, "forbidden")
    assert (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()["public"] is False


async def test_only_a_player_of_an_ended_hand_may_share_it(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, ann = await _played_hand(client, app, db)
    _, bob = await player(client, "bob")
    _, boss = await admin(client, db)
    for outsider in (bob, boss):  # an administrator did not play it either
        assert_error(await client.put(f"/hands/{hand_id}/public", json={"public": True},
                                      headers=outsider), 403, "not_a_player")
    assert_error(await client.get(f"/replays/{hand_id}"), 404, "not_found")  # nothing changed
    assert_error(await client.put(f"/hands/{hand_id}-9/public", json={"public": True},
                                  headers=ann), 404, "not_found")  # a forged id
    assert_error(await client.put(f"/hands/{hand_id}/public", json={"public": "yes please"},
                                  headers=ann), 422, "validation_error")
    assert_error(await client.put(f"/hands/{hand_id}/public", json={"public": True}),
                 401, "unauthorized")

    # a hand in play: its players know its id, and it is refused until it has ended
    await fund_house(db)
    made = await client.post("/tables", json={"variant": "lishui", "stake": 2,
                                              "timers": LONG}, headers=bob)
    table_id = made.json()["id"]
    assert (await client.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=bob)
            ).status_code == 200
    assert (await client.post(f"/tables/{table_id}/fill-bots", headers=bob)).status_code == 200
    registry: TableRegistry = app.state.tables
    async with asyncio.timeout(20):
        while not registry.require(table_id).table.hand_id:
            await asyncio.sleep(0.05)
    playing = registry.require(table_id).table.hand_id
    assert_error(await client.put(f"/hands/{playing}/public", json={"public": True},
                                  headers=bob), 409, "hand_not_ended")
    assert_error(await client.get(f"/replays/{playing}"), 404, "not_found")


async def test_a_disconnect_penalty_charged_with_the_hand_is_in_its_replay_with_its_cause(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, ann = await _played_hand(client, app, db)
    before = (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()["result"]
    assert before["penalties"] == []
    seats = (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()["seats"]
    # ann was away at the end for the third time in 24 hours (as app/tables/settlement/
    # penalties.py charges it): 12 silver to the three others
    async with db.sessions() as session:
        await ledger.penalize(session, seats[0], seats[1:], 12, "disconnect_penalty",
                              f"disconnect:{hand_id}:{seats[0]}", hand_id)
    after = (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()["result"]
    assert after["penalties"] == [{"seat": 0, "reason": "disconnect_penalty", "silver": 12}]
    assert after["silver"][0] == before["silver"][0] - 12
    assert sum(after["silver"]) == sum(before["silver"])


async def test_a_voided_hand_is_never_public(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, ann = await _played_hand(client, app, db)
    async with db.sessions() as session, session.begin():
        record = await session.get(HandRecord, hand_id)
        assert record is not None
        session.add(HandRecord(  # the same hand, as a dissolved table voids one
            id=f"{hand_id}-void", table_id=record.table_id, variant=record.variant,
            seed=record.seed, seats=record.seats, ctx=record.ctx, actions="[]", result="{}",
            voided=True,
        ))
    assert_error(await client.put(f"/hands/{hand_id}-void/public", json={"public": True},
                                  headers=ann), 409, "hand_voided")
    assert_error(await client.get(f"/replays/{hand_id}-void"), 404, "not_found")
    # its player asking for every seat's tiles gets their own seat still
    own = (await client.get(f"/hands/{hand_id}-void/replay", params={"reveal": True},
                            headers=ann)).json()
    assert own["voided"] is True and own["seat"] == 0
