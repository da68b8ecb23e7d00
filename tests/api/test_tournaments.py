"""Tournaments over REST before any round (app/api/tournaments.py): an operator creates and
cancels events, anyone lists and reads them, players register and unregister with the fee
held by the event's account and paid back, every refusal changes nothing, and
GET /admin/silver explains every silver throughout."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.api.ratelimit import MemoryQuota
from app.store.db import Database
from app.store.models import LedgerEntry, Tournament
from tests.api.helpers import admin, assert_error, fund_house, player


def _body(**changes: Any) -> dict[str, Any]:
    start = datetime.now(UTC) + timedelta(hours=3)
    body: dict[str, Any] = {
        "name": "冬至杯", "variant": "lishui", "stake": 1, "fee": 500, "rake_bp": 1000,
        "seats": 8, "rounds": 3, "length": {"unit": "hands", "count": 8},
        "prize_shares": [50, 30, 20], "starts_at": start.isoformat(),
    }
    body.update(changes)
    return body


async def _silver(client: httpx.AsyncClient, boss: dict[str, str]) -> dict[str, int]:
    got = await client.get("/admin/silver", headers=boss)
    assert got.status_code == 200, got.text
    body = dict(got.json())
    assert body["total"] == body["house"] + body["players"] + body["bots"] + body["events"]
    assert body["unexplained"] == 0, body
    return body


async def _create(client: httpx.AsyncClient, boss: dict[str, str], **changes: Any
                  ) -> dict[str, Any]:
    made = await client.post("/admin/tournaments", json=_body(**changes), headers=boss)
    assert made.status_code == 201, made.text
    return dict(made.json())


async def _balance(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    return int((await client.get("/me", headers=headers)).json()["balance"])


async def _ledger_rows(db: Database) -> int:
    async with db.sessions() as s:
        return int((await s.execute(select(func.count()).select_from(LedgerEntry))).scalar_one())


async def test_an_operator_creates_an_event_with_a_committed_seed(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    _, ann = await player(client, "ann")
    made = await _create(client, boss, options={"follow_penalty": False})
    assert made["status"] == "open" and made["players"] == 0 and made["seed"] is None
    assert made["options"] == {"follow_penalty": False}
    assert made["pool"] == {"fees": 0, "rake": 0, "guarantee": 0, "total": 0}
    async with db.sessions() as s:
        stored = await s.get(Tournament, made["id"])
        assert stored is not None
    assert made["commitment"] == hashlib.sha256(bytes.fromhex(stored.seed)).hexdigest()
    read = await client.get(f"/tournaments/{made['id']}")  # anyone, signed out
    assert read.status_code == 200 and read.json()["registered"] is None
    assert read.json()["commitment"] == made["commitment"] and read.json()["seed"] is None
    assert (await client.get(f"/tournaments/{made['id']}", headers=ann)).json()[
        "registered"] is False
    assert_error(await client.post("/admin/tournaments", json=_body(), headers=ann),
                 403, "forbidden")
    assert_error(await client.get("/tournaments/999"), 404, "not_found")


async def test_bad_fields_make_nothing(client: httpx.AsyncClient, db: Database) -> None:
    _, boss = await admin(client, db)
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    naive = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None).isoformat()
    for bad in ({"seats": 10}, {"seats": 4}, {"seats": 260}, {"rounds": 9}, {"fee": "500"},
                {"fee": -1}, {"rake_bp": 10001}, {"prize_shares": []},
                {"prize_shares": [1] * 9}, {"prize_shares": [50, 0]}, {"name": "   "},
                {"name": "x" * 41}, {"starts_at": past}, {"starts_at": naive},
                {"variant": "mahjong"}, {"options": {"no_such_rule": True}},
                {"length": {"unit": "ban", "count": 5}}, {"surprise": 1}):
        refused = await client.post("/admin/tournaments", json=_body(**bad), headers=boss)
        assert_error(refused, 422, "validation_error")
    assert_error(await client.post("/admin/tournaments", json=_body(guarantee=5000),
                                   headers=boss), 503, "house_funds_low")
    assert (await client.get("/tournaments")).json() == []
    await fund_house(db, 5000)
    made = await _create(client, boss, guarantee=5000)
    assert made["pool"] == {"fees": 0, "rake": 0, "guarantee": 5000, "total": 5000}
    assert made["prizes"] == [2500, 1500, 1000]
    await _silver(client, boss)


async def test_lists_by_status_with_a_bounded_page(client: httpx.AsyncClient, db: Database
                                                   ) -> None:
    _, boss = await admin(client, db)
    _, ann = await player(client, "ann")
    soon = datetime.now(UTC) + timedelta(hours=1)
    later = await _create(client, boss, name="later", starts_at=(soon + timedelta(1)).isoformat())
    await _create(client, boss, name="first", starts_at=soon.isoformat())
    over = await _create(client, boss, name="over")
    await client.post(f"/admin/tournaments/{over['id']}/cancel", headers=boss)
    await client.post(f"/tournaments/{later['id']}/register", headers=ann)

    upcoming = (await client.get("/tournaments?status=upcoming", headers=ann)).json()
    assert [(t["name"], t["registered"]) for t in upcoming] == [("first", False),
                                                               ("later", True)]
    assert [t["name"] for t in (await client.get("/tournaments?limit=1&offset=1")).json()] == [
        "later"]
    assert [t["name"] for t in (await client.get("/tournaments?status=finished")).json()] == [
        "over"]
    assert (await client.get("/tournaments?status=running")).json() == []
    assert_error(await client.get("/tournaments?limit=51"), 422, "validation_error")
    assert_error(await client.get("/tournaments?status=soon"), 422, "validation_error")


async def test_registering_holds_the_fee_and_unregistering_returns_it(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    made = await _create(client, boss, fee=500, rake_bp=1000)
    url = f"/tournaments/{made['id']}/register"
    start = await _silver(client, boss)

    joined = await client.post(url, headers=ann)
    assert joined.status_code == 201, joined.text
    assert joined.json()["balance"] == 9500
    event = joined.json()["tournament"]
    assert (event["players"], event["registered"]) == (1, True)
    assert event["pool"] == {"fees": 500, "rake": 50, "guarantee": 0, "total": 450}
    assert event["prizes"] == [225, 135, 90]
    silver = await _silver(client, boss)
    assert (silver["events"], silver["players"], silver["total"]) == (
        500, start["players"] - 500, start["total"])

    rows = await _ledger_rows(db)
    assert_error(await client.post(url, headers=ann), 409, "already_registered")  # a retry
    assert await _ledger_rows(db) == rows and await _balance(client, ann) == 9500

    left = await client.delete(url, headers=ann)
    assert left.status_code == 200, left.text
    assert left.json()["balance"] == 10000 and left.json()["tournament"]["players"] == 0
    assert_error(await client.delete(url, headers=ann), 409, "not_registered")
    async with db.sessions() as s:
        mine = (await s.execute(select(LedgerEntry.delta, LedgerEntry.reason).where(
            LedgerEntry.account_id == ann_id).order_by(LedgerEntry.id))).all()
    assert [tuple(r) for r in mine] == [(10000, "signup_grant"), (-500, "tournament_fee"),
                                        (500, "tournament_refund")]
    assert (await _silver(client, boss))["events"] == 0


async def test_full_closed_and_unaffordable_change_nothing(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    made = await _create(client, boss, fee=2000, seats=8)
    url = f"/tournaments/{made['id']}/register"
    players = [await player(client, f"pl{i}") for i in range(9)]
    for _, headers in players[:8]:
        assert (await client.post(url, headers=headers)).status_code == 201
    late = players[8][1]
    assert_error(await client.post(url, headers=late), 409, "tournament_full")

    poor_id, poor = await player(client, "poor")
    async with db.sessions() as s, s.begin():
        from app.store import ledger
        await ledger.apply(s, poor_id, -9000, "admin_adjustment", "test:poor", note="spent")
    other = await _create(client, boss, fee=2000)
    assert_error(await client.post(f"/tournaments/{other['id']}/register", headers=poor),
                 409, "insufficient_balance")

    async with db.sessions() as s, s.begin():  # its start has come
        await s.execute(update(Tournament).where(Tournament.id == made["id"]).values(
            starts_at=datetime.now(UTC) - timedelta(seconds=1)))
    assert_error(await client.delete(url, headers=players[0][1]), 409, "registration_closed")
    assert_error(await client.post("/tournaments/77/register", headers=late), 404, "not_found")
    assert [await _balance(client, h) for _, h in (players[0], players[8])] == [8000, 10000]
    assert await _balance(client, poor) == 1000
    assert (await _silver(client, boss))["events"] == 16000


async def test_cancelling_refunds_everyone_once(client: httpx.AsyncClient, db: Database
                                                ) -> None:
    _, boss = await admin(client, db)
    made = await _create(client, boss, fee=700)
    players = [await player(client, f"pl{i}") for i in range(3)]
    for _, headers in players:
        await client.post(f"/tournaments/{made['id']}/register", headers=headers)
    assert (await _silver(client, boss))["events"] == 2100

    url = f"/admin/tournaments/{made['id']}/cancel"
    assert_error(await client.post(url, headers=players[0][1]), 403, "forbidden")
    cancelled = await client.post(url, headers=boss)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["refunded"] == 3
    assert cancelled.json()["tournament"]["status"] == "cancelled"
    rows = await _ledger_rows(db)
    again = await client.post(url, headers=boss)  # a retry: nothing moves
    assert again.status_code == 200 and again.json()["refunded"] == 0
    assert await _ledger_rows(db) == rows
    assert [await _balance(client, h) for _, h in players] == [10000] * 3
    assert_error(await client.post(f"/tournaments/{made['id']}/register", headers=players[0][1]),
                 409, "registration_closed")
    assert (await _silver(client, boss))["events"] == 0

    finished = await _create(client, boss)
    async with db.sessions() as s, s.begin():
        await s.execute(update(Tournament).where(Tournament.id == finished["id"]).values(
            status="finished"))
    assert_error(await client.post(f"/admin/tournaments/{finished['id']}/cancel", headers=boss),
                 409, "tournament_finished")
    assert_error(await client.post("/admin/tournaments/999/cancel", headers=boss),
                 404, "not_found")


async def test_registration_changes_are_rate_limited(
    client: httpx.AsyncClient, db: Database, app: FastAPI
) -> None:
    app.state.tournament_quota = MemoryQuota(3, 3600)
    _, boss = await admin(client, db)
    _, ann = await player(client, "ann")
    made = await _create(client, boss, fee=10)
    url = f"/tournaments/{made['id']}/register"
    assert (await client.post(url, headers=ann)).status_code == 201
    assert (await client.delete(url, headers=ann)).status_code == 200
    assert (await client.post(url, headers=ann)).status_code == 201
    refused = assert_error(await client.delete(url, headers=ann), 429, "rate_limited")
    assert refused["details"]["retry_after"] > 0
    assert await _balance(client, ann) == 9990  # still registered
