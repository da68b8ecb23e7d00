"""`POST /practice` (新手教学, docs/practice.md): the limits a stranger meets. One live practice
table per account (`practice_open`, naming it); past six an hour, `rate_limited` with
Retry-After, and no table is made; another account is not limited by it."""

from __future__ import annotations

import httpx

from app.api.practice import PRACTICE_PER_HOUR
from tests.api.helpers import assert_error, player


async def _tables(client: httpx.AsyncClient, headers: dict[str, str]) -> set[str]:
    """The ids of the tables the lobby lists."""
    return {t["id"] for t in (await client.get("/tables", headers=headers)).json()}


async def test_one_live_practice_table_and_a_few_an_hour(client: httpx.AsyncClient) -> None:
    _, ann = await player(client, "ann")
    made: list[str] = []
    for _ in range(PRACTICE_PER_HOUR):
        answer = await client.post("/practice", headers=ann)
        assert answer.status_code == 201, answer.text
        table_id = answer.json()["table"]["id"]
        made.append(table_id)
        again = assert_error(await client.post("/practice", headers=ann), 409, "practice_open")
        assert again["details"] == {"table_id": table_id}
        left = await client.post(f"/tables/{table_id}/leave", headers=ann)  # 逃跑 at stake 0
        assert left.status_code == 200, left.text
    assert len(set(made)) == PRACTICE_PER_HOUR

    refused = await client.post("/practice", headers=ann)
    error = assert_error(refused, 429, "rate_limited")
    assert int(refused.headers["Retry-After"]) == error["details"]["retry_after"] > 0
    players = [await client.get(f"/tables/{t}/players", headers=ann) for t in made]
    assert all(p.status_code in (200, 404) for p in players)
    seated = [p.json() for p in players if p.status_code == 200]
    assert all("ann" not in [s["name"] for s in t["seats"]] for t in seated)  # she sits nowhere
    me = (await client.get("/me", headers=ann)).json()
    assert me["balance"] == 10000  # six escapes at stake 0 cost nothing

    _, bob = await player(client, "bob")  # the limit is per account
    assert (await client.post("/practice", headers=bob)).status_code == 201
    assert await _tables(client, bob) == set()  # practice tables are nobody's lobby
