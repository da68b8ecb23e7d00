"""The caller's account, its ledger pages, and public profiles (个人资料)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import select

from app.rules.variants import VARIANTS
from app.store import ledger
from app.store.db import Database
from app.store.models import Account, LedgerEntry
from tests.api.helpers import PASSWORD, admin, assert_error, player, set_stats


async def _credit(db: Database, account_id: int, amounts: list[int]) -> None:
    async with db.sessions() as s:
        for i, amount in enumerate(amounts):
            await ledger.post(s, account_id, amount, "house_reward", f"test:{account_id}:{i}")


async def test_me_shows_silver_title_stats_rates_and_the_huzhou_level(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, headers = await player(client, "阿明哥")
    await set_stats(
        db,
        account_id,
        "huzhou",
        points=42,
        hands=40,
        wins=10,
        self_draws=4,
        deal_ins=6,
        escapes=1,
        disconnects=3,
    )
    await set_stats(db, account_id, "lishui", points=5, hands=3, wins=1)
    await _credit(db, account_id, [2000])
    body = (await client.get("/me", headers=headers)).json()
    assert body["id"] == account_id and body["username"] == "阿明哥" and body["role"] == "player"
    assert body["balance"] == 12000 and body["title"] == "赌客"
    assert list(body["stats"]) == list(VARIANTS)
    assert body["stats"]["huzhou"] == {
        "points": 42,
        "hands": 40,
        "wins": 10,
        "self_draws": 4,
        "deal_ins": 6,
        "escapes": 1,
        "disconnects": 3,
        "win_rate": 0.25,
        "escape_rate": 0.025,
    }
    assert body["stats"]["lishui"]["win_rate"] == 0.3333
    assert body["stats"]["wenzhou"] == {
        "points": 0,
        "hands": 0,
        "wins": 0,
        "self_draws": 0,
        "deal_ins": 0,
        "escapes": 0,
        "disconnects": 0,
        "win_rate": 0.0,
        "escape_rate": 0.0,
    }
    assert body["huzhou_level"] == {
        "title": "科长", "base": 4, "points": 42, "next": {"title": "助处", "at": 90, "since": 42}
    }
    assert body["next_title"] == {"title": "赌棍", "at": 24000, "since": 12000}


async def test_a_new_account_is_a_科员_菜鸟_below_6000(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, headers = await player(client, "ann")
    async with db.sessions() as s:
        await ledger.adjust(s, account_id, -4001, "test", account_id)
    body = (await client.get("/me", headers=headers)).json()
    assert body["balance"] == 5999 and body["title"] == "菜鸟"
    assert body["huzhou_level"] == {
        "title": "科员", "base": 2, "points": 0, "next": {"title": "助科", "at": 6, "since": 0}
    }
    assert body["next_title"] == {"title": "生手", "at": 6000, "since": 0}


async def test_the_top_title_and_level_have_no_next(
    client: httpx.AsyncClient, db: Database
) -> None:
    """万赌之王 and 麻将王 are the tops of their ladders: nothing above them to reach."""
    account_id, headers = await player(client, "ann")
    async with db.sessions() as s:
        await ledger.adjust(s, account_id, 104857600, "test", account_id)
    await set_stats(db, account_id, "huzhou", points=393210, hands=999)
    body = (await client.get("/me", headers=headers)).json()
    assert body["title"] == "万赌之王" and body["next_title"] is None
    assert body["huzhou_level"]["title"] == "麻将王" and body["huzhou_level"]["next"] is None


async def test_the_ledger_pages_newest_first_with_a_cursor(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, headers = await player(client, "ann")
    other_id, _ = await player(client, "bob")
    await _credit(db, account_id, [1, 2, 3, 4])
    await _credit(db, other_id, [99])
    seen: list[int] = []
    before: int | None = None
    pages = 0
    while True:
        params = {"limit": 2} | ({"before": before} if before is not None else {})
        page = (await client.get("/me/ledger", params=params, headers=headers)).json()
        seen += [e["delta"] for e in page["entries"]]
        pages += 1
        before = page["next_before"]
        if before is None:
            break
    assert seen == [4, 3, 2, 1, 10000] and pages == 3
    first = (await client.get("/me/ledger", headers=headers)).json()
    assert [e["balance_after"] for e in first["entries"]] == [10010, 10006, 10003, 10001, 10000]
    assert first["entries"][-1]["reason"] == "signup_grant" and first["next_before"] is None
    async with db.sessions() as s:
        total = sum(
            (
                await s.execute(
                    select(LedgerEntry.delta).where(LedgerEntry.account_id == account_id)
                )
            ).scalars()
        )
        balance = (
            await s.execute(select(Account.balance).where(Account.id == account_id))
        ).scalar_one()
    assert total == balance == 10010


async def test_times_carry_their_utc_offset_on_every_backend(client: httpx.AsyncClient) -> None:
    """RFC 3339 (the documented `date-time`) needs an offset: SQLite's naive times too."""
    made = await client.post("/auth/register", json={"username": "ann", "password": PASSWORD})
    _, headers = await player(client, "bob")
    entry = (await client.get("/me/ledger", headers=headers)).json()["entries"][0]
    for stamp in (made.json()["created_at"], entry["created_at"]):
        moment = datetime.fromisoformat(stamp)
        assert moment.utcoffset() == timedelta(0), stamp
        assert abs(datetime.now(UTC) - moment) < timedelta(hours=1), stamp


async def test_bad_ledger_paging_is_a_validation_error(client: httpx.AsyncClient) -> None:
    _, headers = await player(client, "ann")
    for params in ({"limit": 0}, {"limit": 101}, {"before": 0}, {"limit": "many"}):
        response = await client.get("/me/ledger", params=params, headers=headers)
        error = assert_error(response, 422, "validation_error")
        assert error["details"][0]["loc"][0] == "query"
    assert_error(await client.get("/me/ledger"), 401, "unauthorized")


async def test_public_profiles(client: httpx.AsyncClient, db: Database) -> None:
    account_id, _ = await player(client, "阿明哥")
    await set_stats(db, account_id, "huzhou", points=90, hands=20, wins=5)
    body = (await client.get("/accounts/阿明哥")).json()
    assert set(body) == {"username", "balance", "title", "stats", "huzhou_level", "next_title"}
    assert body["username"] == "阿明哥" and body["balance"] == 10000 and body["title"] == "生手"
    assert body["huzhou_level"] == {
        "title": "助处", "base": 6, "points": 90, "next": {"title": "副处", "at": 186, "since": 90}
    }
    assert body["next_title"] == {"title": "赌客", "at": 12000, "since": 6000}
    assert body["stats"]["huzhou"]["win_rate"] == 0.25
    assert_error(await client.get("/accounts/nobody"), 404, "not_found")


async def _walk(client: httpx.AsyncClient, path: str, headers: dict[str, str], limit: int,
                between: list[int] | None = None, db: Database | None = None,
                account_id: int = 0) -> list[list[int]]:
    """Every page of a ledger by its cursor, as the profile's "more" button walks it: the
    row ids per page. `between`: amounts credited after the first page (new rows)."""
    pages: list[list[int]] = []
    before: int | None = None
    while True:
        params = {"limit": limit} | ({"before": before} if before is not None else {})
        answer = await client.get(path, params=params, headers=headers)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        pages.append([e["id"] for e in page["entries"]])
        if between and db is not None and len(pages) == 1:
            await _credit(db, account_id, between)
        before = page["next_before"]
        if before is None:
            return pages
        assert before == pages[-1][-1]  # the cursor is the last row shown
        assert len(pages) < 100, "the cursor does not move"


async def test_walking_every_ledger_page_shows_each_row_once_and_ends_with_no_more(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, headers = await player(client, "ann")
    await _credit(db, account_id, [1, 2, 3, 4, 5])  # 6 rows with the signup grant
    async with db.sessions() as s:
        every = [e.id for e in await ledger.ledger_page(s, account_id, limit=500, before_id=None)]
    assert len(every) == 6
    _, boss = await admin(client, db)
    for path, who in (("/me/ledger", headers), (f"/admin/accounts/{account_id}/ledger", boss)):
        for limit in (1, 2, 3, 4, 5, 6, 7, 100):
            pages = await _walk(client, path, who, limit)
            assert [row for page in pages for row in page] == every, (path, limit)
            # no empty last page behind a "more": a full last page already says null
            assert all(pages) and len(pages) == -(-6 // limit), (path, limit)

    # rows written while the player pages (a hand settles) come on top, not in the walk
    pages = await _walk(client, "/me/ledger", headers, 2, [7, 8], db, account_id)
    walked = [row for page in pages for row in page]
    assert walked == every and len(set(walked)) == len(walked)
