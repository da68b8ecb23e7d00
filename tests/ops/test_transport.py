"""The connections' own limits (app/ops/transport.py) against a real uvicorn: what an
attacker holding sockets open meets, and what a normal client must still get."""

from __future__ import annotations

import asyncio
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, WebSocket
from fastapi.responses import StreamingResponse
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.sync.client import connect as ws_connect

from app.ops.serve import FEW_FILES, raise_open_file_limit
from app.ops.transport import (
    HOOKS,
    Parser,
    PeerConnections,
    StalledWrites,
    TrustedPeers,
    check_hooks,
    http_protocol,
)
from tests.live import live_server, sqlite_settings

LIMIT = 1.0  # the request time limit of these servers, seconds
TCP_ESTABLISHED = 1  # the first byte of Linux's TCP_INFO
WAIT = 15.0  # how long a test waits for the server to close a connection
HEALTH = b"GET /health HTTP/1.1\r\nHost: test\r\n\r\n"
LOGIN_HEAD = (
    b"POST /auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    b"Content-Length: 60\r\n\r\n"
)


@contextmanager
def _server(tmp_path: Path, parser: Parser = "httptools", **options: Any) -> Iterator[int]:
    """A live server with `options` as settings (request and write-stall limits of `LIMIT`
    unless given); its port. Routes for the tests: /test/slow answers after twice the
    limit, /test/echo is a WebSocket that echoes, /test/bursts sends `BURSTS` bursts half
    the limit apart, /test/stream and /test/flood send without end (HTTP, WebSocket) and
    set `GAVE_UP[port]` when the server gives up on them."""
    settings = sqlite_settings(
        tmp_path / "edge.db",
        **{"request_timeout_seconds": LIMIT, "write_stall_seconds": LIMIT, **options},
    )
    with live_server(settings, http=http_protocol(settings, parser)) as (port, app):
        GAVE_UP[port] = _add_test_routes(app)
        yield port


GAVE_UP: dict[int, threading.Event] = {}
CHUNK = "x" * 1000
BURSTS, BURST = 4, 16 << 20


def _add_test_routes(app: FastAPI) -> threading.Event:
    gave_up = threading.Event()

    async def slow() -> dict[str, str]:
        await asyncio.sleep(2 * LIMIT)
        return {"status": "late"}

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            await websocket.send_text(await websocket.receive_text())

    async def chunks() -> AsyncIterator[str]:
        try:
            while True:
                yield CHUNK
                await asyncio.sleep(0)  # a send to a lost client returns without waiting
        finally:
            gave_up.set()

    async def stream() -> StreamingResponse:
        return StreamingResponse(chunks(), media_type="text/plain")

    async def burst_chunks() -> AsyncIterator[bytes]:
        for _ in range(BURSTS):
            yield b"x" * BURST
            await asyncio.sleep(LIMIT / 2)

    async def bursts() -> StreamingResponse:
        return StreamingResponse(burst_chunks(), media_type="text/plain")

    async def flood(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(CHUNK)
        finally:  # the socket is gone, however the server says it
            gave_up.set()

    app.add_api_route("/test/slow", slow)
    app.add_api_route("/test/stream", stream)
    app.add_api_route("/test/bursts", bursts)
    app.add_api_websocket_route("/test/echo", echo)
    app.add_api_websocket_route("/test/flood", flood)
    return gave_up


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(WAIT)
    sock.connect(("127.0.0.1", port))
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection; fails if it keeps it open."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the server kept the connection open ({data!r})") from None
    return data


def _response(sock: socket.socket) -> tuple[int, bytes]:
    """One response (status, body) read off a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a response ({data!r})"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return int(head.split(b" ", 2)[1]), body


def _served(port: int, source: str = "127.0.0.1") -> bool:
    """Whether a new connection from `source` gets an answer to GET /health."""
    with _connect(port, source) as sock:
        try:
            sock.sendall(HEALTH)
            return _response(sock)[0] == 200
        except (AssertionError, ConnectionError):
            return False


@pytest.fixture(params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest) -> Parser:
    return request.param  # type: ignore[no-any-return]


def test_a_socket_that_sends_nothing_is_closed(tmp_path: Path, parser: Parser) -> None:
    with _server(tmp_path, parser) as port, _connect(port) as sock:
        assert _until_closed(sock) == b""


def test_a_head_trickled_a_byte_at_a_time_is_closed(tmp_path: Path, parser: Parser) -> None:
    """Bytes that come do not restart the clock (slowloris)."""
    with _server(tmp_path, parser) as port, _connect(port) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: test\r\n")
        assert _closed_while_trickling(sock)


def _closed_while_trickling(sock: socket.socket) -> bool:
    """Send a byte of a header every fifth of the limit until the server closes (True) or
    `WAIT` seconds have passed (False)."""
    sock.settimeout(LIMIT / 5)
    for _ in range(int(WAIT * 5 / LIMIT)):
        try:
            sock.sendall(b"X")
            if sock.recv(1) == b"":
                return True
        except TimeoutError:
            continue
        except ConnectionError:
            return True
    return False


def test_a_head_with_half_its_body_is_closed_unanswered(tmp_path: Path, parser: Parser) -> None:
    with _server(tmp_path, parser) as port, _connect(port) as sock:
        sock.sendall(LOGIN_HEAD + b'{"username": "abc", "pass')
        assert _until_closed(sock) == b""


def test_keep_alive_serves_request_after_request(tmp_path: Path, parser: Parser) -> None:
    """A kept-alive connection is served again and again; the clock restarts at each
    response, so a half-sent next request is closed, though keep-alive is longer."""
    with _server(tmp_path, parser, keep_alive_seconds=60) as port, _connect(port) as sock:
        for _ in range(3):
            sock.sendall(HEALTH)
            status, body = _response(sock)
            assert status == 200 and body.startswith(b'{"status":"ok"')
            time.sleep(LIMIT / 2)
        sock.sendall(b"GET /health HTTP/1.1\r\n")
        assert _until_closed(sock) == b""


def test_an_answer_slower_than_the_limit_still_comes(tmp_path: Path, parser: Parser) -> None:
    """The limit is on the client's sending, not on the app's answer."""
    with _server(tmp_path, parser) as port, _connect(port) as sock:
        sock.sendall(b"GET /test/slow HTTP/1.1\r\nHost: test\r\n\r\n")
        assert _response(sock) == (200, b'{"status":"late"}')


def test_a_websocket_outlives_the_limit(tmp_path: Path, parser: Parser) -> None:
    with _server(tmp_path, parser) as port, ws_connect(f"ws://127.0.0.1:{port}/test/echo") as ws:
        time.sleep(3 * LIMIT)
        ws.send("still here")
        assert ws.recv(timeout=WAIT) == "still here"


def _unread_until_dropped(port: int, request: bytes) -> None:
    """Send `request` and read nothing until the server has given up sending (fails after
    `WAIT` seconds); then the connection is found closed."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(WAIT)
    with sock:
        sock.connect(("127.0.0.1", port))
        sock.sendall(request)
        assert GAVE_UP[port].wait(WAIT), "the server kept sending to a client that reads nothing"
        received = 0
        while received < 64 << 20:  # what the buffers held (a few MiB at most), then the end
            try:
                chunk = sock.recv(1 << 20)
            except ConnectionResetError:
                return
            if not chunk:
                return
            received += len(chunk)
        raise AssertionError("the server still sends")


def test_a_response_nobody_reads_is_dropped(tmp_path: Path, parser: Parser) -> None:
    with _server(tmp_path, parser) as port:
        _unread_until_dropped(port, b"GET /test/stream HTTP/1.1\r\nHost: test\r\n\r\n")


def test_a_websocket_that_reads_nothing_is_dropped(tmp_path: Path) -> None:
    upgrade = (
        b"GET /test/flood HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    )
    with _server(tmp_path) as port:
        _unread_until_dropped(port, upgrade)


async def test_a_closed_connection_left_unread_is_reset() -> None:
    """The server closes a connection with 16 MiB still to send (under the transport's
    high-water mark, so its writes never stall) to a client that reads nothing: a plain
    close would wait for ever; the connection is reset instead."""

    class Closes(StalledWrites):
        write_stall = 0.2

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            self.transport = transport
            super().connection_made(transport)
            transport.set_write_buffer_limits(high=64 << 20)
            transport.write(b"x" * (16 << 20))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Closes, "127.0.0.1", 0)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    async with server:
        sock.connect(server.sockets[0].getsockname())
        with sock:
            for _ in range(int(WAIT / 0.05)):
                if sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != TCP_ESTABLISHED:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the closed connection was never reset")


def test_a_client_that_reads_keeps_its_stream(tmp_path: Path) -> None:
    """Writes that wait for the client and then go on are no stall: a response sent in
    bursts of 16 MiB (each more than the kernel takes, so the transport waits), half the
    limit apart, reaches a client that reads, though it takes twice the limit."""
    with (
        _server(tmp_path) as port,
        httpx.stream("GET", f"http://127.0.0.1:{port}/test/bursts", timeout=WAIT) as answer,
    ):
        assert len(b"".join(answer.iter_bytes())) == BURSTS * BURST


def _until_served(port: int, failure: str) -> None:
    """Wait (at most `WAIT`) until 127.0.0.1 is served again; `failure` if it is not."""
    deadline = time.monotonic() + WAIT
    while not _served(port):
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


def test_a_peer_over_its_cap_is_closed_at_once_another_is_served(tmp_path: Path) -> None:
    """127.0.0.1 is no trusted proxy here: its fourth connection is closed at once (the
    time limit is far), while 127.0.0.2 is served; a closed connection frees its place."""
    options = {"max_connections_per_peer": 3, "forwarded_allow_ips": "10.0.0.1",
               "request_timeout_seconds": 60.0}
    with _server(tmp_path, **options) as port, ExitStack() as held:
        first = [held.enter_context(_connect(port)) for _ in range(3)]
        for sock in first:
            sock.sendall(HEALTH)
            assert _response(sock)[0] == 200
        with _connect(port) as extra:
            assert _until_closed(extra) == b""
        assert _served(port, source="127.0.0.2")
        first[0].close()
        _until_served(port, "a closed connection kept its place")


def test_a_websocket_counts_as_a_connection_of_its_peer(tmp_path: Path) -> None:
    options = {"max_connections_per_peer": 2, "forwarded_allow_ips": "10.0.0.1"}
    with _server(tmp_path, **options) as port:
        with (
            ws_connect(f"ws://127.0.0.1:{port}/test/echo"),
            ws_connect(f"ws://127.0.0.1:{port}/test/echo"),
        ):
            assert not _served(port)
        _until_served(port, "closed WebSockets kept their places")


def test_a_trusted_proxy_is_not_capped(tmp_path: Path) -> None:
    options = {"max_connections_per_peer": 2, "forwarded_allow_ips": "127.0.0.0/24",
               "request_timeout_seconds": 60.0}
    with _server(tmp_path, **options) as port, ExitStack() as held:
        socks = [held.enter_context(_connect(port)) for _ in range(5)]
        for sock in socks:
            sock.sendall(HEALTH)
            assert _response(sock)[0] == 200


def test_health_answers_while_2000_idle_sockets_are_open(tmp_path: Path) -> None:
    """2,000 sockets (client and server ends in this process) that send nothing, half a
    head or a head and half a body: /health still answers, and all are closed."""
    raise_open_file_limit()
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 5000:
        pytest.skip(f"an open-file limit of {soft} is too low for 4,000 sockets")
    openers = [b"", b"GET /health HTTP/1.1\r\nHost: te", LOGIN_HEAD + b'{"user']
    with _server(tmp_path, request_timeout_seconds=5.0) as port, ExitStack() as held:
        idle = []
        for n in range(2000):
            sock = held.enter_context(_connect(port))
            sock.sendall(openers[n % 3])
            idle.append(sock)
        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=WAIT)
        assert health.status_code == 200
        with selectors.DefaultSelector() as selector:
            for sock in idle:
                selector.register(sock, selectors.EVENT_READ)
            deadline = time.monotonic() + 60
            while selector.get_map():
                assert time.monotonic() < deadline, f"{len(selector.get_map())} still open"
                for key, _ in selector.select(timeout=1):
                    try:
                        assert key.fileobj.recv(1024) == b""  # type: ignore[union-attr]
                    except ConnectionResetError:
                        pass
                    selector.unregister(key.fileobj)


@pytest.mark.parametrize("hard_limit", [None, 1024])
def test_the_open_file_limit_is_raised_to_the_hard_limit(hard_limit: int | None) -> None:
    """A process started with a soft limit of 256 (a common default) raises it to its hard
    limit and logs the figure; a warning when the hard limit leaves few files."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    hard = hard if hard_limit is None else min(hard, hard_limit)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"the hard limit ({hard}) leaves nothing to raise")
    script = (
        "import logging, resource; logging.basicConfig(format='%(levelname)s %(message)s'); "
        "logging.getLogger().setLevel('INFO'); "
        "from app.ops.serve import raise_open_file_limit; "
        "print(*raise_open_file_limit(), *resource.getrlimit(resource.RLIMIT_NOFILE))"
    )

    def lowered() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    ran = subprocess.run(
        [sys.executable, "-c", script], preexec_fn=lowered, capture_output=True, text=True,
        check=True,
    )
    before, after, soft_now, hard_now = map(int, ran.stdout.split())
    assert (before, after) == (256, soft_now)
    assert soft_now == (hard_now if hard_now != resource.RLIM_INFINITY else 1 << 20)
    level = "WARNING" if soft_now < FEW_FILES else "INFO"
    assert f"{level} open-file limit: {soft_now} (was 256)" in ran.stderr


@pytest.mark.parametrize("base", [HttpToolsProtocol, H11Protocol])
def test_a_uvicorn_without_a_hook_is_refused(base: type) -> None:
    """The hooks the limits rely on exist in the installed uvicorn; a protocol class
    without one of them is refused, not silently left without limits."""
    check_hooks(base)
    for hook in HOOKS:
        changed = type("Changed", (base,), {hook: None})
        with pytest.raises(RuntimeError, match=hook):
            check_hooks(changed)


def test_trusted_peers_read_as_uvicorn_reads_them() -> None:
    trusted = TrustedPeers("127.0.0.1, 10.1.0.0/16,::1,/run/proxy.sock")
    assert "127.0.0.1" in trusted and "10.1.200.3" in trusted and "::1" in trusted
    assert "::ffff:10.1.0.9" in trusted and "/run/proxy.sock" in trusted
    assert "127.0.0.2" not in trusted and "10.2.0.1" not in trusted
    assert "203.0.113.9" in TrustedPeers("*")


class _Peer(asyncio.BaseTransport):
    """A transport as `PeerConnections` sees one: a peer address, open until closed."""

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host, self.closed = host, False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.host, 40000, 0, 0) if name == "peername" else default

    def is_closing(self) -> bool:
        return self.closed


def test_the_addresses_of_one_ipv6_64_share_the_connection_cap() -> None:
    """One host can take any address of its /64: they all count as one peer; another /64
    is another peer, and a closed connection gives its place back."""
    peers = PeerConnections(3, TrustedPeers("10.0.0.1"))
    held = [_Peer(f"2001:db8:0:1::{i}") for i in range(1, 4)]
    assert all(peers.admit(peer) for peer in held)
    assert not peers.admit(_Peer("2001:db8:0:1::99"))
    assert not peers.admit(_Peer("2001:db8:0:1:ffff:ffff:ffff:ffff"))
    assert peers.admit(_Peer("2001:db8:0:2::1"))
    held[0].closed = True
    peers.forget(held[0])
    assert peers.admit(_Peer("2001:db8:0:1::99"))


def test_a_trusted_proxy_is_exempt_by_its_own_address_not_its_64() -> None:
    peers = PeerConnections(2, TrustedPeers("2001:db8:0:1::1"))
    assert all(peers.admit(_Peer("2001:db8:0:1::1")) for _ in range(5))
    assert peers.admit(_Peer("2001:db8:0:1::2")) and peers.admit(_Peer("2001:db8:0:1::3"))
    assert not peers.admit(_Peer("2001:db8:0:1::4"))
