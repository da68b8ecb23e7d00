"""Admin table management and hand replays: admins only; no tile shown without a reason;
pause, resume, kick, dissolve (no silver moves), the test-mode table, and replays that show
each viewer only what they may see."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.protocol import ErrorMessage, EventMessage, PromptMessage
from app.rules.actions import Discard
from app.rules.hand import legal_actions, pending_seats
from app.rules.tiles import parse
from app.rules.views import seat_view
from app.settings import Settings
from app.store.db import Database
from app.store.models import AuditLog, HandRecord, LedgerEntry
from app.tables.messages import PlayerAction
from app.tables.registry import LiveTable, TableRegistry
from tests.api.helpers import admin, assert_error, player
from tests.sinks import LONG, Sink

NAMES = ("ann", "bob", "cat", "dan")


@dataclass
class Game:
    table_id: str
    ids: list[int]
    headers: list[dict[str, str]]
    live: LiveTable
    registry: TableRegistry


async def _audit(db: Database) -> list[tuple[str, dict[str, Any]]]:
    async with db.sessions() as s:
        rows = (await s.execute(select(AuditLog).order_by(AuditLog.id))).scalars().all()
    return [(r.action, json.loads(r.detail)) for r in rows]


async def _dealt(live: LiveTable) -> None:
    """Wait for the table's first hand (the actor deals on its next tick)."""
    for _ in range(400):
        if live.table.hand is not None:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("no hand was dealt")


async def _sit_four(client: httpx.AsyncClient, app: FastAPI, table_id: str) -> Game:
    ids, headers = [], []
    for name in NAMES:
        account, h = await player(client, name)
        sat = await client.post(f"/tables/{table_id}/sit", headers=h)
        assert sat.status_code == 200, sat.text
        ids.append(account)
        headers.append(h)
    registry: TableRegistry = app.state.tables
    live = registry.get(table_id)
    assert live is not None
    await _dealt(live)
    return Game(table_id, ids, headers, live, registry)


async def _game(client: httpx.AsyncClient, app: FastAPI) -> Game:
    """Four players at a 丽水 table with long timers, their first hand dealt."""
    _, h = await player(client, "host")
    opened = await client.post("/tables", json={"variant": "lishui", "stake": 1, "timers": LONG},
                               headers=h)
    assert opened.status_code == 201, opened.text
    return await _sit_four(client, app, opened.json()["id"])


def _turn(game: Game) -> tuple[int, Discard]:
    """The seat whose turn it is and a discard it may make."""
    state = game.live.table.hand
    assert state is not None
    seat = pending_seats(state)[0]
    discard = next(a for a in legal_actions(state, seat) if isinstance(a, Discard))
    return seat, discard


async def test_players_are_forbidden_everywhere(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    h = game.headers[0]
    base = f"/admin/tables/{game.table_id}"
    calls = [
        ("GET", "/admin/tables", None),
        ("GET", base, None),
        ("GET", base + "?reveal=true&reason=curious", None),
        ("POST", base + "/pause", None),
        ("POST", base + "/resume", None),
        ("POST", base + "/kick", {"seat": 1}),
        ("POST", base + "/dissolve", None),
        ("POST", "/admin/tables/test", {"variant": "lishui", "stake": 1, "hands": ["1m"] * 4}),
    ]
    for method, url, body in calls:
        assert_error(await client.request(method, url, json=body, headers=h), 403, "forbidden")
        assert_error(await client.request(method, url, json=body), 401, "unauthorized")
    assert await _audit(db) == []
    assert game.live.accounts() == game.ids and not game.live.table.paused


async def test_list_and_inspect_hide_tiles_unless_revealed_with_a_reason(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    _, h = await admin(client, db)
    listed = (await client.get("/admin/tables", headers=h)).json()
    assert len(listed) == 1
    table = listed[0]
    assert table["id"] == game.table_id and table["variant"] == "lishui" and table["stake"] == 1
    assert [s["username"] for s in table["seats"]] == list(NAMES)
    assert [s["account_id"] for s in table["seats"]] == game.ids
    assert table["status"] == "playing" and table["paused"] is False
    assert table["hand_id"] == game.live.table.hand_id

    url = f"/admin/tables/{game.table_id}"
    hidden = (await client.get(url, headers=h)).json()
    assert hidden["revealed"] is False
    assert [s["hand"] for s in hidden["view"]["seats"]] == [None] * 4
    assert sorted(s["hand_count"] for s in hidden["view"]["seats"]) == [13, 13, 13, 14]

    assert_error(await client.get(url, params={"reveal": "true"}, headers=h), 422,
                 "validation_error")
    assert_error(await client.get(url, params={"reveal": "true", "reason": "  "}, headers=h), 422,
                 "validation_error")
    shown = (await client.get(url, params={"reveal": "true", "reason": "collusion report"},
                              headers=h)).json()
    state = game.live.table.hand
    assert state is not None
    assert shown["revealed"] is True
    for seat in range(4):
        assert shown["view"]["seats"][seat]["hand"] == seat_view(state, seat)["seats"][seat]["hand"]
        assert shown["view"]["seats"][seat]["hand"] is not None

    rows = await _audit(db)
    assert [action for action, _ in rows] == ["list_tables", "inspect_table", "reveal_table"]
    assert rows[2][1]["reason"] == "collusion report"
    assert rows[2][1]["table_id"] == game.table_id
    assert_error(await client.get("/admin/tables/nope", headers=h), 404, "not_found")


async def test_pause_refuses_actions_and_resume_continues(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    _, h = await admin(client, db)
    seat, discard = _turn(game)
    sink = Sink()
    game.registry.connections.connect(game.ids[seat], sink)

    paused = await client.post(f"/admin/tables/{game.table_id}/pause", headers=h)
    assert paused.status_code == 200, paused.text
    assert paused.json()["paused"] is True
    seq = game.live.table.seq
    game.registry.require(game.table_id).table.submit(PlayerAction(seat, discard, seq))
    await game.registry.require(game.table_id).flush()
    errors = [m for m in sink.messages if isinstance(m, ErrorMessage)]
    assert len(errors) == 1 and errors[0].code == "paused"
    assert game.live.table.seq == seq  # nothing happened

    resumed = await client.post(f"/admin/tables/{game.table_id}/resume", headers=h)
    assert resumed.json()["paused"] is False
    game.registry.require(game.table_id).table.submit(PlayerAction(seat, discard, seq))
    await game.registry.require(game.table_id).flush()
    assert game.live.table.seq > seq  # the discard went through
    assert [a for a, _ in await _audit(db)] == ["pause_table", "resume_table"]


async def test_kick_during_a_hand_is_an_escape_then_frees_the_seat(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    _, h = await admin(client, db)
    hand_id = game.live.table.hand_id
    kicked = await client.post(f"/admin/tables/{game.table_id}/kick", json={"seat": 2},
                               headers=h)
    assert kicked.status_code == 200, kicked.text
    assert kicked.json()["kicked_account_id"] == game.ids[2]
    assert kicked.json()["table"]["seats"][2]["account_id"] is None
    assert game.live.accounts() == [game.ids[0], game.ids[1], None, game.ids[3]]
    async with db.sessions() as s:
        record = await s.get(HandRecord, hand_id)
        assert record is not None and not record.voided
        assert json.loads(record.actions)[-1] == {"seat": 2, "action": {"type": "escape"}}
        rows = (await s.execute(
            select(LedgerEntry).where(LedgerEntry.hand_id == hand_id)
        )).scalars().all()
    by_account = {r.account_id: r.delta for r in rows}
    assert by_account[game.ids[2]] < 0  # the escape is paid by the kicked player
    assert sum(by_account.values()) == 0
    audit_rows = await _audit(db)
    assert audit_rows[-1][0] == "kick" and audit_rows[-1][1]["escape"] is True
    assert_error(await client.post(f"/admin/tables/{game.table_id}/kick", json={"seat": 2},
                                   headers=h), 404, "not_found")


async def test_dissolve_voids_the_hand_and_frees_every_seat(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    _, h = await admin(client, db)
    seat, discard = _turn(game)
    game.registry.require(game.table_id).table.submit(
        PlayerAction(seat, discard, game.live.table.seq))
    hand_id = game.live.table.hand_id

    done = await client.post(f"/admin/tables/{game.table_id}/dissolve", headers=h)
    assert done.status_code == 200, done.text
    assert done.json() == {"table_id": game.table_id, "voided_hand_id": hand_id}
    assert game.live.accounts() == [None] * 4
    assert (await client.get("/admin/tables", headers=h)).json() == []
    async with db.sessions() as s:
        record = await s.get(HandRecord, hand_id)
        assert record is not None and record.voided
        assert len(json.loads(record.actions)) == 1
        rows = (await s.execute(
            select(LedgerEntry).where(LedgerEntry.hand_id == hand_id)
        )).scalars().all()
    assert rows == []
    for headers in game.headers:  # nobody lost or won silver
        me = (await client.get("/me", headers=headers)).json()
        assert me["balance"] == 10000
    # every player may sit elsewhere at once
    again = await client.post("/tables", json={"variant": "lishui", "stake": 1},
                              headers=game.headers[0])
    sat = await client.post(f"/tables/{again.json()['id']}/sit", headers=game.headers[0])
    assert sat.status_code == 200, sat.text


async def test_test_table_is_refused_when_test_mode_is_off(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, h = await admin(client, db)
    body = {"variant": "lishui", "stake": 1, "hands": ["1m"] * 4}
    assert_error(await client.post("/admin/tables/test", json=body, headers=h), 404, "not_found")


async def test_test_table_deals_exactly_the_arranged_hands(
    client: httpx.AsyncClient, app: FastAPI, db: Database, settings: Settings
) -> None:
    app.state.settings = settings.model_copy(update={"test_mode": True})
    _, h = await admin(client, db)
    hands = [
        "147m258p369s12345z",  # the dealer: 14 tiles
        "123456789m1234p",
        "123456789s5678p",
        "5789m999p888s667z",
    ]
    body = {"variant": "lishui", "stake": 1, "hands": hands, "draws": "9p", "dealer": 0,
            "dice": [3, 4], "timers": {"discard": 90, "claim": 45}}
    bad = await client.post("/admin/tables/test", json={**body, "hands": ["1m"] * 4}, headers=h)
    assert_error(bad, 422, "validation_error")
    for indicator in ("", "6z7z"):  # one tile or none (null); "" was a 500
        bad = await client.post(
            "/admin/tables/test", json={**body, "indicator": indicator}, headers=h
        )
        assert_error(bad, 422, "validation_error")
    made = await client.post("/admin/tables/test", json=body, headers=h)
    assert made.status_code == 201, made.text
    game = await _sit_four(client, app, made.json()["id"])
    state = game.live.table.hand
    assert state is not None
    assert state.dealer == 0
    for seat in range(4):
        own = seat_view(state, seat)["seats"][seat]["hand"]
        assert sorted(own) == sorted(parse(hands[seat])), seat
    assert pending_seats(state) == [0]  # the dealer (14 tiles) discards first
    timers = game.live.table.timers
    assert (timers.discard, timers.claim, timers.decide) == (90, 45, 8)  # the rest: the house's
    sink = Sink()
    game.registry.connections.connect(game.ids[0], sink)  # the hand so far comes with the connection
    await game.registry.require(game.table_id).flush()
    dealt = [m.event for m in sink.messages if isinstance(m, EventMessage)
             and m.event.kind == "dealt"]
    assert [(e.seat, e.tiles is not None) for e in dealt] == [  # type: ignore[union-attr]
        (0, True), (1, False), (2, False), (3, False)
    ]
    prompt = next(m for m in sink.messages if isinstance(m, PromptMessage))
    discards = {a.tile for a in prompt.legal_actions if a.type == "discard"}  # type: ignore[union-attr]
    assert discards == {"1m", "4m", "7m", "2p", "5p", "8p", "3s", "6s", "9s",
                        "1z", "2z", "3z", "4z", "5z"}
    assert [a for a, _ in await _audit(db)] == ["create_test_table"]


async def test_test_table_turns_the_arranged_indicator_in_huzhou(
    client: httpx.AsyncClient, app: FastAPI, db: Database, settings: Settings
) -> None:
    """湖州 turns the first front tile after the deal (前导牌): the arranged `indicator`, with
    the arranged `draws` after it; 上海 turns none, so one is refused."""
    app.state.settings = settings.model_copy(update={"test_mode": True})
    _, h = await admin(client, db)
    hands = ["123456789m1234p9m", "123456789p5678s", "123456789s1234m", "5678m5678p12345s"]
    body = {"variant": "huzhou", "stake": 1, "hands": hands, "draws": "7z", "indicator": "3z",
            "wild_dice": [4, 5]}
    made = await client.post("/admin/tables/test", json=body, headers=h)
    assert made.status_code == 201, made.text
    game = await _sit_four(client, app, made.json()["id"])
    state = game.live.table.hand
    assert state is not None
    assert (state.wild.indicator, state.wild.wild) == (parse("3z")[0], parse("4z")[0])
    assert state.wall.draw_front()[0] == parse("7z")[0]
    refused = await client.post("/admin/tables/test", headers=h,
                                json={**body, "variant": "shanghai"})
    assert "turns no indicator" in assert_error(refused, 422, "validation_error")["message"]


async def test_replay_for_admin_player_and_outsider(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    game = await _game(client, app)
    _, h = await admin(client, db)
    _, outsider = await player(client, "eve")
    seat, discard = _turn(game)
    game.registry.require(game.table_id).table.submit(
        PlayerAction(seat, discard, game.live.table.seq))
    hand_id = game.live.table.hand_id
    kicked = await client.post(f"/admin/tables/{game.table_id}/kick", json={"seat": 3},
                               headers=h)
    assert kicked.status_code == 200

    full = await client.get(f"/hands/{hand_id}/replay", headers=h)
    assert full.status_code == 200, full.text
    body = full.json()
    assert body["seat"] is None and body["seats"] == game.ids and body["voided"] is False
    dealt = [e for e in body["events"] if e["kind"] == "dealt"]
    assert len(dealt) == 4 and all(e["tiles"] is not None for e in dealt)
    assert any(e["kind"] == "discarded" for e in body["events"])

    mine = (await client.get(f"/hands/{hand_id}/replay", headers=game.headers[1])).json()
    assert mine["seat"] == 1
    own = {e["seat"]: e["tiles"] for e in mine["events"] if e["kind"] == "dealt"}
    assert own[1] is not None and own[0] is None and own[2] is None and own[3] is None
    assert len(mine["events"]) == len(body["events"])

    assert_error(await client.get(f"/hands/{hand_id}/replay", headers=outsider), 403,
                 "forbidden")
    assert_error(await client.get("/hands/nope/replay", headers=h), 404, "not_found")
    assert_error(await client.get(f"/hands/{hand_id}/replay"), 401, "unauthorized")
