"""The edge of the table WebSocket against a real uvicorn (tests/live.py serves the deployed
configuration): the hello (in time, with a good token, never a token in the URL, which no
log line shows either), the Origin allow-list, the cap on sockets per address, the frame
size limit, the rate limit's one notice a second, a client that stops reading (closed, its
seat disconnected, what the node holds for it bounded, its pings not all answered, its
connection reset in the end) and the keepalive."""

from __future__ import annotations

import asyncio
import base64
import errno
import json
import logging
import os
import socket
import struct
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy.exc import OperationalError
from websockets.asyncio.client import ClientConnection, connect

from app.api import ws as ws_module
from tests.live import live_server, sqlite_settings
from tests.wsclient import hello, open_socket, table_socket

Message = dict[str, Any]
UVICORN_HIGH_WATER = 64 * 1024  # uvicorn's send waits while its write buffer is over this
SEND_BUFFER = 4096  # the kernel send buffer of the slow-client server's connections
RECEIVE_BUFFER = 4096  # the raw client's kernel receive buffer
QUEUE_BYTES = 16 * 1024  # ws_send_queue_bytes of the slow-client server


@contextmanager
def _server(tmp_path: Path, send_buffer: int | None = None, **options: Any) -> Iterator[str]:
    """A real server with these settings; its host:port."""
    settings = sqlite_settings(tmp_path / "edge.db", **options)
    with live_server(settings, send_buffer) as (port, _):
        yield f"127.0.0.1:{port}"


@dataclass
class Account:
    token: str
    headers: dict[str, str]


async def _account(http: httpx.AsyncClient, name: str) -> Account:
    body = {"username": name, "password": "correct horse battery"}
    assert (await http.post("/auth/register", json=body)).status_code == 201
    token = (await http.post("/auth/login", json=body)).json()["access_token"]
    return Account(token, {"Authorization": f"Bearer {token}"})


async def _closed(ws: ClientConnection) -> tuple[int, str]:
    """Read until the server closes the socket: its close code and reason."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await ws.recv()
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


# --- the hello ----------------------------------------------------------------------------


async def test_a_hello_with_a_good_token_opens_the_table_socket(tmp_path: Path) -> None:
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            ann = await _account(http, "ann")
            table = (await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                     headers=ann.headers)).json()["id"]
            await http.post(f"/tables/{table}/sit", json={"seat": 2}, headers=ann.headers)
            async with table_socket(address, ann.token) as ws:
                first = [json.loads(await ws.recv()) for _ in range(2)]
                assert [m["type"] for m in first] == ["seated", "table_state"]
                assert first[0]["seat"] == 2 and first[0]["v"] == 2
                await ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "n"}))
                assert json.loads(await ws.recv()) == {"v": 2, "type": "pong", "nonce": "n"}


async def test_no_hello_a_bad_hello_or_a_bad_token_closes_with_4401(tmp_path: Path) -> None:
    with _server(tmp_path, ws_hello_seconds=0.5) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            ann = await _account(http, "ann")
            async with connect(f"ws://{address}/ws") as silent:  # says nothing
                assert await _closed(silent) == (4401, "no hello in time")
            for first in (
                hello("nonsense"),
                hello(ann.token[:-2]),  # the signature does not match
                json.dumps({"type": "hello", "token": ann.token}),  # no version
                json.dumps({"v": 2, "type": "ping", "nonce": "n"}),  # not a hello first
                hello(ann.token).encode(),  # a binary frame
            ):
                async with connect(f"ws://{address}/ws") as ws:
                    await ws.send(first)
                    code, _ = await _closed(ws)
                    assert code == 4401, first


async def test_a_hello_of_another_protocol_version_is_told_which_this_server_speaks(
    tmp_path: Path,
) -> None:
    """A client of version 1 or of a version to come is closed with 4426 and a reason that
    names the versions served (docs/protocol.md, "Compatibility"), not the 4401 of a bad
    token: it should update, not log in again."""
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            ann = await _account(http, "ann")
            for v in (1, 3, "2"):
                async with connect(f"ws://{address}/ws") as ws:
                    await ws.send(json.dumps({"v": v, "type": "hello", "token": ann.token}))
                    code, reason = await _closed(ws)
                    assert code == 4426, v
                    assert reason.endswith("versions: 2"), reason


async def test_a_hello_the_database_cannot_check_closes_with_try_again_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            ann = await _account(http, "ann")

            async def away(*_: object) -> None:
                raise OperationalError("SELECT", {}, OSError("the database is away"))

            monkeypatch.setattr(ws_module, "account_for_token", away)
            async with connect(f"ws://{address}/ws") as ws:
                await ws.send(hello(ann.token))
                assert await _closed(ws) == (1013, "busy")
            monkeypatch.undo()  # back: the same token opens its socket
            async with table_socket(address, ann.token) as ws:
                await ws.send(json.dumps({"v": 2, "type": "ping", "nonce": "n"}))
                assert json.loads(await ws.recv())["type"] == "pong"


async def test_a_token_in_the_url_is_refused_and_never_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            token = (await _account(http, "ann")).token
            caplog.set_level(logging.INFO, logger="uvicorn.error")  # the "[accepted]" lines
            for query in (f"token={token}", f"tok%65n={token}", f"TOKEN={token}",
                          f"a=1&access_token={token}", "v=2"):
                async with connect(f"ws://{address}/ws?{query}") as ws:
                    with suppress(websockets.ConnectionClosed):  # the close may come first
                        await ws.send(hello(token))  # a good hello after it changes nothing
                    code, reason = await _closed(ws)
                    assert code == 4401 and "hello" in reason, query
            # and from a foreign page, refused before the upgrade
            with pytest.raises(websockets.InvalidStatus):
                await connect(f"ws://{address}/ws?token={token}", origin="https://evil.example")
    logged = [r.getMessage() for r in caplog.records]
    assert any("/ws" in line and "[accepted]" in line for line in logged)  # logging was on
    assert any("/ws" in line and "403" in line for line in logged)
    assert not [line for line in logged if token in line or token[-20:] in line]


# --- Origin, the cap per address, the frame size ------------------------------------------


async def test_only_the_servers_own_or_a_listed_origin_may_open_the_socket(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    friend = "https://friend.example"
    with _server(tmp_path, ws_allowed_origins=[friend]) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            token = (await _account(http, "ann")).token
            port = address.rsplit(":", 1)[1]
            for origin in ("https://evil.example", f"http://evil.example:{port}",
                           "http://127.0.0.1:1", "null", f"{friend}.evil.example"):
                with pytest.raises(websockets.InvalidStatus) as refused:
                    await open_socket(address, token, origin=origin)
                response = refused.value.response
                assert response.status_code == 403, origin
                assert json.loads(response.body or b"")["error"]["code"] == "forbidden"
            # a refusal is the server doing its job, not an error of the app in its log
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
            # the page's own origin, a listed one, and a program that sends none
            for origin in (f"http://{address}", friend, "HTTPS://FRIEND.EXAMPLE", None):
                async with table_socket(address, token, origin=origin) as ws:
                    await ws.send(json.dumps({"type": "ping", "nonce": "n"}))
                    assert json.loads(await ws.recv())["type"] == "pong", origin


async def test_sockets_per_address_are_capped_before_the_upgrade(tmp_path: Path) -> None:
    with _server(tmp_path, ws_connections_per_address=3, ws_hello_seconds=60.0) as address:
        async with asyncio.timeout(30):
            held = [await connect(f"ws://{address}/ws") for _ in range(3)]  # no hello yet
            with pytest.raises(websockets.InvalidStatus) as refused:
                await connect(f"ws://{address}/ws")
            assert refused.value.response.status_code == 429
            assert json.loads(refused.value.response.body or b"")["error"]["code"] == (
                "rate_limited")
            await held[0].close()
            await held[0].wait_closed()
            while True:  # the slot comes back once the server has seen the close
                try:
                    again = await connect(f"ws://{address}/ws")
                    break
                except websockets.InvalidStatus:
                    await asyncio.sleep(0.05)
            for ws in (*held[1:], again):
                await ws.close()


async def test_the_addresses_of_one_ipv6_64_share_the_cap_on_sockets(tmp_path: Path) -> None:
    """The test server trusts 127.0.0.1 as its proxy: X-Forwarded-For says who calls."""

    async def from_(address: str, host: str) -> ClientConnection:
        return await connect(
            f"ws://{address}/ws", additional_headers={"X-Forwarded-For": host}
        )

    with _server(tmp_path, ws_connections_per_address=3, ws_hello_seconds=60.0) as address:
        async with asyncio.timeout(30):
            held = [await from_(address, f"2001:db8:0:1::{i}") for i in range(1, 4)]
            with pytest.raises(websockets.InvalidStatus) as refused:
                await from_(address, "2001:db8:0:1:ffff::1")
            assert refused.value.response.status_code == 429
            other = await from_(address, "2001:db8:0:2::1")  # another /64: its own cap
            for ws in (*held, other):
                await ws.close()


async def test_a_frame_over_the_size_limit_closes_the_socket(tmp_path: Path) -> None:
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            token = (await _account(http, "ann")).token
            async with table_socket(address, token) as ws:
                await ws.send(json.dumps({"type": "ping", "nonce": "n"}))
                assert json.loads(await ws.recv())["type"] == "pong"
                await ws.send(json.dumps({"type": "ping", "nonce": "x" * 5000}))
                code, _ = await _closed(ws)
                assert code == 1009


# --- the rate limit -----------------------------------------------------------------------


async def test_frames_over_the_rate_limit_get_at_most_one_notice_a_second(
    tmp_path: Path
) -> None:
    frames = 500
    with _server(tmp_path) as address:
        async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{address}") as http:
            token = (await _account(http, "ann")).token
            async with table_socket(address, token, max_queue=None) as ws:
                loop = asyncio.get_running_loop()
                started = loop.time()
                for n in range(frames):
                    await ws.send(json.dumps({"type": "ping", "nonce": str(n)}))
                replies: list[Message] = []

                async def read() -> None:  # up to the pong of a "last" ping
                    while (message := json.loads(await ws.recv())).get("nonce") != "last":
                        replies.append(message)

                reader = asyncio.create_task(read())
                while not reader.done():  # once the burst is over, a ping is taken again
                    await ws.send(json.dumps({"type": "ping", "nonce": "last"}))
                    await asyncio.wait({reader}, timeout=0.5)
                seconds = loop.time() - started
    notices = [m for m in replies if m["type"] == "error"]
    pongs = [m for m in replies if m["type"] == "pong"]
    assert notices and all(m["code"] == "rate_limited" for m in notices)
    assert len(notices) <= seconds + 1  # one a second at most, not one per frame dropped
    assert 20 <= len(pongs) <= 20 * (seconds + 1)  # the frames over the limit were dropped
    assert len(replies) < frames / 4


# --- a client that stops reading ----------------------------------------------------------


class RawClient:
    """A WebSocket client on a bare socket with small kernel buffers: it reads only when
    told to (a library client reads and answers pings by itself) and never answers a ping."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = b""
        self.received = 0  # bytes of frames read
        self.pongs = 0  # pong frames read

    @classmethod
    async def open(cls, address: str, token: str) -> RawClient:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)  # sent is read
        sock.setblocking(False)
        host, port = address.rsplit(":", 1)
        loop = asyncio.get_running_loop()
        await loop.sock_connect(sock, (host, int(port)))
        client = cls(sock)
        key = base64.b64encode(os.urandom(16)).decode()
        await loop.sock_sendall(sock, (
            f"GET /ws HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode())
        while b"\r\n\r\n" not in client._buffer:
            client._buffer += await client._recv()
        head, client._buffer = client._buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head
        await client.send(hello(token))
        return client

    async def _recv(self) -> bytes:
        data = await asyncio.get_running_loop().sock_recv(self._sock, 65536)
        if not data:
            raise EOFError
        return data

    async def send(self, text: str) -> None:
        await asyncio.get_running_loop().sock_sendall(self._sock, _frame(0x1, text.encode()))

    async def ping(self, count: int) -> None:
        """`count` pings of 125 bytes (the most a ping may carry)."""
        pings = _frame(0x9, b"p" * 125) * count
        await asyncio.get_running_loop().sock_sendall(self._sock, pings)

    def reset_by_server(self) -> bool:
        """Did the server abort the connection (a pending ECONNRESET, nothing read)?"""
        return self._sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNRESET

    async def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += await self._recv()
        taken, self._buffer = self._buffer[:n], self._buffer[n:]
        self.received += n
        return taken

    async def frame(self) -> tuple[int, bytes]:
        """The next frame from the server: its opcode and payload (EOFError at the end)."""
        first, second = await self._take(2)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", await self._take(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", await self._take(8))
        return first & 0x0F, await self._take(size)

    async def message(self) -> Message:
        """The next text message (pings are read and left unanswered, pongs skipped)."""
        while True:
            opcode, payload = await self.frame()
            if opcode == 0x1:
                return dict(json.loads(payload))
            assert opcode in (0x9, 0xA), opcode
            self.pongs += opcode == 0xA

    async def rest(self) -> tuple[int, int | None]:
        """Read up to the close frame or the end: the bytes read since the last `message`,
        and the close frame's code (None: no close frame, the connection just ended)."""
        self.received = 0
        try:
            while True:
                opcode, payload = await self.frame()
                if opcode == 0x8:
                    return self.received, struct.unpack("!H", payload[:2])[0]
        except (EOFError, ConnectionResetError):
            return self.received, None

    def close(self) -> None:
        self._sock.close()


def _frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (payloads under 64 KiB)."""
    mask, size = os.urandom(4), len(payload)
    head = struct.pack("!BB", 0x80 | opcode, 0x80 | size) if size < 126 else struct.pack(
        "!BBH", 0x80 | opcode, 0x80 | 126, size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@dataclass
class Observer:
    """A player at the same table, reading every table_state."""

    ws: ClientConnection
    states: list[Message] = field(default_factory=list)

    async def until(self, seat: int, connected: bool) -> None:
        """Read up to a table_state that shows `seat` connected (or not)."""
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] == "table_state":
                self.states.append(message)
                if message["seats"][seat]["connected"] == connected:
                    return


async def _table_with_a_hand(
    http: httpx.AsyncClient, address: str, raw_name: str
) -> tuple[RawClient, Observer, str]:
    """A table of four (the raw client at seat 0, an observer on 托管 at seat 1, two bots)
    with a hand in play and turns long enough that it stays in play; the raw client has
    read up to its first event."""
    slow, watcher = await _account(http, raw_name), await _account(http, "watcher")
    timers = {"discard": 120, "claim": 120, "ready": 1}
    table = (await http.post("/tables", json={"variant": "lishui", "stake": 1,
                                              "timers": timers},
                             headers=slow.headers)).json()["id"]
    raw = await RawClient.open(address, slow.token)
    observer = Observer(await open_socket(address, watcher.token))
    await http.post(f"/tables/{table}/sit", json={"seat": 0}, headers=slow.headers)
    await http.post(f"/tables/{table}/sit", json={"seat": 1}, headers=watcher.headers)
    await observer.ws.send(json.dumps({"type": "autoplay", "table_id": table, "on": True}))
    assert (await http.post(f"/tables/{table}/fill-bots", headers=slow.headers)).status_code == 200
    while (await raw.message())["type"] != "event":
        pass
    await observer.until(0, connected=True)
    return raw, observer, table


async def _flood(raw: RawClient, table: str, until: asyncio.Future[None]) -> int:
    """Ask for the hand again and again (each answer is a snapshot, seated and table_state:
    kilobytes) without reading, under the rate limit, until `until` is done: how many."""
    resume = json.dumps({"type": "resume", "table_id": table, "last_seq": 0})
    sent = 0
    while not until.done():
        await raw.send(resume)
        sent += 1
        await asyncio.sleep(1 / 18)
    return sent


def _held_at_most() -> int:
    """What the node may hold for one client: its queue, uvicorn's write buffer up to the
    high-water mark plus the message that crossed it, the kernel buffers at both ends
    (Linux doubles what is asked) and the close frame."""
    return QUEUE_BYTES + UVICORN_HIGH_WATER + 8 * 1024 + 2 * (SEND_BUFFER + RECEIVE_BUFFER)


async def test_a_client_that_never_reads_is_dropped_and_holds_bounded_memory(
    tmp_path: Path
) -> None:
    # the client keeps asking while the server waits `ws_send_timeout` for it to read
    settings = {"ws_send_queue_bytes": QUEUE_BYTES, "ws_send_timeout": 8.0,
                "ws_ping_interval": 300.0}
    with _server(tmp_path, SEND_BUFFER, **settings) as address:
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
            raw, observer, table = await _table_with_a_hand(http, address, "deaf")
            away = asyncio.ensure_future(observer.until(0, connected=False))
            sent = await _flood(raw, table, away)
            received, code = await raw.rest()
            raw.close()
            await observer.ws.close()
    answer = 2000  # bytes: an answer to one resume (seated, table_state, the hand) is more
    assert sent * answer > 2 * _held_at_most()  # what it asked for ...
    assert received < _held_at_most()  # ... and what the node held for it
    assert code is None  # it never read: the close frame could not be written


async def test_a_client_that_stops_reading_gets_4008_once_too_much_waits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = {"ws_send_queue_bytes": QUEUE_BYTES, "ws_send_timeout": 300.0,
                "ws_ping_interval": 300.0}
    with _server(tmp_path, SEND_BUFFER, **settings) as address:
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
            raw, observer, table = await _table_with_a_hand(http, address, "slow")
            overflowed = asyncio.get_running_loop().create_future()

            async def watch_log() -> None:
                while not any("wait for a client" in r.getMessage() for r in caplog.records):
                    await asyncio.sleep(0.05)
                overflowed.set_result(None)

            watcher = asyncio.create_task(watch_log())
            await _flood(raw, table, overflowed)
            await watcher
            received, code = await raw.rest()  # reading again: what waited, then the close
            await observer.until(0, connected=False)
            raw.close()
            await observer.ws.close()
    assert code == 4008
    assert received < _held_at_most()


# --- keepalive ----------------------------------------------------------------------------


async def test_a_client_that_stops_answering_pings_is_closed_and_its_seat_away(
    tmp_path: Path
) -> None:
    with _server(tmp_path, ws_ping_interval=0.5, ws_ping_timeout=1.0) as address:
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
            mute, watcher = await _account(http, "mute"), await _account(http, "watcher")
            table = (await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                     headers=mute.headers)).json()["id"]
            await http.post(f"/tables/{table}/sit", json={"seat": 0}, headers=mute.headers)
            await http.post(f"/tables/{table}/sit", json={"seat": 1}, headers=watcher.headers)
            observer = Observer(await open_socket(address, watcher.token))
            raw = await RawClient.open(address, mute.token)  # reads, but never answers a ping
            await observer.until(0, connected=True)
            pings = 0
            code = None
            try:
                while True:
                    opcode, payload = await raw.frame()
                    pings += opcode == 0x9
                    if opcode == 0x8:
                        code = struct.unpack("!H", payload[:2])[0]
            except EOFError:
                pass
            await observer.until(0, connected=False)  # the seat is disconnected
            # the observer answered every ping by itself and is still there
            await observer.ws.send(json.dumps({"type": "ping", "nonce": "n"}))
            while json.loads(await observer.ws.recv())["type"] != "pong":
                pass
            raw.close()
            await observer.ws.close()
    assert pings >= 1 and code == 1011


async def test_a_dropped_client_that_never_reads_is_let_go(tmp_path: Path) -> None:
    """uvicorn closes a transport by waiting for its buffer to drain, which a peer that
    never reads never lets happen: the node resets it instead (app/ops/transport.py)."""
    settings = {"ws_send_queue_bytes": QUEUE_BYTES, "ws_send_timeout": 1.0,
                "ws_ping_interval": 300.0, "write_stall_seconds": 3.0}
    with _server(tmp_path, SEND_BUFFER, **settings) as address:
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
            raw, observer, table = await _table_with_a_hand(http, address, "gone")
            away = asyncio.ensure_future(observer.until(0, connected=False))
            await _flood(raw, table, away)
            while not raw.reset_by_server():
                await asyncio.sleep(0.05)
            raw.close()
            await observer.ws.close()


async def test_pings_from_a_client_that_never_reads_are_not_answered_without_bound(
    tmp_path: Path
) -> None:
    pings = 20_000  # 2.5 MB of pongs, were each one answered
    with _server(tmp_path, SEND_BUFFER, ws_ping_interval=300.0) as address:
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{address}") as http:
            raw = await RawClient.open(address, (await _account(http, "pinger")).token)
            await raw.ping(pings)  # returns once the server has read all but a few
            await raw.send(json.dumps({"type": "ping", "nonce": "end"}))  # after them all
            while (await raw.message()).get("nonce") != "end":
                pass
            raw.close()
    # a pong for the pings read while uvicorn's buffer had room (64 KiB: ~500 pongs), and
    # for those still in the kernel's buffers when the client began to read; not for each
    assert 0 < raw.pongs < pings / 4
