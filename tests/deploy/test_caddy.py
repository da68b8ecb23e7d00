"""The compose reference's proxy, deploy/compose/Caddyfile, tested the way it is used: Caddy's
own validator accepts it (with the compose file's plain HTTP and with a domain, where Caddy
manages TLS), and Caddy running it in front of a real server (tests/deploy/caddy.py) passes a
player's REST calls (each named by a request id of the proxy's) and table socket, compresses
the client's files, and tells the app who each player is: the cap on table sockets per
address (WS_CONNECTIONS_PER_ADDRESS) counts each player by their own address, not the
proxy's, and an X-Forwarded-For a player sends does not make them someone else. Caddy and the
clients meet on loopback addresses of their own (127.0.0.2, 127.0.0.3), the app sees Caddy at
127.0.0.1, its trusted proxy."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.deploy.caddy import CADDYFILE, caddy_in_front
from tests.deploy.tools import program
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

ANN, BOB = "127.0.0.2", "127.0.0.3"  # two players' addresses
CAP = 2  # table sockets per address on the test server


@pytest.mark.parametrize("site", [":80", "mahjong.example.org"])
def test_caddy_validates_the_caddyfile(site: str, tmp_path: Path) -> None:
    caddy = program("caddy", "caddy")
    environment = {**os.environ, "SITE_ADDRESS": site, "HOME": str(tmp_path),
                   "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}  # fmt: skip
    checked = subprocess.run(
        [caddy, "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env=environment, capture_output=True, text=True, timeout=60, check=False,
    )
    output = checked.stdout + checked.stderr
    assert checked.returncode == 0, output
    assert "Valid configuration" in output


@asynccontextmanager
async def _client(port: int, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the proxy whose connections come from `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", transport=transport) as c:
        yield c


async def test_players_play_through_the_proxy_each_under_their_own_address(
    tmp_path: Path,
) -> None:
    settings = sqlite_settings(tmp_path / "proxy.db", ws_connections_per_address=CAP,
                               ws_hello_seconds=60.0)  # fmt: skip
    with live_server(settings) as (app_port, _), caddy_in_front(app_port, tmp_path) as port:
        url = f"ws://127.0.0.1:{port}/ws"
        async with asyncio.timeout(60), _client(port, ANN) as http:
            body = {"username": "ann", "password": "correct horse battery"}
            # the proxy names each request itself (a client's id would be its text in the
            # logs); the app logs that id and sends it back (app/ops/observe.py)
            registered = await http.post("/auth/register", json=body,
                                         headers={"X-Request-ID": "chosen-by-ann"})  # fmt: skip
            assert registered.status_code == 201
            assert uuid.UUID(registered.headers["x-request-id"])
            token = (await http.post("/auth/login", json=body)).json()["access_token"]
            headers = {"Authorization": f"Bearer {token}"}
            table = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                    headers=headers)  # fmt: skip
            assert table.status_code == 201, table.text
            sat = await http.post(f"/tables/{table.json()['id']}/sit", json={"seat": 0},
                                  headers=headers)  # fmt: skip
            assert sat.status_code == 200, sat.text

            # the WebSocket upgrade passes, and the socket plays
            ws = await open_socket(f"127.0.0.1:{port}", token, local_addr=(ANN, 0))
            assert [json.loads(await ws.recv())["type"] for _ in range(2)] == [
                "seated", "table_state"]  # fmt: skip
            await ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "via caddy"}))
            assert json.loads(await ws.recv()) == {"v": 2, "type": "pong", "nonce": "via caddy"}

            # ann's address holds CAP sockets and no more ...
            held = [ws, await connect(url, local_addr=(ANN, 0))]
            with pytest.raises(InvalidStatus) as refused:
                await connect(url, local_addr=(ANN, 0))
            assert refused.value.response.status_code == 429
            # ... while bob, behind the same proxy, has his own, whatever he claims to be
            bob = await connect(url, local_addr=(BOB, 0),
                                additional_headers={"X-Forwarded-For": ANN})  # fmt: skip
            await ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "still"}))
            assert json.loads(await ws.recv())["nonce"] == "still"
            for socket in (*held, bob):
                await socket.close()


async def test_the_proxy_compresses_the_client_files(tmp_path: Path) -> None:
    settings = sqlite_settings(tmp_path / "proxy.db")
    with live_server(settings) as (app_port, _), caddy_in_front(app_port, tmp_path) as port:
        async with asyncio.timeout(60), httpx.AsyncClient() as http:
            for page in ("/", "/static/js/app.js"):
                direct = await http.get(f"http://127.0.0.1:{app_port}{page}",
                                        headers={"Accept-Encoding": "identity"})
                assert direct.status_code == 200, page
                # whole to a client that takes no compression (gzipped to one that does:
                # the proxy passes the app's gzip on, and makes zstd itself)
                assert "content-encoding" not in direct.headers
                for encoding in ("gzip", "zstd"):
                    headers = {"Accept-Encoding": encoding}
                    async with http.stream("GET", f"http://127.0.0.1:{port}{page}",
                                           headers=headers) as proxied:  # fmt: skip
                        assert proxied.headers["content-encoding"] == encoding, page
                        sent = b"".join([chunk async for chunk in proxied.aiter_raw()])
                    assert len(sent) < len(direct.content) * 0.7, (page, encoding)
                gzipped = await http.get(f"http://127.0.0.1:{port}{page}",
                                         headers={"Accept-Encoding": "gzip"})  # fmt: skip
                assert gzipped.content == direct.content  # httpx decoded it
                assert gzipped.headers["strict-transport-security"].startswith("max-age=")
