"""Serving the client (no browser needed): the page and its files at `/` and `/static/`,
the client kit's modules (clients/js/src) at `/static/kit/`, nothing outside those folders,
the image carrying the kit where the server looks for it, and the seat plates' read
`GET /tables/{id}/players`."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from app.store.db import Database
from app.web.router import KIT
from tests.api.helpers import assert_error, fund_house, player

ROOT = Path(__file__).resolve().parents[2]


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


async def test_the_client_kit_is_served_to_the_page(client: httpx.AsyncClient) -> None:
    """The page's table, quick match and replay import the kit's modules (one copy, the npm
    package's), served as the page's own files are."""
    table = (await client.get("/static/js/table.js")).text
    assert 'from "../kit/protocol.js"' in table and 'from "../kit/model.js"' in table
    assert 'from "../kit/verify.js"' in table
    assert 'from "../kit/replay.js"' in (await client.get("/static/js/replay.js")).text
    for name in ("protocol.js", "model.js", "replay.js", "verify.js", "index.js"):
        served = await client.get(f"/static/kit/{name}")
        assert served.status_code == 200, name
        assert served.headers["content-type"] == "text/javascript; charset=utf-8"
        assert served.headers["cache-control"] == "no-cache"
        assert served.text == (KIT / name).read_text(encoding="utf-8")
    assert "export class ProtocolClient" in (await client.get("/static/kit/protocol.js")).text


async def test_nothing_outside_the_kit_is_served(client: httpx.AsyncClient) -> None:
    for path in (
        "/static/kit/../package.json",
        "/static/kit/%2e%2e/package.json",
        "/static/kit/..%2f..%2f..%2fpyproject.toml",
        "/static/kit/..%2ftypes%2fprotocol.d.ts",
        "/static/kit/nope.js",
        "/static/kit/",
    ):
        assert_error(await client.get(path), 404, "not_found")


def test_the_image_carries_the_kit_where_the_server_looks_for_it() -> None:
    """The Dockerfile's working directory holds app/ (`python -m app` runs it from there), so
    the kit must be copied to the same place beside it as in the source tree."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    copies = [line.split()[1:] for line in lines if re.match(r"COPY \S+ \S+$", line)]
    beside_app = KIT.relative_to(ROOT)
    assert [str(beside_app), f"./{beside_app}"] in copies
    assert ["app", "./app"] in copies
    assert "**/node_modules" in (ROOT / ".dockerignore").read_text().split()


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
    # the table page's heartbeat: a ping every 20 s, the socket dead 10 s after one unheard
    assert seats["heartbeat"] == {"ping_ms": 20000, "pong_timeout_ms": 10000}

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
