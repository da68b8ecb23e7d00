"""One name, one account: usernames are unique regardless of case and Unicode compatibility
forms (NFKC), shown as typed, and found by any of their forms."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from app.store.accounts import username_key
from app.store.db import Database
from app.store.models import Account
from tests.api.helpers import PASSWORD, admin, assert_error, login, register


async def accounts_count(db: Database) -> int:
    async with db.sessions() as s:
        return int((await s.execute(select(func.count()).select_from(Account))).scalar_one())


@pytest.mark.parametrize(
    "other",
    [
        "ACC1_X",  # case
        "Acc1_x",
        "ａｃｃ１＿ｘ",  # fullwidth, as a Chinese input method types it
        "ＡＣＣ１＿Ｘ",
        "𝐚𝐜𝐜𝟏_𝐱",  # mathematical bold
    ],
)
async def test_another_form_of_a_taken_name_is_taken(
    client: httpx.AsyncClient, db: Database, other: str
) -> None:
    await register(client, "acc1_x")
    again = await client.post("/auth/register", json={"username": other, "password": PASSWORD})
    assert_error(again, 409, "duplicate_username")
    assert await accounts_count(db) == 1


async def test_a_compatibility_ideograph_is_its_unified_twin(
    client: httpx.AsyncClient, db: Database
) -> None:
    await register(client, "豈ab")
    twin = await client.post("/auth/register", json={"username": "\uf900ab", "password": PASSWORD})
    assert_error(twin, 409, "duplicate_username")
    assert await accounts_count(db) == 1


async def test_a_name_is_shown_as_typed_and_found_by_any_form(client: httpx.AsyncClient) -> None:
    made = await register(client, "Ann_Lee")
    assert made["username"] == "Ann_Lee"
    for form in ("Ann_Lee", "ann_lee", "ANN_LEE", "Ａｎｎ＿Ｌｅｅ"):
        await login(client, form)
        profile = await client.get(f"/accounts/{form}")
        assert profile.status_code == 200 and profile.json()["username"] == "Ann_Lee"


async def test_a_fullwidth_name_is_kept_as_typed(client: httpx.AsyncClient) -> None:
    made = await register(client, "ｍｅｉ２０")
    assert made["username"] == "ｍｅｉ２０"
    await login(client, "mei20")
    assert_error(
        await client.post("/auth/register", json={"username": "MEI20", "password": PASSWORD}),
        409, "duplicate_username",
    )


async def test_two_forms_registered_at_once_make_one_account(
    client: httpx.AsyncClient, db: Database
) -> None:
    answers = await asyncio.gather(
        *(
            client.post("/auth/register", json={"username": name, "password": PASSWORD})
            for name in ("acc1_x", "ACC1_X", "ａｃｃ１＿ｘ")
        )
    )
    assert sorted(r.status_code for r in answers) == [201, 409, 409]
    assert await accounts_count(db) == 1


async def test_the_admin_search_matches_any_form(client: httpx.AsyncClient, db: Database) -> None:
    _, headers = await admin(client, db)
    for name in ("acc1_x", "ACC2_Y", "bob"):
        await register(client, name)
    for q in ("acc", "ACC", "ａｃｃ"):
        found = await client.get("/admin/accounts", params={"q": q}, headers=headers)
        assert [a["username"] for a in found.json()] == ["acc1_x", "ACC2_Y"]


@given(st.text(max_size=40))
def test_the_key_is_stable(name: str) -> None:
    """A key is its own key, so a name found by its key is found again the same way."""
    key = username_key(name)
    assert username_key(key) == key
