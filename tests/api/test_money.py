"""Silver is never minted, lost or charged twice by the lobby and the admin API: bots are
house players funded from the house account, the supply is a figure the admin API reports,
per-account limits stop a flood of tables and bots, an adjustment's idempotency key makes a
retry harmless, and money fields take whole numbers only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from sqlalchemy import func, select

from app.api import house_bots
from app.main import create_app
from app.settings import Settings
from app.store.db import Database
from app.store.models import Account, AuditLog, HandRecord, LedgerEntry
from tests.api.helpers import admin, assert_error, fund_house, player


@asynccontextmanager
async def _server(settings: Settings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app made with these settings changed."""
    application = create_app(settings.model_copy(update=changes))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http


async def _open(http: httpx.AsyncClient, headers: dict[str, str], stake: int = 1) -> str:
    created = await http.post("/tables", json={"variant": "lishui", "stake": stake},
                              headers=headers)
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def _sit(http: httpx.AsyncClient, headers: dict[str, str], table_id: str) -> None:
    sat = await http.post(f"/tables/{table_id}/sit", headers=headers)
    assert sat.status_code == 200, sat.text


async def _table(http: httpx.AsyncClient, headers: dict[str, str], table_id: str) -> dict | None:
    listed = (await http.get("/tables", headers=headers)).json()
    return next((t for t in listed if t["id"] == table_id), None)


async def _until(check: Callable[[], Any], seconds: float = 10) -> None:
    async with asyncio.timeout(seconds):
        while not await check():
            await asyncio.sleep(0.02)


async def _silver(http: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, int]:
    got = await http.get("/admin/silver", headers=headers)
    assert got.status_code == 200, got.text
    body = dict(got.json())
    assert body["total"] == body["house"] + body["players"] + body["bots"] + body["events"], body
    assert body["total"] == body["grants"] + body["adjustments"] + body["rewards"], body
    assert body["unexplained"] == 0, body
    return body


async def _hands(db: Database, table_id: str) -> int:
    async with db.sessions() as s:
        return int((await s.execute(
            select(func.count()).select_from(HandRecord).where(HandRecord.table_id == table_id)
        )).scalar_one())


async def _bot_accounts(db: Database) -> int:
    async with db.sessions() as s:
        return int((await s.execute(
            select(func.count()).select_from(Account).where(Account.username.startswith("bot-"))
        )).scalar_one())


# --- C: money fields ---------------------------------------------------------------------


async def test_money_fields_take_whole_numbers_only(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    for stake in ("10", 10.0, True, 1.5, "ten", None):
        refused = await client.post("/tables", json={"variant": "lishui", "stake": stake},
                                    headers=ann)
        error = assert_error(refused, 422, "validation_error")
        assert error["details"][0]["loc"] == ["body", "stake"], (stake, error)
    assert (await client.get("/tables", headers=ann)).json() == []  # nothing was opened

    url = f"/admin/accounts/{ann_id}/adjust"
    for delta in ("10", 10.0, True, False):
        refused = await client.post(url, json={"delta": delta, "reason": "x"},
                                    headers={**boss, "Idempotency-Key": f"strict-{delta!r}"})
        error = assert_error(refused, 422, "validation_error")
        assert error["details"][0]["loc"] == ["body", "delta"], (delta, error)
    assert (await client.get("/me", headers=ann)).json()["balance"] == 10000


async def test_a_test_table_stake_is_a_whole_number(settings: Settings, db: Database) -> None:
    async with _server(settings, test_mode=True) as http:
        _, boss = await admin(http, db)
        body = {"variant": "lishui", "dealer": 0, "hands": ["1m", "1m", "1m", "1m"]}
        for stake in ("2", 2.0, True):
            refused = await http.post("/admin/tables/test", json={**body, "stake": stake},
                                      headers=boss)
            error = assert_error(refused, 422, "validation_error")
            assert [d["loc"] for d in error["details"]] == [["body", "stake"]], error


# --- B: the adjustment's idempotency key --------------------------------------------------


async def test_a_repeated_adjustment_key_writes_one_row(
    client: httpx.AsyncClient, db: Database
) -> None:
    boss_id, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    bob_id, _ = await player(client, "bob")
    url = f"/admin/accounts/{ann_id}/adjust"
    keyed = {**boss, "Idempotency-Key": "refund-2026-11-29-ann"}
    body = {"delta": 500, "reason": "goodwill"}

    first = await client.post(url, json=body, headers=keyed)
    assert first.status_code == 200, first.text
    assert first.json()["balance"] == 10500
    assert "Idempotent-Replayed" not in first.headers
    again = await client.post(url, json=body, headers=keyed)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()  # the first entry, as first answered
    assert again.headers["Idempotent-Replayed"] == "true"
    # sent twice at the same moment: still one row
    both = await asyncio.gather(*(
        client.post(url, json={"delta": 7, "reason": "twins"},
                    headers={**boss, "Idempotency-Key": "twins"})
        for _ in range(2)
    ))
    assert [r.status_code for r in both] == [200, 200]
    assert both[0].json()["entry"]["id"] == both[1].json()["entry"]["id"]

    # the same key with another body, or for another account: refused, nothing written
    changed = await client.post(url, json={"delta": 600, "reason": "goodwill"}, headers=keyed)
    error = assert_error(changed, 409, "idempotency_conflict")
    assert error["details"] == {"entry_id": first.json()["entry"]["id"]}
    elsewhere = await client.post(f"/admin/accounts/{bob_id}/adjust", json=body, headers=keyed)
    assert_error(elsewhere, 409, "idempotency_conflict")
    # no key: refused (a money change is always retry-safe)
    missing = assert_error(await client.post(url, json=body, headers=boss), 422,
                           "validation_error")
    assert missing["details"][0]["loc"] == ["header", "Idempotency-Key"]
    too_long = {**boss, "Idempotency-Key": "k" * 65}
    assert_error(await client.post(url, json=body, headers=too_long), 422, "validation_error")

    async with db.sessions() as s:
        rows = list((await s.execute(
            select(LedgerEntry.delta).where(LedgerEntry.account_id.in_([ann_id, bob_id]))
            .order_by(LedgerEntry.id)
        )).scalars())
        adjusts = (await s.execute(
            select(func.count()).select_from(AuditLog).where(AuditLog.action == "adjust")
        )).scalar_one()
    assert rows == [10000, 10000, 500, 7]
    assert adjusts == 2  # a replay writes nothing, the audit log included
    assert (await client.get("/me", headers=ann)).json()["balance"] == 10507
    assert boss_id != ann_id


# --- A: house bots ------------------------------------------------------------------------


async def test_bots_are_funded_by_the_house_or_not_seated(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, boss = await admin(client, db)
    ann_id, ann = await player(client, "ann")
    start = await _silver(client, boss)
    assert start["house"] == 0 and start["bots"] == 0 and start["grants"] == 20000
    assert start["total"] == 20000

    table_id = await _open(client, ann, stake=5)  # bots need 500 each
    await _sit(client, ann, table_id)
    fill = f"/tables/{table_id}/fill-bots"
    error = assert_error(await client.post(fill, headers=ann), 503, "house_funds_low")
    assert error["details"] == {"needed": 1500, "house": 0}
    table = await _table(client, ann, table_id)
    assert table is not None and table["seats"] == [ann_id, None, None, None]
    assert await _bot_accounts(db) == 0

    funded = await client.post("/admin/house/adjust", json={"delta": 1000, "reason": "float"},
                               headers={**boss, "Idempotency-Key": "float-1"})
    assert funded.status_code == 200, funded.text
    assert funded.json()["balance"] == 1000
    assert_error(await client.post(fill, headers=ann), 503, "house_funds_low")
    await client.post("/admin/house/adjust", json={"delta": 10000, "reason": "float"},
                      headers={**boss, "Idempotency-Key": "float-2"})

    filled = await client.post(fill, headers=ann)
    assert filled.status_code == 200, filled.text
    for n in (1, 2, 3):
        assert (await client.get(f"/accounts/bot-{n}")).json()["balance"] == 500
    silver = await _silver(client, boss)
    assert silver["house"] == 11000 - 1500 and silver["bots"] == 1500
    assert silver["total"] == 20000 + 11000 and silver["adjustments"] == 11000
    assert silver["grants"] == 20000 and silver["bot_accounts"] == 3
    async with db.sessions() as s:
        reasons = list((await s.execute(
            select(LedgerEntry.reason, func.sum(LedgerEntry.delta))
            .group_by(LedgerEntry.reason).order_by(LedgerEntry.reason)
        )).all())
    assert [tuple(r) for r in reasons] == [
        ("admin_adjustment", 11000), ("house_funding", 0), ("signup_grant", 20000)
    ]
    # the house's funds are the operator's business: no public profile
    assert_error(await client.get("/accounts/house-bank"), 404, "not_found")


async def test_the_pool_is_bounded_and_reused(settings: Settings, db: Database) -> None:
    async with _server(settings, bot_pool_size=3) as http:
        _, boss = await admin(http, db)
        await fund_house(db)
        ann_id, ann = await player(http, "ann")
        _, bob = await player(http, "bob")
        first = await _open(http, ann)
        await _sit(http, ann, first)
        assert (await http.post(f"/tables/{first}/fill-bots", headers=ann)).status_code == 200
        second = await _open(http, bob)
        await _sit(http, bob, second)
        refused = await http.post(f"/tables/{second}/fill-bots", headers=bob)
        assert_error(refused, 503, "no_bots_free")
        assert (await _table(http, bob, second) or {})["seats_taken"] == 1
        assert await _bot_accounts(db) == 3

        # ann gets up: only bots sit at her table, so its bots go to bob's table
        assert (await http.post(f"/tables/{first}/leave", headers=ann)).status_code == 200

        async def ann_gone() -> bool:
            table = await _table(http, ann, first)
            return table is None or ann_id not in table["seats"]

        await _until(ann_gone)
        filled = await http.post(f"/tables/{second}/fill-bots", headers=bob)
        assert filled.status_code == 200, filled.text
        assert filled.json()["seats_taken"] == 4
        assert await _table(http, bob, first) is None  # the abandoned table was closed
        assert await _bot_accounts(db) == 3
        await _silver(http, boss)


async def test_limits_on_open_tables_and_bot_seats(settings: Settings, db: Database) -> None:
    async with _server(settings, max_open_tables=2, bot_seats_per_hour=3) as http:
        await fund_house(db)
        ann_id, ann = await player(http, "ann")
        _, bob = await player(http, "bob")
        _, cat = await player(http, "cat")
        mine = [await _open(http, ann), await _open(http, ann)]
        await _sit(http, ann, mine[0])
        await _sit(http, bob, mine[1])
        error = assert_error(await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                             headers=ann), 409, "too_many_tables")
        assert error["details"] == {"limit": 2}
        await _open(http, bob)  # the limit is per account

        # bob gets up: his seat was the last player's at ann's second table, which is closed
        # when ann opens another
        assert (await http.post(f"/tables/{mine[1]}/leave", headers=bob)).status_code == 200
        third = await _open(http, ann)
        assert await _table(http, ann, mine[1]) is None
        assert await _table(http, ann, third) is not None

        # 3 bot seats an hour: the first fill takes them all
        assert (await http.post(f"/tables/{mine[0]}/fill-bots", headers=ann)).status_code == 200
        await _sit(http, cat, third)
        cats = await http.post(f"/tables/{third}/fill-bots", headers=cat)
        assert cats.status_code == 200, cats.text  # the limit is per account
        assert (await http.post(f"/tables/{mine[0]}/leave", headers=ann)).status_code == 200

        async def ann_free() -> bool:
            table = await _table(http, ann, mine[0])
            return table is None or ann_id not in table["seats"]

        await _until(ann_free)
        again = await _open(http, ann)
        await _sit(http, ann, again)
        refused = await http.post(f"/tables/{again}/fill-bots", headers=ann)
        error = assert_error(refused, 429, "too_many_bots")
        assert error["details"]["limit"] == 3
        assert 1 <= int(refused.headers["Retry-After"]) <= 3600
        assert (await _table(http, ann, again) or {})["seats_taken"] == 1


async def test_the_supply_holds_over_100_bot_fills_and_escapes(
    settings: Settings, db: Database
) -> None:
    async with _server(settings, bot_seats_per_hour=1000) as http:
        _, boss = await admin(http, db)
        ann_id, ann = await player(http, "ann")
        await http.post("/admin/house/adjust", json={"delta": 100_000, "reason": "float"},
                        headers={**boss, "Idempotency-Key": "float"})
        before = await _silver(http, boss)

        escapes = 0
        for round_ in range(100):
            table_id = await _open(http, ann)
            await _sit(http, ann, table_id)
            filled = await http.post(f"/tables/{table_id}/fill-bots", headers=ann)
            assert filled.status_code == 200, (round_, filled.text)
            if round_ % 10 == 0:  # a hand is dealt: getting up is an escape (逃跑)

                async def dealt(table_id: str = table_id) -> bool:
                    table = await _table(http, ann, table_id) or {}
                    return table.get("status") == "playing" or await _hands(db, table_id) > 0

                await _until(dealt)
            left = await http.post(f"/tables/{table_id}/leave", headers=ann)
            assert left.status_code == 200, left.text
            escapes += ann_id in left.json()["seats"]  # during a hand: freed when it ends

            async def gone(table_id: str = table_id) -> bool:
                return ann_id not in (await _table(http, ann, table_id) or {"seats": []})["seats"]

            await _until(gone)

        async def escapes_settled() -> bool:
            async with db.sessions() as s:
                return int((await s.execute(
                    select(func.count()).select_from(LedgerEntry).where(
                        LedgerEntry.account_id == ann_id, LedgerEntry.reason == "escape_penalty")
                )).scalar_one()) == escapes

        assert escapes >= 5  # most of the 10 hands waited for are escaped (a bot may win first)
        await _until(escapes_settled)
        after = await _silver(http, boss)
        assert after["total"] == before["total"]  # not one silver made or lost
        assert after["grants"] == before["grants"] and after["rewards"] == before["rewards"]
        assert after["players"] < before["players"]  # ann paid for her escapes ...
        assert after["house"] + after["bots"] > before["house"]  # ... to the house's bots
        assert after["bot_accounts"] <= 12  # the pool is reused, not 300 new accounts
        assert len((await http.get("/tables", headers=ann)).json()) <= 3


async def test_a_bot_another_node_seats_meanwhile_is_skipped_not_seated_twice(
    settings: Settings, db: Database, monkeypatch: Any
) -> None:
    """Two nodes may pick the same idle bot at once: the seat claim refuses the second, whose
    fill leaves that seat empty (a 200, calling bots again fills it)."""
    async with _server(settings) as http:
        await fund_house(db)
        _, ann = await player(http, "ann")
        _, bob = await player(http, "bob")
        first, second = await _open(http, ann), await _open(http, bob)
        await _sit(http, ann, first)
        await _sit(http, bob, second)
        chosen_by_both = house_bots.house_bots

        async def racing(*args: Any) -> list[int]:
            bots = await chosen_by_both(*args)
            registry = args[2]
            await registry.sit(first, bots[0], bot=True)  # as another node would, first
            return bots

        monkeypatch.setattr(house_bots, "house_bots", racing)
        filled = await http.post(f"/tables/{second}/fill-bots", headers=bob)
        assert filled.status_code == 200, filled.text
        assert filled.json()["seats_taken"] == 3
        seats = [t["seats"] for t in (await http.get("/tables", headers=ann)).json()]
        taken = [a for table in seats for a in table if a is not None]
        assert len(taken) == len(set(taken)) == 5  # nobody at two tables
