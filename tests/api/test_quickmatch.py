"""Quick match over REST in one process (app/api/quickmatch.py, app/api/matcher.py): the
levels, queueing, leaving and the caller's standing, the refusals, four players seated at
one table with `seated` on their sockets, one who cannot sit dropped while the others keep
their places, house bots after the wait (and why not, when they cannot be had), a player
with no socket removed after the grace, and the administrators' levels."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.api.matcher import Matcher
from app.main import create_app
from app.protocol import SeatedMessage, TableStateMessage
from app.settings import Settings
from app.store.db import Database
from app.store.models import Account, AuditLog
from app.tables.matching import queue_name
from app.tables.registry import TableRegistry
from tests.api.helpers import admin, assert_error, fund_house, player
from tests.sinks import Sink
from tests.waits import until

LONG = {"quick_match_fill_seconds": 3600.0, "quick_match_grace_seconds": 3600.0}


@pytest.fixture
def options() -> dict[str, float]:
    return LONG


@pytest.fixture
async def app(settings: Settings, options: dict[str, float]) -> AsyncIterator[FastAPI]:
    application = create_app(settings.model_copy(update=options))
    async with application.router.lifespan_context(application):
        yield application


def registry(app: FastAPI) -> TableRegistry:
    found: TableRegistry = app.state.tables
    return found


def matcher(app: FastAPI) -> Matcher:
    found: Matcher = app.state.matcher
    return found


async def standing(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, object]:
    answer = await client.get("/quick-match", headers=headers)
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


async def queue(client: httpx.AsyncClient, headers: dict[str, str], variant: str = "lishui",
                level: str = "beginner") -> dict[str, object]:
    answer = await client.post("/quick-match", json={"variant": variant, "level": level},
                               headers=headers)
    assert answer.status_code == 202, answer.text
    body: dict[str, object] = answer.json()
    return body


async def test_the_levels_are_data_anyone_reads(client: httpx.AsyncClient) -> None:
    listed = await client.get("/quick-match/levels")  # no sign-in needed
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert body["fill_after_seconds"] == 3600
    assert [(lv["key"], lv["name_zh"], lv["stake"], lv["min_balance"]) for lv in body["levels"]] == [
        ("beginner", "初级场", 1, 100), ("intermediate", "中级场", 10, 2000),
        ("advanced", "高级场", 100, 20000),
    ]
    assert all(lv["min_balance"] >= 100 * lv["stake"] for lv in body["levels"])
    _, ann = await player(client, "ann")
    await queue(client, ann, "fuzhou", "intermediate")
    levels = (await client.get("/quick-match/levels")).json()["levels"]
    assert levels[1]["waiting"] == {
        "lishui": 0, "wenzhou": 0, "huzhou": 0, "fuzhou": 1, "shanghai": 0
    }


async def test_queue_move_leave_and_standing(client: httpx.AsyncClient) -> None:
    _, ann = await player(client, "ann")
    _, bob = await player(client, "bob")
    assert await standing(client, ann) == {
        "state": "idle", "variant": None, "level": None, "position": None, "waiting": 0,
        "waited_seconds": None, "bots_in_seconds": None, "reason": None, "table_id": None,
    }
    first = await queue(client, ann)
    assert (first["state"], first["variant"], first["level"]) == ("queued", "lishui", "beginner")
    assert (first["position"], first["waiting"]) == (1, 1)
    assert 3590 < float(first["bots_in_seconds"]) <= 3600  # type: ignore[arg-type]
    second = await queue(client, bob)
    assert (second["position"], second["waiting"]) == (2, 2)
    # again for the same queue: the same place
    assert (await queue(client, ann))["position"] == 1
    # another variant: moved to the end of that queue
    moved = await queue(client, ann, "wenzhou")
    assert (moved["variant"], moved["position"], moved["waiting"]) == ("wenzhou", 1, 1)
    assert ((await standing(client, bob))["position"], (await standing(client, bob))["waiting"]) == (1, 1)
    left = await client.delete("/quick-match", headers=ann)
    assert left.status_code == 200 and left.json()["state"] == "idle"
    again = await client.delete("/quick-match", headers=ann)  # not queued: the same answer
    assert again.status_code == 200 and again.json()["state"] == "idle"


async def test_the_refusals(client: httpx.AsyncClient, db: Database) -> None:
    ann_id, ann = await player(client, "ann")
    for body in ({"variant": "mahjong", "level": "beginner"},
                 {"variant": "lishui", "level": "Beginner!"},
                 {"variant": "lishui"}, {"variant": "lishui", "level": "beginner", "x": 1}):
        assert_error(await client.post("/quick-match", json=body, headers=ann), 422,
                     "validation_error")
    missing = await client.post("/quick-match", json={"variant": "lishui", "level": "royal"},
                                headers=ann)
    assert_error(missing, 404, "not_found")
    poor = await client.post("/quick-match", json={"variant": "lishui", "level": "advanced"},
                             headers=ann)
    assert assert_error(poor, 409, "insufficient_balance")["details"] == {"needed": 20000}
    table = (await client.post("/tables", json={"variant": "lishui", "stake": 1},
                               headers=ann)).json()
    assert (await client.post(f"/tables/{table['id']}/sit", headers=ann)).status_code == 200
    seated = await client.post("/quick-match", json={"variant": "lishui", "level": "beginner"},
                               headers=ann)
    assert assert_error(seated, 409, "seated_elsewhere")["details"] == {"table_id": table["id"]}
    assert_error(await client.post("/quick-match", json={"variant": "lishui",
                                                         "level": "beginner"}), 401, "unauthorized")
    assert_error(await client.get("/quick-match"), 401, "unauthorized")
    assert (await standing(client, ann))["state"] == "idle"  # nothing was queued
    del ann_id


async def test_no_leaving_or_moving_while_a_table_is_formed(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    ann_id, ann = await player(client, "ann")
    await queue(client, ann)
    name = queue_name("lishui", "beginner")
    waiters = await matcher(app).queue.look(name)
    assert await matcher(app).queue.take(name, waiters)  # as the matcher does
    assert (await standing(client, ann))["state"] == "matching"
    assert_error(await client.delete("/quick-match", headers=ann), 409, "match_forming")
    moved = await client.post("/quick-match", json={"variant": "huzhou", "level": "beginner"},
                              headers=ann)
    assert_error(moved, 409, "match_forming")
    await matcher(app).queue.put_back(name, waiters)
    back = await standing(client, ann)
    assert (back["state"], back["position"]) == ("queued", 1)
    del ann_id


async def _until_state(
    app: FastAPI, client: httpx.AsyncClient, headers: dict[str, str], state: str,
    reason: str | None = None,
) -> dict[str, object]:
    """The caller's standing once it is `state` (and `reason`, if one is named), the
    matcher having looked at the queues (here, and in its own loop). Bounded in time, not
    in looks: a match the matcher's own loop is forming shows ``matching`` until its table
    is open, which on a loaded machine outlasts many looks that find nothing to do."""
    loop = asyncio.get_running_loop()
    until = loop.time() + 20
    while True:
        found = await standing(client, headers)
        if found["state"] == state and (reason is None or found["reason"] == reason):
            return found
        if loop.time() > until:
            raise AssertionError(f"never {state}: {found}")
        await matcher(app).run_once()
        await asyncio.sleep(0.01)


def _sockets(app: FastAPI, accounts: list[int]) -> list[Sink]:
    sinks = []
    for account in accounts:
        sink = Sink()
        registry(app).connections.connect(account, sink)
        sinks.append(sink)
    return sinks


async def test_four_players_are_seated_together_in_the_order_they_queued(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    people = [await player(client, name) for name in ("ann", "bob", "cyd", "dee", "eve")]
    ids = [account for account, _ in people]
    sinks = _sockets(app, ids)
    for _, headers in people:
        await queue(client, headers, "huzhou", "intermediate")

    async def table_of(headers: dict[str, str]) -> object:
        return (await standing(client, headers)).get("table_id")

    seated: dict[int, object] = {}

    async def look() -> bool:
        for account, headers in people[:4]:
            seated[account] = await table_of(headers)
        return all(seated.values())

    for _ in range(200):
        if await look():
            break
        await matcher(app).run_once()
    assert len(set(seated.values())) == 1
    table_id = str(seated[ids[0]])
    live = registry(app).get(table_id)
    assert live is not None and (live.variant, live.stake) == ("huzhou", 10)
    assert sorted(a for a in live.accounts() if a is not None) == sorted(ids[:4])
    # the fifth still waits, first in line now
    fifth = await standing(client, people[4][1])
    assert (fifth["state"], fifth["position"], fifth["waiting"]) == ("queued", 1, 1)
    # each of the four is told over its socket: `seated`, then the table's state
    for account, sink in zip(ids[:4], sinks[:4], strict=True):
        await until(lambda s=sink: any(isinstance(m, TableStateMessage) for m in s.messages),
                    5, "table_state")
        kinds = [m for m in sink.messages if isinstance(m, SeatedMessage | TableStateMessage)]
        assert isinstance(kinds[0], SeatedMessage)
        assert (kinds[0].table_id, kinds[0].stake, kinds[0].variant) == (table_id, 10, "huzhou")
        assert live.seat_of(account) == kinds[0].seat
    assert not any(isinstance(m, SeatedMessage) for m in sinks[4].messages)
    # seated: queueing again is refused
    again = await client.post("/quick-match", json={"variant": "lishui", "level": "beginner"},
                              headers=people[0][1])
    assert_error(again, 409, "seated_elsewhere")


async def test_one_who_cannot_sit_is_dropped_and_the_others_keep_their_places(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    people = [await player(client, name) for name in ("ann", "bob", "cyd", "dee")]
    ids = [account for account, _ in people]
    _sockets(app, ids)
    for _, headers in people[:3]:
        await queue(client, headers, "lishui", "intermediate")
    # bob's silver goes below the level's 2,000 before the table is formed
    async with db.sessions() as s, s.begin():
        await s.execute(update(Account).where(Account.id == ids[1]).values(balance=1999))
    await queue(client, people[3][1], "lishui", "intermediate")
    dropped = await _until_state(app, client, people[1][1], "idle")
    assert (dropped["state"], dropped["reason"]) == ("idle", "insufficient_balance")
    places = [(await standing(client, h))["position"] for _, h in (people[0], people[2], people[3])]
    assert places == [1, 2, 3]
    assert registry(app).all() == []  # no table was made
    # a fourth comes: the three and the newcomer sit
    eve_id, eve = await player(client, "eve")
    _sockets(app, [eve_id])
    await queue(client, eve, "lishui", "intermediate")
    await _until_state(app, client, eve, "seated")
    tables = {(await standing(client, h))["table_id"] for _, h in (people[0], people[2],
                                                                    people[3], (0, eve))}
    assert len(tables) == 1 and None not in tables


async def test_a_player_without_a_socket_is_passed_over(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    people = [await player(client, name) for name in ("ann", "bob", "cyd", "dee", "eve")]
    ids = [account for account, _ in people]
    _sockets(app, ids[1:])  # ann, first in line, has no table socket open
    for _, headers in people:
        await queue(client, headers)
    await _until_state(app, client, people[4][1], "seated")
    ann = await standing(client, people[0][1])
    assert (ann["state"], ann["position"]) == ("queued", 1)  # kept her place
    for _, headers in people[1:]:
        assert (await standing(client, headers))["state"] == "seated"


@pytest.mark.parametrize("options", [LONG | {"quick_match_grace_seconds": 0.0}])
async def test_no_socket_for_the_grace_leaves_the_queue(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    _, ann = await player(client, "ann")
    await queue(client, ann)
    await until(lambda: True, 0.1, "")

    async def gone() -> bool:
        await matcher(app).run_once()
        return (await standing(client, ann))["state"] == "idle"

    for _ in range(100):
        if await gone():
            break
    assert (await standing(client, ann))["reason"] == "disconnected"


FAST_BOTS = {"quick_match_fill_seconds": 0.0, "quick_match_grace_seconds": 3600.0}


@pytest.mark.parametrize("options", [FAST_BOTS])
async def test_bots_fill_the_table_after_the_wait(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    ann_id, ann = await player(client, "ann")
    sink, = _sockets(app, [ann_id])
    # the house has no silver: she stays queued and is told why
    await queue(client, ann, "wenzhou")
    waiting = await _until_state(app, client, ann, "queued", "house_funds_low")
    assert waiting["bots_in_seconds"] == 0
    await fund_house(db)
    await until(lambda: any(isinstance(m, SeatedMessage) for m in sink.messages), 15,
                "the bots' table")  # the matcher's own loop, after its pause
    seated = await standing(client, ann)
    assert seated["state"] == "seated" and seated["reason"] is None
    live = registry(app).get(str(seated["table_id"]))
    assert live is not None and (live.variant, live.stake) == ("wenzhou", 1)
    bots = [a for a in live.accounts() if a not in (None, ann_id)]
    assert len(bots) == 3 and set(bots) == live.bots
    async with db.sessions() as s:
        names = (await s.execute(select(Account.username, Account.balance).where(
            Account.id.in_(bots)))).all()
    assert all(n.startswith("bot-") and b == 100 for n, b in names)  # funded to the minimum


@pytest.mark.parametrize("options", [FAST_BOTS])
async def test_the_operator_sets_the_bots_level_of_a_quick_match_level(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    await fund_house(db)
    _, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    beginner = {"name_zh": "初级场", "name_en": "Beginner", "stake": 1, "min_balance": 100,
                "position": 0, "enabled": True}
    bad = await client.put("/admin/match-levels/beginner", headers=boss,
                           json=beginner | {"bot_level": "godlike"})
    assert_error(bad, 422, "validation_error")
    listed = (await client.get("/admin/match-levels", headers=boss)).json()
    assert [lv["bot_level"] for lv in listed] == ["standard"] * 3  # unchanged, the default
    made = await client.put("/admin/match-levels/beginner", headers=boss,
                            json=beginner | {"bot_level": "expert"})
    assert made.status_code == 200 and made.json()["bot_level"] == "expert"

    sink, = _sockets(app, [ann_id])
    await queue(client, ann, "lishui", "beginner")
    await until(lambda: any(isinstance(m, SeatedMessage) for m in sink.messages), 15,
                "the bots' table")
    seated = await standing(client, ann)
    live = registry(app).get(str(seated["table_id"]))
    assert live is not None and len(live.bots) == 3
    assert live.bot_level == "expert"  # who plays the three bots
    table = (await client.get(f"/tables/{live.table_id}/players", headers=ann)).json()
    assert table["bot_level"] == "expert"
    await until(lambda: any(isinstance(m, TableStateMessage) and m.bot_level == "expert"
                            for m in sink.messages), 15, "the table's state with its level")


async def test_administrators_change_the_levels(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    _, boss = await admin(client, db)
    _, ann = await player(client, "ann")
    listed = await client.get("/admin/match-levels", headers=boss)
    assert listed.status_code == 200 and [lv["key"] for lv in listed.json()] == [
        "beginner", "intermediate", "advanced"
    ]
    assert_error(await client.get("/admin/match-levels", headers=ann), 403, "forbidden")
    royal = {"name_zh": "至尊场", "name_en": "Royal", "stake": 1000, "min_balance": 200000,
             "position": 3, "enabled": True}
    made = await client.put("/admin/match-levels/royal", json=royal, headers=boss)
    assert made.status_code == 200, made.text
    assert made.json() == {"key": "royal", "bot_level": "standard", **royal}
    assert [lv["key"] for lv in (await client.get("/quick-match/levels")).json()["levels"]][-1] == "royal"
    # a minimum below the table's own (100 x the stake) is refused
    cheap = await client.put("/admin/match-levels/royal", json=royal | {"min_balance": 99999},
                             headers=boss)
    assert_error(cheap, 422, "validation_error")
    for bad in ({**royal, "stake": "10"}, {**royal, "name_en": " "}, {**royal, "extra": 1}):
        assert_error(await client.put("/admin/match-levels/royal", json=bad, headers=boss), 422,
                     "validation_error")
    assert_error(await client.put("/admin/match-levels/Bad-Key", json=royal, headers=boss), 422,
                 "validation_error")
    assert_error(await client.put("/admin/match-levels/royal", json=royal, headers=ann), 403,
                 "forbidden")

    # closing a level: its queue is emptied, its players told why, and nobody queues there
    await queue(client, ann, "shanghai", "beginner")
    closed = await client.put("/admin/match-levels/beginner", headers=boss, json={
        "name_zh": "初级场", "name_en": "Beginner", "stake": 1, "min_balance": 100,
        "position": 0, "enabled": False,
    })
    assert closed.status_code == 200 and closed.json()["enabled"] is False
    await _until_state(app, client, ann, "idle", "level_closed")
    refused = await client.post("/quick-match", json={"variant": "lishui", "level": "beginner"},
                                headers=ann)
    assert_error(refused, 404, "not_found")
    assert "beginner" not in [lv["key"] for lv in (await client.get("/quick-match/levels")).json()["levels"]]
    async with db.sessions() as s:
        rows = (await s.execute(select(AuditLog.action, AuditLog.detail).order_by(AuditLog.id))).all()
    actions = [a for a, _ in rows]
    assert actions == ["view_match_levels", "set_match_level", "set_match_level"]
    before = json.loads(rows[-1][1])["before"]
    assert before["enabled"] is True and json.loads(rows[-1][1])["after"]["enabled"] is False


async def test_the_document_describes_quick_match_with_examples(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    paths, schemas = document["paths"], document["components"]["schemas"]
    join = paths["/quick-match"]["post"]
    assert "202" in join["responses"]
    assert set(join["responses"]["409"]["description"].split(", ")) == {
        "insufficient_balance", "seated_elsewhere", "match_forming", "in_tournament"
    }
    assert "match_forming" in paths["/quick-match"]["delete"]["responses"]["409"]["description"]
    assert {"get", "post", "delete"} <= set(paths["/quick-match"])
    assert "get" in paths["/quick-match/levels"]
    assert {"get"} <= set(paths["/admin/match-levels"]) and "put" in paths["/admin/match-levels/{key}"]
    for model in ("QuickMatchIn", "QuickMatchOut", "MatchLevelOut", "MatchLevelListedOut", "MatchLevelIn"):
        assert "example" in schemas[model], model
    out = schemas["QuickMatchOut"]["properties"]
    assert all(field.get("description") for field in out.values())
    state = out["state"]
    assert state["enum"] == ["idle", "queued", "matching", "seated"]
    assert len(state["x-enum-descriptions"]) == 4
