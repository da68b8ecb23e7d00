"""Serving the client (no browser needed): the page and its files at `/` and `/static/`,
the client kit's modules (clients/js/src) at `/static/kit/`, nothing outside those folders,
the image carrying the kit where the server looks for it, and the seat plates' read
`GET /tables/{id}/players`."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import httpx

from app.store.db import Database
from app.web.assets import Folder
from app.web.page import Site
from app.web.router import KIT, STATIC
from tests.api.helpers import assert_error, fund_house, player

ROOT = Path(__file__).resolve().parents[2]


async def test_the_page_and_its_modules_are_served(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert re.search(r'<script type="module" src="/static/js/app\.js\?v=[0-9a-f]{16}">', page.text)
    script = await client.get("/static/js/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "import" in script.text
    css = await client.get("/static/css/client.css")
    assert css.headers["content-type"].startswith("text/css")


def versions(page: str) -> dict[str, str]:
    """The page's import map: each module's plain URL -> its versioned one."""
    found = re.search(r'<script type="importmap">(.*?)</script>', page, re.DOTALL)
    assert found, page
    return dict(json.loads(found.group(1))["imports"])


async def raw(client: httpx.AsyncClient, path: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """The answer and its body as it came over the wire (not decoded)."""
    async with client.stream("GET", path, headers=headers) as answer:
        return answer, b"".join([chunk async for chunk in answer.aiter_raw()])


async def test_text_goes_gzipped_to_a_browser_that_takes_it(client: httpx.AsyncClient) -> None:
    """A 3G player downloads the client compressed; a client that takes no gzip gets the
    files as they are."""
    on_disk = (STATIC / "js" / "i18n.js").read_bytes()
    packed, body = await raw(client, "/static/js/i18n.js", **{"Accept-Encoding": "gzip, br"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert len(body) < len(on_disk) / 2 and gzip.decompress(body) == on_disk  # (i18n.js: 0.33)
    plain, body = await raw(client, "/static/js/i18n.js", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and body == on_disk
    refused, body = await raw(client, "/static/js/i18n.js", **{"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers and body == on_disk
    # one tag per representation: a cache never takes the gzip for the plain file
    assert packed.headers["etag"] != plain.headers["etag"]
    page, body = await raw(client, "/", **{"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip" and b"importmap" in gzip.decompress(body)
    kit, body = await raw(client, "/static/kit/model.js", **{"Accept-Encoding": "gzip"})
    assert kit.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == (KIT / "model.js").read_bytes()


async def test_a_file_the_browser_has_is_not_sent_again(client: httpx.AsyncClient) -> None:
    for path in ("/", "/static/js/app.js", "/static/css/client.css", "/static/kit/model.js"):
        first = await client.get(path)
        tag = first.headers["etag"]
        assert re.fullmatch(r'"[0-9a-f]{32}(-gz)?"', tag), path
        again = await client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == tag
        assert again.headers["cache-control"] == first.headers["cache-control"]
        weak = await client.get(path, headers={"If-None-Match": f'"other", W/{tag}'})
        assert weak.status_code == 304, path
        other = await client.get(path, headers={"If-None-Match": '"0123"'})
        assert other.status_code == 200 and other.content == first.content, path


async def test_versioned_urls_are_kept_and_the_page_is_revalidated(
    client: httpx.AsyncClient,
) -> None:
    """The page is asked again each load (a release is seen at once) and names every file
    with its content's version: a file at its current version never changes, so the
    browser keeps it for a year without asking; any other URL of it is revalidated."""
    page = await client.get("/")
    assert page.headers["cache-control"] == "no-cache"
    modules = versions(page.text)
    # every module of the page and of the kit, so that imports between them are versioned
    expected = {f"/static/js/{p.name}" for p in (STATIC / "js").glob("*.js")} | {
        f"/static/kit/{p.name}" for p in KIT.glob("*.js")}
    assert set(modules) == expected
    named = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text)
    assert "/static/css/client.css" in {url.split("?")[0] for url in named}
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', page.text)
    assert modules["/static/kit/model.js"] in preloaded  # imported two levels down
    assert all(url.split("?")[0] in modules for url in preloaded)
    for url in [*named, *modules.values()]:
        path, _, version = url.partition("?v=")
        assert re.fullmatch("[0-9a-f]{16}", version), url
        kept = await client.get(url)
        assert kept.status_code == 200, url
        assert kept.headers["cache-control"] == "public, max-age=31536000, immutable", url
        for other in (path, f"{path}?v=0000000000000000"):
            again = await client.get(other)
            assert again.headers["cache-control"] == "no-cache", other
            assert again.content == kept.content


def test_a_new_release_is_named_by_the_page_at_once(tmp_path: Path) -> None:
    """Files are read once and kept while unchanged; a changed file is read again, and the
    next page names its new version (only its own: the file importing it keeps its URL)."""
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text(
        '<link rel="stylesheet" href="/static/a.css">\n<script type="module" src="/static/js/app.js">'
        "</script>\n")
    (tmp_path / "a.css").write_text("body { color: red; }\n")
    (tmp_path / "js" / "app.js").write_text('import { b } from "./b.js";\n')
    (tmp_path / "js" / "b.js").write_text("export const b = 1;\n")
    folder = Folder(tmp_path)
    site = Site({"/static/": folder}, "index.html")
    before = site.page()
    assert folder.get("js/b.js") is folder.get("js/b.js")
    old = versions(before.asset.body.decode())
    assert '<link rel="modulepreload" href="{}">'.format(old["/static/js/b.js"]) in (
        before.asset.body.decode())
    (tmp_path / "js" / "b.js").write_text("export const b = 22;\n")
    after = site.page()
    new = versions(after.asset.body.decode())
    assert new["/static/js/b.js"] != old["/static/js/b.js"]
    assert new["/static/js/app.js"] == old["/static/js/app.js"]
    assert after.asset.digest != before.asset.digest  # the page's ETag changes with it
    assert after.policy != before.policy  # and its policy allows the new import map only
    assert folder.get("js/b.js").body == b"export const b = 22;\n"


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
