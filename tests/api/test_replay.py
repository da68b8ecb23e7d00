"""A hand id opens its replay (issue 16): everything a viewer needs to step through a recorded
hand forwards and back, from the player's own seat (any seat for an administrator): the
events in order as that seat saw them, who sat where, the variant and dealer, the result in
points and silver, and on request the seat's whole view after each step."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.rules.verify import check_hand
from app.store.db import Database
from app.store.models import Account, HandRecord
from app.tables.messages import Autoplay
from app.tables.registry import TableRegistry
from tests.api.helpers import admin, assert_error, fund_house, player
from tests.sinks import LONG

STAKE = 2


async def _played_hand(client: httpx.AsyncClient, app: FastAPI, db: Database
                       ) -> tuple[str, dict[str, str]]:
    """ann at seat 0 on 托管 and three house bots play one 丽水 hand to its end; its id and
    ann's auth header."""
    await fund_house(db)
    _, ann = await player(client, "ann")
    made = await client.post("/tables", json={"variant": "lishui", "stake": STAKE,
                                              "timers": LONG}, headers=ann)
    table_id = made.json()["id"]
    assert (await client.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=ann)
            ).status_code == 200
    registry: TableRegistry = app.state.tables
    # before the deal: the server plays ann too
    registry.require(table_id).table.submit(Autoplay(0, True))
    assert (await client.post(f"/tables/{table_id}/fill-bots", headers=ann)).status_code == 200
    async with asyncio.timeout(20):
        while True:
            async with db.sessions() as s:
                found = (await s.execute(
                    select(HandRecord.id).where(HandRecord.table_id == table_id)
                )).scalars().first()
            if found is not None:
                return found, ann
            await asyncio.sleep(0.05)


async def _balance(db: Database, username: str) -> int:
    async with db.sessions() as s:
        return int((await s.execute(
            select(Account.balance).where(Account.username == username)
        )).scalar_one())


def _hands(view: dict[str, Any]) -> list[bool]:
    return [seat["hand"] is not None for seat in view["seats"]]


async def test_a_player_steps_through_their_hand_as_their_seat_saw_it(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, ann = await _played_hand(client, app, db)
    answer = await client.get(f"/hands/{hand_id}/replay", params={"views": True}, headers=ann)
    assert answer.status_code == 200, answer.text
    replay = answer.json()

    assert replay["variant"] == "lishui" and replay["seat"] == 0 and not replay["voided"]
    assert [(p["seat"], p["name"], p["bot"]) for p in replay["players"]] == [
        (0, "ann", False), (1, "bot-1", True), (2, "bot-2", True), (3, "bot-3", True),
    ]
    assert [p["account_id"] for p in replay["players"]] == replay["seats"]
    events = replay["events"]
    assert events[0]["kind"] == "hand_started" and events[-1]["kind"] == "hand_ended"
    assert events[0]["dealer"] == replay["dealer"]
    dealt = {e["seat"]: e["tiles"] for e in events if e["kind"] == "dealt"}
    assert dealt[0] is not None and dealt[1] is dealt[2] is dealt[3] is None
    # the finished hand shows its seed and commitment, and they verify ann's deal and draws
    seed = events[-1]["seed"]
    assert events[0]["commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert len(bytes.fromhex(seed)) == 32 and check_hand(events).ok

    # the result as the settlement showed it, and the silver each balance moved by
    result = replay["result"]
    assert result["outcome"] == events[-1]["outcome"] and result["net"] == events[-1]["net"]
    assert result["silver"] == [net * STAKE for net in result["net"]]  # 丽水: no house pay
    assert await _balance(db, "ann") == 10000 + result["silver"][0]

    # step by step: each step shows some events, the last shows them all; every view is
    # ann's own (her tiles, nobody else's) until the end reveals every hand
    steps = replay["steps"]
    marks = [s["upto"] for s in steps]
    assert marks == sorted(set(marks)) and marks[-1] == len(events)
    # one step per action that showed something: at least one per discard (the hand's seed
    # is random, and a quick 胡 makes a short hand, so no fixed count)
    discards = sum(e["kind"] == "discarded" for e in events)
    assert len(steps) >= discards + 1
    first = steps[0]["view"]
    assert first["seat"] == 0 and len(first["seats"][0]["hand"]) == len(dealt[0])
    for s in steps[:-1]:
        assert _hands(s["view"]) == [True, False, False, False]
        assert s["view"]["seed"] is None  # only the end reveals the seed
        assert s["view"]["commitment"] == events[0]["commitment"]
    last = steps[-1]["view"]
    assert last["outcome"] == result["outcome"] and _hands(last) == [True] * 4
    assert last["seed"] == seed
    # forwards and back: the river only grows step by step
    rivers = [len(s["view"]["river"]) for s in steps]
    assert rivers == sorted(rivers) and rivers[-1] > 0

    # without views=true no steps (the events alone are the light answer)
    light = (await client.get(f"/hands/{hand_id}/replay", headers=ann)).json()
    assert light["steps"] is None and light["events"] == events

    # a player sees their own seat only
    assert_error(await client.get(f"/hands/{hand_id}/replay", params={"seat": 1},
                                  headers=ann), 403, "forbidden")
    mine = await client.get(f"/hands/{hand_id}/replay", params={"seat": 0}, headers=ann)
    assert mine.status_code == 200 and mine.json()["events"] == events


async def test_an_admin_sees_every_seat_or_any_one_seat(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, _ = await _played_hand(client, app, db)
    _, boss = await admin(client, db)
    everything = (await client.get(f"/hands/{hand_id}/replay", params={"views": True},
                                   headers=boss)).json()
    assert everything["seat"] is None
    assert all(e["tiles"] is not None for e in everything["events"] if e["kind"] == "dealt")
    verdict = check_hand(everything["events"])  # every seat's deal and draws
    assert verdict.ok and verdict.dealt == 4 * 13 + 1, verdict
    assert all(_hands(s["view"]) == [True] * 4 for s in everything["steps"])

    as_two = (await client.get(f"/hands/{hand_id}/replay", params={"seat": 2, "views": True},
                               headers=boss)).json()
    assert as_two["seat"] == 2
    dealt = {e["seat"]: e["tiles"] for e in as_two["events"] if e["kind"] == "dealt"}
    assert dealt[2] is not None and dealt[0] is dealt[1] is dealt[3] is None
    assert _hands(as_two["steps"][0]["view"]) == [False, False, True, False]
    # the same hand, the same steps, whoever looks
    assert [s["upto"] for s in as_two["steps"]] == [s["upto"] for s in everything["steps"]]
    assert as_two["result"] == everything["result"]
    assert_error(await client.get(f"/hands/{hand_id}/replay", params={"seat": 4},
                                  headers=boss), 422, "validation_error")
