"""Administration (管理): admins only; adjustments with a reason through the ledger; bans;
an audit row for every action."""

from __future__ import annotations

import json
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.store import accounts, house
from app.store.db import Database
from app.store.models import Account, AuditLog, LedgerEntry
from app.tables.bans import CLOSE_BANNED
from app.tables.registry import TableRegistry
from tests.api.helpers import PASSWORD, admin, assert_error, fund_house, login, player
from tests.sinks import Sink


async def _audit(db: Database) -> list[tuple[int, str, int | None, dict[str, Any]]]:
    async with db.sessions() as s:
        rows = (await s.execute(select(AuditLog).order_by(AuditLog.id))).scalars().all()
    return [(r.admin_id, r.action, r.target_account_id, json.loads(r.detail)) for r in rows]


async def test_players_are_forbidden_and_strangers_unauthorized(
    client: httpx.AsyncClient, db: Database
) -> None:
    ann_id, headers = await player(client, "ann")
    calls = [
        ("GET", "/admin/accounts", None),
        ("GET", f"/admin/accounts/{ann_id}/ledger", None),
        ("POST", f"/admin/accounts/{ann_id}/adjust", {"delta": 5, "reason": "gift"}),
        ("POST", "/admin/house/adjust", {"delta": 5, "reason": "gift"}),
        ("GET", "/admin/silver", None),
        ("POST", f"/admin/accounts/{ann_id}/ban", None),
        ("POST", f"/admin/accounts/{ann_id}/unban", None),
    ]
    for method, url, body in calls:
        assert_error(
            await client.request(method, url, json=body, headers=headers), 403, "forbidden"
        )
        assert_error(await client.request(method, url, json=body), 401, "unauthorized")
    assert await _audit(db) == []


async def test_search_by_prefix_and_view_a_ledger(client: httpx.AsyncClient, db: Database) -> None:
    boss_id, headers = await admin(client, db)
    for name in ("Ann_1", "ann_2", "annex", "bob", "a_b"):
        await player(client, name)
    found = (await client.get("/admin/accounts", params={"q": "ANN_"}, headers=headers)).json()
    assert [a["username"] for a in found] == ["Ann_1", "ann_2"]  # _ is literal, any case
    assert (
        found[0]["balance"] == 10000
        and found[0]["role"] == "player"
        and found[0]["banned"] is False
    )
    everyone = (await client.get("/admin/accounts", params={"limit": 3}, headers=headers)).json()
    assert len(everyone) == 3
    ann_id = found[0]["id"]
    page = (await client.get(f"/admin/accounts/{ann_id}/ledger", headers=headers)).json()
    assert [e["reason"] for e in page["entries"]] == ["signup_grant"]
    assert_error(await client.get("/admin/accounts/9999/ledger", headers=headers), 404, "not_found")
    assert await _audit(db) == [
        (boss_id, "search_accounts", None, {"q": "ANN_", "limit": 20, "offset": 0, "found": 2}),
        (boss_id, "search_accounts", None, {"q": "", "limit": 3, "offset": 0, "found": 3}),
        (boss_id, "view_ledger", ann_id, {"limit": 20, "before": None}),
    ]


async def test_adjust_needs_a_reason_and_keeps_the_floor(
    client: httpx.AsyncClient, db: Database
) -> None:
    boss_id, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    url = f"/admin/accounts/{ann_id}/adjust"
    headers = {**boss, "Idempotency-Key": "refund-1"}
    done = await client.post(
        url, json={"delta": -2500, "reason": " refund of a double grant "}, headers=headers
    )
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["balance"] == 7500 and body["entry"]["delta"] == -2500
    assert body["entry"]["reason"] == "admin_adjustment"
    assert body["entry"]["note"] == "refund of a double grant"
    short = await client.post(url, json={"delta": -7501, "reason": "too much"},
                              headers={**boss, "Idempotency-Key": "too-much"})
    assert_error(short, 409, "insufficient_balance")
    missing = await client.post(
        "/admin/accounts/9999/adjust", json={"delta": 5, "reason": "x"},
        headers={**boss, "Idempotency-Key": "nobody"},
    )
    assert_error(missing, 404, "not_found")
    me = (await client.get("/me", headers=ann)).json()
    assert me["balance"] == 7500
    async with db.sessions() as s:
        rows = (
            (await s.execute(select(LedgerEntry).where(LedgerEntry.account_id == ann_id)))
            .scalars()
            .all()
        )
    assert [r.delta for r in rows] == [10000, -2500]
    assert rows[1].idempotency_key == f"admin:{boss_id}:key:refund-1"
    audit = await _audit(db)
    assert audit == [
        (
            boss_id,
            "adjust",
            ann_id,
            {
                "delta": -2500,
                "reason": "refund of a double grant",
                "ledger_id": rows[1].id,
                "balance_after": 7500,
                "idempotency_key": "refund-1",
            },
        ),
    ]


async def test_reasonless_adjustments_name_the_field(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    ann_id, _ = await player(client, "ann")
    url = f"/admin/accounts/{ann_id}/adjust"
    headers = {**boss, "Idempotency-Key": "k"}
    for bad, field in (
        ({"delta": 100}, "reason"),
        ({"delta": 100, "reason": "  "}, "reason"),
        ({"delta": 0, "reason": "nothing"}, "delta"),
        ({"delta": 1.5, "reason": "half"}, "delta"),
        ({"delta": "100", "reason": "text"}, "delta"),
        ({"delta": 10**13, "reason": "a fortune"}, "delta"),
    ):
        error = assert_error(
            await client.post(url, json=bad, headers=headers), 422, "validation_error"
        )
        assert error["details"][0]["loc"] == ["body", field], (bad, error)


async def test_ban_and_unban(client: httpx.AsyncClient, db: Database) -> None:
    boss_id, headers = await admin(client, db)
    ann_id, _ = await player(client, "ann")
    tokens = await login(client, "ann")
    ann = {"Authorization": f"Bearer {tokens['access_token']}"}
    banned = await client.post(
        f"/admin/accounts/{ann_id}/ban", json={"reason": "collusion"}, headers=headers
    )
    assert banned.status_code == 200 and banned.json()["banned"] is True
    assert_error(await client.get("/me", headers=ann), 403, "banned")
    refresh = await client.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    assert_error(refresh, 401, "unauthorized")
    relog = await client.post("/auth/login", json={"username": "ann", "password": PASSWORD})
    assert_error(relog, 403, "banned")
    wrong = await client.post("/auth/login", json={"username": "ann", "password": "wrong password"})
    assert_error(wrong, 401, "bad_credentials")  # a ban is only told to the password's owner
    async with db.sessions() as s, s.begin():
        assert await accounts.is_banned(s, ann_id) and await accounts.is_banned(s, 9999)
        assert not await accounts.is_banned(s, boss_id)
    board = (await client.get("/leaderboards/silver")).json()
    assert [r["username"] for r in board["rows"]] == ["boss"]

    unbanned = await client.post(f"/admin/accounts/{ann_id}/unban", headers=headers)
    assert unbanned.status_code == 200 and unbanned.json()["banned"] is False
    again = await login(client, "ann")
    assert (
        await client.get("/me", headers={"Authorization": f"Bearer {again['access_token']}"})
    ).status_code == 200

    assert_error(
        await client.post(f"/admin/accounts/{boss_id}/ban", headers=headers), 403, "forbidden"
    )
    assert_error(await client.post("/admin/accounts/9999/ban", headers=headers), 404, "not_found")
    assert await _audit(db) == [
        # two logins (one in `player`), two refresh tokens revoked
        (boss_id, "ban", ann_id, {"reason": "collusion", "was_banned": False, "revoked_tokens": 2}),
        (boss_id, "unban", ann_id, {"reason": None, "was_banned": True, "revoked_tokens": 0}),
    ]


async def test_a_demoted_admin_loses_access_at_once(
    client: httpx.AsyncClient, db: Database
) -> None:
    boss_id, headers = await admin(client, db)
    assert (await client.get("/admin/accounts", headers=headers)).status_code == 200
    async with db.sessions() as s, s.begin():
        account = await s.get(Account, boss_id)
        assert account is not None
        account.role = "player"
    assert_error(await client.get("/admin/accounts", headers=headers), 403, "forbidden")


async def test_a_ban_reaches_the_live_session(
    client: httpx.AsyncClient, db: Database, app: FastAPI
) -> None:
    """The banned account's socket closes at once (4004) and its seat is freed between
    hands; the other players keep theirs."""
    _, headers = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    bob_id, bob = await player(client, "bob")
    table = (await client.post("/tables", json={"variant": "lishui", "stake": 1},
                               headers=ann)).json()
    registry: TableRegistry = app.state.tables
    sockets = {ann_id: Sink(), bob_id: Sink()}
    for account, h in ((ann_id, ann), (bob_id, bob)):
        registry.connections.connect(account, sockets[account])
        assert (await client.post(f"/tables/{table['id']}/sit", headers=h)).status_code == 200

    banned = await client.post(f"/admin/accounts/{ann_id}/ban", headers=headers)
    assert banned.status_code == 200, banned.text
    assert sockets[ann_id].closed == CLOSE_BANNED == 4004
    assert sockets[bob_id].closed is None
    listed = (await client.get("/tables", headers=bob)).json()
    assert listed[0]["seats"] == [None, bob_id, None, None]


async def test_ids_and_offsets_past_the_databases_range_are_refused_not_failed(
    client: httpx.AsyncClient, db: Database
) -> None:
    """A 422, not a driver's overflow answered as a 500; the largest id is just not found."""
    _, boss = await admin(client, db)
    _, ann = await player(client, "ann")
    for path in ("/admin/accounts/9223372036854775808/ledger", "/admin/accounts/0/ledger"):
        assert_error(await client.get(path, headers=boss), 422, "validation_error")
    for verb in ("ban", "unban"):
        refused = await client.post(f"/admin/accounts/{2**63}/{verb}", headers=boss)
        assert_error(refused, 422, "validation_error")
    refused = await client.get("/admin/accounts", params={"offset": 2**63}, headers=boss)
    assert_error(refused, 422, "validation_error")
    missing = await client.get(f"/admin/accounts/{2**63 - 1}/ledger", headers=boss)
    assert_error(missing, 404, "not_found")
    refused = await client.get("/me/ledger", params={"before": 2**63}, headers=ann)
    assert_error(refused, 422, "validation_error")
    oldest = await client.get("/me/ledger", params={"before": 2**63 - 1}, headers=ann)
    assert oldest.status_code == 200 and len(oldest.json()["entries"]) == 1, oldest.text


async def test_text_with_a_nul_character_is_refused_on_every_backend(
    client: httpx.AsyncClient, db: Database
) -> None:
    """PostgreSQL cannot store or compare U+0000 (its driver failed: a 500); SQLite could:
    both refuse it as a validation_error, and nothing is written."""
    _, boss = await admin(client, db)
    ann_id, _ = await player(client, "ann")
    assert_error(await client.get("/accounts/ann%00"), 422, "validation_error")
    assert_error(await client.get("/hands/h%00/replay", headers=boss), 422, "validation_error")
    login = await client.post("/auth/login", json={"username": "ann\x00", "password": PASSWORD})
    assert_error(login, 422, "validation_error")
    adjusted = await client.post(
        f"/admin/accounts/{ann_id}/adjust",
        json={"delta": 5, "reason": "a\x00b"},
        headers={**boss, "Idempotency-Key": "nul"},
    )
    assert_error(adjusted, 422, "validation_error")
    async with db.sessions() as s:
        deltas = (
            await s.execute(select(LedgerEntry.delta).where(LedgerEntry.account_id == ann_id))
        ).scalars().all()
    assert list(deltas) == [10000]


async def test_the_house_account_stays_banned_and_off_the_leaderboard(
    client: httpx.AsyncClient, db: Database
) -> None:
    """Unbanning it put the bots' bank (its float) at the top of the silver leaderboard."""
    _, boss = await admin(client, db)
    await fund_house(db)
    async with db.sessions() as s, s.begin():
        house_id = await house.account_id(s)
    for verb in ("unban", "ban"):
        refused = await client.post(f"/admin/accounts/{house_id}/{verb}", headers=boss)
        assert_error(refused, 403, "forbidden")
    board = (await client.get("/leaderboards/silver")).json()
    assert [r["username"] for r in board["rows"]] == ["boss"]
