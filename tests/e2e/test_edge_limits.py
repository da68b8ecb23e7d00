"""The edge's limits against a real uvicorn (the deployed configuration, app/ops/serve.py):
requests and new WebSocket connections per address and per account (429 `rate_limited`
with Retry-After, a handshake refused before the upgrade), and request bodies over
`max_body_bytes` refused (413 `too_large`) before they are read.

The test server trusts 127.0.0.1 as its proxy (FORWARDED_ALLOW_IPS), so each request says
which address it comes from in X-Forwarded-For, as a proxy in front of the server would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.settings import Settings
from tests.api.helpers import assert_error, login, register
from tests.live import live_server, sqlite_settings
from tests.wsclient import hello

BAR = 10  # requests per address and per account in these tests' window
WS_BAR = 3  # new WebSocket connections per address and per account


def at(address: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    """Headers that make a request come from `address` (the trusted proxy's header)."""
    return {"X-Forwarded-For": address, **(headers or {})}


def assert_refused(response: httpx.Response, window: int) -> None:
    """429 rate_limited, with Retry-After (seconds within the window) also in details."""
    error = assert_error(response, 429, "rate_limited")
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= window
    assert error["details"] == {"retry_after": retry_after}


def cut_to(bar: int, statuses: list[int], served: int) -> None:
    """A burst was cut to its bar: `bar` requests got `served`, the rest 429. One more may
    pass if the burst crossed the turn of the counters' window: the sliding window
    counter's count is then an estimate."""
    assert set(statuses) == {served, 429}, statuses
    assert statuses.count(served) in (bar, bar + 1), statuses


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Settings]]:
    settings = sqlite_settings(
        tmp_path / "edge.db",
        requests_per_address=BAR,
        requests_per_account=BAR,
        ws_connects_per_address=WS_BAR,
        ws_connects_per_account=WS_BAR,
    )
    with live_server(settings) as (port, app):
        yield f"127.0.0.1:{port}", app.state.settings


async def _players(address: str, *names: str) -> list[tuple[int, str]]:
    """Register and log in each name, each from its own address: ids and access tokens."""
    made = []
    for index, name in enumerate(names):
        async with httpx.AsyncClient(
            base_url=f"http://{address}", headers=at(f"192.0.2.{index + 1}")
        ) as setup:
            account = await register(setup, name)
            made.append((int(account["id"]), (await login(setup, name))["access_token"]))
    return made


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_flood_from_one_address_is_cut_to_its_bar_while_others_are_served(
    server: tuple[str, Settings],
) -> None:
    address, settings = server
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        flood = await asyncio.gather(
            *(http.get("/accounts/someone", headers=at("203.0.113.7")) for _ in range(3 * BAR))
        )
        cut_to(BAR, [r.status_code for r in flood], served=404)
        for refused in (r for r in flood if r.status_code == 429):
            assert_refused(refused, settings.rate_window_seconds)
        # the bar is the address's: another one is served as usual
        assert_error(await http.get("/accounts/someone", headers=at("203.0.113.8")), 404, "not_found")
        # the probes still answer the flooded address (an orchestrator behind the same proxy)
        assert (await http.get("/health", headers=at("203.0.113.7"))).status_code == 200
        assert (await http.get("/ready", headers=at("203.0.113.7"))).status_code == 200
        assert_refused(
            await http.get("/variants", headers=at("203.0.113.7")), settings.rate_window_seconds
        )


async def test_the_addresses_of_one_ipv6_64_share_one_bar(server: tuple[str, Settings]) -> None:
    """One host may take any address of its /64 (privacy addresses rotate by themselves):
    a request from each new one counts against the same bar; another /64 has its own."""
    address, settings = server
    window = settings.rate_window_seconds
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        statuses = [
            (await http.get("/variants", headers=at(f"2001:db8:0:1::{i + 1:x}"))).status_code
            for i in range(BAR + 2)
        ]
        assert statuses[:BAR] == [200] * BAR and statuses[-1] == 429, statuses
        assert_refused(await http.get("/variants", headers=at("2001:db8:0:1:ffff::9")), window)
        assert (await http.get("/variants", headers=at("2001:db8:0:2::1"))).status_code == 200


async def test_an_account_has_one_bar_whatever_address_it_calls_from(
    server: tuple[str, Settings],
) -> None:
    address, settings = server
    (ann_id, ann), (_, bob) = await _players(address, "ann", "bob")
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        statuses = [
            (await http.get("/me", headers=at(f"198.51.100.{i}", _bearer(ann)))).status_code
            for i in range(BAR + 2)
        ]
        cut_to(BAR, statuses, served=200)
        assert statuses[:BAR] == [200] * BAR and statuses[-1] == 429
        assert_refused(
            await http.get("/me", headers=at("198.51.100.99", _bearer(ann))),
            settings.rate_window_seconds,
        )
        # bob, from an address ann has used, is served: the bar is ann's
        assert (await http.get("/me", headers=at("198.51.100.1", _bearer(bob)))).status_code == 200
        # a token for ann that the server did not sign counts against its address only:
        # nobody can use up an account's bar without that account's token
        forged = jwt.encode(
            {"sub": str(ann_id), "role": "player", "type": "access",
             "exp": datetime.now(UTC) + timedelta(minutes=5)},
            "another-secret-" + "y" * 32, algorithm="HS256",
        )
        answer = await http.get("/me", headers=at("198.51.100.98", _bearer(forged)))
        assert_error(answer, 401, "unauthorized")


async def _handshake(address: str, query: str, origin: str) -> ClientConnection | InvalidStatus:
    """Open `/ws` (with `?{query}` if any) as if from `origin`: the open connection, or the
    refusal."""
    url = f"ws://{address}/ws" + (f"?{query}" if query else "")
    try:
        return await connect(url, additional_headers=at(origin))
    except InvalidStatus as refused:
        return refused


def assert_refused_handshake(refused: Any) -> None:
    """The upgrade was refused with an HTTP 429 in the error shape, with Retry-After."""
    assert isinstance(refused, InvalidStatus), refused
    response = refused.response
    assert response.status_code == 429
    retry_after = int(response.headers["Retry-After"])
    error = json.loads(bytes(response.body or b""))["error"]
    assert error["code"] == "rate_limited" and error["details"] == {"retry_after": retry_after}


async def test_websocket_handshakes_over_a_bar_are_refused_before_the_upgrade(
    server: tuple[str, Settings],
) -> None:
    address, _ = server
    # per address: connections with no hello are upgraded (then closed with 4401) until the
    # address's bar is used up
    opened = []
    for _ in range(WS_BAR + 2):
        result = await _handshake(address, "", "203.0.113.20")
        if isinstance(result, ClientConnection):
            await result.send("not a hello")
            with pytest.raises(ConnectionClosed) as closed:
                await result.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        opened.append(isinstance(result, ClientConnection))
    assert opened[:WS_BAR] == [True] * WS_BAR and opened.count(True) in (WS_BAR, WS_BAR + 1)
    assert_refused_handshake(await _handshake(address, "", "203.0.113.20"))
    elsewhere = await _handshake(address, "", "203.0.113.21")
    assert isinstance(elsewhere, ClientConnection)
    await elsewhere.close()


async def test_the_addresses_of_one_ipv6_64_share_one_handshake_bar(
    server: tuple[str, Settings],
) -> None:
    address, _ = server
    opened = []
    for i in range(WS_BAR + 1):
        result = await _handshake(address, "", f"2001:db8:0:5::{i + 1:x}")
        if isinstance(result, ClientConnection):
            await result.close()
        opened.append(isinstance(result, ClientConnection))
    assert opened[:WS_BAR] == [True] * WS_BAR, opened
    assert_refused_handshake(await _handshake(address, "", "2001:db8:0:5:ffff::1"))
    elsewhere = await _handshake(address, "", "2001:db8:0:6::1")
    assert isinstance(elsewhere, ClientConnection)
    await elsewhere.close()


async def test_an_account_opening_too_many_sockets_is_closed_after_its_hello(
    server: tuple[str, Settings],
) -> None:
    """The same token from ever new addresses: its hello counts it against the account's
    bar, shared by every address; over it the socket closes with 4429; another account is
    not affected."""
    address, _ = server
    (_, ann), (_, bob) = await _players(address, "ann", "bob")
    codes = []
    for i in range(WS_BAR + 2):
        opened = await _handshake(address, "", f"198.51.100.{i}")
        assert isinstance(opened, ClientConnection)
        await opened.send(hello(ann))
        try:
            await asyncio.wait_for(opened.recv(), 1)  # open: nothing to say (ann sits nowhere)
        except TimeoutError:
            codes.append(None)
        except ConnectionClosed as closed:
            codes.append(closed.rcvd.code if closed.rcvd is not None else None)
            assert closed.rcvd is None or "try again in" in closed.rcvd.reason
        await opened.close()
    assert codes[:WS_BAR].count(4429) == 0 and codes[-1] == 4429
    bobs = await _handshake(address, "", "198.51.100.0")
    assert isinstance(bobs, ClientConnection)
    await bobs.send(hello(bob))
    with pytest.raises(TimeoutError):  # not closed: bob's bar is his own
        await asyncio.wait_for(bobs.recv(), 1)
    await bobs.close()


async def _raw_exchange(address: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as is, then read the answer until the server closes: its status,
    headers and body. Bounded: a server that waited for the rest of the body would fail
    the test here rather than hang it."""
    host, port = address.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


def _post_head(extra: str) -> bytes:
    return (
        "POST /auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"{extra}\r\n\r\n"
    ).encode()


def assert_too_large(status: int, headers: dict[str, str], body: bytes, limit: int) -> None:
    assert status == 413
    assert headers["connection"] == "close"  # and the server did close: read() ended
    error = json.loads(body)["error"]
    assert error["code"] == "too_large" and error["details"] == {"max_bytes": limit}


async def test_a_body_declared_over_the_limit_is_refused_before_it_is_sent(
    server: tuple[str, Settings],
) -> None:
    address, settings = server
    limit = settings.max_body_bytes
    # 10 MB announced, 16 bytes sent: the answer comes without the rest
    request = _post_head(f"Content-Length: {10 * 1024 * 1024}") + b'{"username": "a'
    assert_too_large(*await _raw_exchange(address, request), limit)
    # a body of exactly the limit is read and parsed as usual
    body = json.dumps({"username": "", "password": ""}).encode()
    body = body[:-1] + b" " * (limit - len(body)) + b"}"
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        answer = await http.post(
            "/auth/login", content=body, headers={"Content-Type": "application/json"}
        )
    assert len(body) == limit
    assert_error(answer, 422, "validation_error")


async def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit(
    server: tuple[str, Settings],
) -> None:
    address, settings = server
    limit = settings.max_body_bytes
    chunk = b"x" * 1024
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(limit // len(chunk) + 1)
    )
    # one chunk past the limit and no end of the body: the answer comes all the same
    request = _post_head("Transfer-Encoding: chunked") + chunks
    assert_too_large(*await _raw_exchange(address, request), limit)

    # a chunked body of exactly the limit is read as usual
    head = b'{"username": "", "password": ""'

    async def stream() -> AsyncIterator[bytes]:
        yield head
        yield b" " * (limit - len(head) - 1)
        yield b"}"

    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        answer = await http.post(
            "/auth/login", content=stream(), headers={"Content-Type": "application/json"}
        )
    assert_error(answer, 422, "validation_error")
