"""Serving the client (no browser needed): the page and its files at `/` and `/static/`,
nothing outside that folder, and the seat plates' read `GET /tables/{id}/players`."""

from __future__ import annotations

import httpx

from app.store.db import Database
from tests.api.helpers import assert_error, fund_house, player


async def test_the_page_and_its_modules_are_served(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/app.js">' in page.text
    script = await client.get("/static/js/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "import" in script.text
    css = await client.get("/static/css/client.css")
    assert css.headers["content-type"].startswith("text/css")


async def test_nothing_outside_the_static_folder_is_served(client: httpx.AsyncClient) -> None:
    for path in (
        "/static/../router.py",
        "/static/%2e%2e/router.py",
        "/static/..%2f..%2fsettings.py",
        "/static/js/nope.js",
        "/static/js",
    ):
        assert_error(await client.get(path), 404, "not_found")


async def test_the_players_of_a_table(client: httpx.AsyncClient, db: Database) -> None:
    await fund_house(db)
    _, ann = await player(client, "ann_web")
    _, bob = await player(client, "bob_web")
    created = await client.post("/tables", json={"variant": "wenzhou", "stake": 2}, headers=ann)
    table = created.json()
    sat = await client.post(f"/tables/{table['id']}/sit", json={"seat": 2}, headers=ann)
    assert sat.status_code == 200

    seats = (await client.get(f"/tables/{table['id']}/players", headers=bob)).json()
    assert seats["variant"] == "wenzhou" and seats["stake"] == 2
    assert [s["name"] for s in seats["seats"]] == [None, None, "ann_web", None]
    assert seats["seats"][2]["balance"] == 10000 and seats["seats"][2]["title"]
    assert seats["seats"][2]["bot"] is False
    empty = {"seat": 0, "name": None, "title": None, "balance": None, "bot": False}
    assert seats["seats"][0] == empty
    assert seats["timers"] == {"discard": 15.0, "claim": 8.0, "decide": 8.0, "ready": 15.0}

    assert (await client.post(f"/tables/{table['id']}/fill-bots", headers=ann)).status_code == 200
    seats = (await client.get(f"/tables/{table['id']}/players", headers=bob)).json()
    assert [s["bot"] for s in seats["seats"]] == [True, True, False, True]
    assert all(s["name"] for s in seats["seats"])

    quick = await client.post(
        "/tables", json={"variant": "lishui", "stake": 1, "timers": {"ready": 5}}, headers=bob)
    timers = (await client.get(f"/tables/{quick.json()['id']}/players", headers=bob)).json()
    assert timers["timers"]["ready"] == 5 and timers["timers"]["discard"] == 15

    assert_error(await client.get("/tables/nope/players", headers=bob), 404, "not_found")
    assert_error(await client.get(f"/tables/{table['id']}/players"), 401, "unauthorized")
