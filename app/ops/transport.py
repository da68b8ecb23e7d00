"""The connections' own limits, below the app: uvicorn's HTTP protocol classes (httptools
and h11) and its WebSocket protocol (websockets-sansio) with three rules added, so that
idle, half-sent or unread connections cannot hold the process's sockets and memory.

- **Request time limit** (`request_timeout_seconds`, HTTP): a connection must deliver a
  whole request, head and body, within that many seconds of being opened, or of the end of
  the previous response (keep-alive); otherwise it is closed, without an answer. Bytes that
  arrive do not restart the clock: a client that trickles its head a byte at a time is
  closed like one that sends nothing. While the app works on a request it received whole,
  the clock is stopped (a slow answer is the server's own doing); the end of the response
  starts it again. A connection that becomes a WebSocket leaves the limit at the upgrade
  (its keepalive pings take over).
- **Stalled writes** (`write_stall_seconds`, HTTP and WebSocket): a connection whose peer
  reads nothing of what is sent to it for that long (the transport's buffer stays above
  its high-water mark, asyncio's `pause_writing` without `resume_writing`) is dropped
  with a reset (what is buffered, in the process and in the kernel, is discarded); so is
  a connection the server has closed that is still not gone one to two times that long
  later (what was left to send was under the high-water mark). Without this a client that
  never reads holds its socket and the server's buffers for good: closing such a
  connection waits for a flush that never comes, the WebSocket keepalive's close
  included.
- **Connections per peer** (`max_connections_per_peer`): a peer address holds at most that
  many open TCP connections, WebSockets included; one more is closed as soon as it is
  accepted, before a byte is read. A peer counts by `app.ops.addresses.address_key`, as
  every per-address limit does (an IPv6 peer as its /64). The peers in
  `forwarded_allow_ips` (trusted proxies) are exempt, each by its own address: behind a
  proxy every client shares its address, and the per-address WebSocket cap (app/api/ws.py)
  counts the forwarded address instead.

What this relies on in uvicorn (`HOOKS`, checked at import and by
tests/ops/test_transport.py against the installed uvicorn): the HTTP protocol methods
`connection_made`, `connection_lost`, `on_response_complete` (called when a response has
been written whole) and `handle_websocket_upgrade` (the switch to the WebSocket protocol;
the transport then belongs to that protocol and `connection_lost` is not called here), and
the attributes `transport` and `cycle`, the current request's cycle, whose `more_body` is
False once the request's body is in whole and `response_complete` True once it has been
answered; of both protocols, asyncio's `connection_made`, `connection_lost`,
`pause_writing` and `resume_writing`; of the WebSocket protocol, `handle_ping` and its
`writable` event and `conn` (the websockets connection), for the ping rule of
`WebSocketLimits`, and `send` and `handshake_complete`, so that a refused handshake is not
logged as an error. tests/ops/test_uvicorn_shape.py checks all of it, signatures and
attributes, and pyproject.toml bounds uvicorn to the versions it passed on; a uvicorn
outside those bounds (upgraded by hand over an installed server) is refused at import.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import struct
from collections.abc import Iterable
from importlib import metadata
from typing import Any, ClassVar, Literal

import httptools
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from app.ops import metrics
from app.ops.addresses import address_key
from app.ops.handoff import Adopt, Handoff, table_hint
from app.settings import Settings

HOOKS = (
    "connection_made", "connection_lost", "on_response_complete", "handle_websocket_upgrade",
    "pause_writing", "resume_writing",
)
WEBSOCKET_HOOKS = (
    "connection_made", "connection_lost", "pause_writing", "resume_writing", "handle_ping",
    "send", "run_asgi",
)
SEND_MANY = "zjmahjong.websocket.send_many"
"""The ASGI extension of `WebSocketLimits` (in the scope's ``extensions``): a
``websocket.send`` message may carry ``texts``, several text frames written to the socket
at once (one write for what waited in a socket's queue, not one per frame). Its value's
``writable`` is the protocol's event, set while the transport takes writes: a send then
returns without waiting."""
LINGER_OFF = struct.pack("ii", 1, 0)  # SO_LINGER on with 0 s: close() resets the connection
Parser = Literal["httptools", "h11"]


class TrustedPeers:
    """The peers of a `forwarded_allow_ips` list, read as uvicorn reads it: comma-separated
    addresses or networks, `*` for any peer, anything else (a Unix socket's name) taken
    literally."""

    def __init__(self, spec: str) -> None:
        entries = {entry.strip() for entry in spec.split(",") if entry.strip()}
        self.any = "*" in entries
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.literals: set[str] = set()
        for entry in entries - {"*"}:
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.literals.add(entry)

    def __contains__(self, host: str) -> bool:
        if self.any or host in self.literals:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


def peer_host(transport: asyncio.BaseTransport) -> str | None:
    """The peer's address (no port), None for a peer without one (a Unix socket)."""
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else None


class PeerConnections:
    """The open connections of each untrusted peer address, at most `limit` each; a peer
    counts by `address_key` as every per-address limit does (an IPv6 one as its /64: one
    host may take any address of it), a trusted proxy is exempt by its own address.

    A connection is counted by its transport from the moment it is accepted until the
    transport closes, whatever protocol then holds it (a WebSocket's transport leaves the
    HTTP protocol at the upgrade, so closed transports are dropped whenever their address
    is looked at, and every `SWEEP_EVERY` admissions for all addresses)."""

    SWEEP_EVERY = 1024

    def __init__(self, limit: int, trusted: TrustedPeers) -> None:
        self.limit = limit
        self.trusted = trusted
        self._open: dict[str, set[asyncio.BaseTransport]] = {}
        self._admitted = 0

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count `transport` for its peer; False (not counted) when the peer is at the cap."""
        host = peer_host(transport)
        if host is None or host in self.trusted:
            return True
        self._admitted += 1
        if self._admitted % self.SWEEP_EVERY == 0:
            for other in list(self._open):
                self._prune(other)
        key = address_key(host)
        held = self._prune(key)
        if len(held) >= self.limit:
            return False
        held.add(transport)
        self._open[key] = held
        return True

    def forget(self, transport: asyncio.BaseTransport) -> None:
        """`transport` has closed: drop its peer's closed transports."""
        host = peer_host(transport)
        if host is not None:
            self._prune(address_key(host))

    def _prune(self, key: str) -> set[asyncio.BaseTransport]:
        held = {transport for transport in self._open.pop(key, ()) if not transport.is_closing()}
        if held:
            self._open[key] = held
        return held


class StalledWrites(asyncio.Protocol):
    """The stalled-writes rule over any uvicorn protocol (first in the bases of a class that
    also derives from one: `super()` is then that protocol)."""

    write_stall: ClassVar[float]
    transport: asyncio.Transport
    _stall: asyncio.TimerHandle | None = None
    _watch: asyncio.TimerHandle | None = None
    _seen_closing = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._look_later()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None:
            loop = asyncio.get_running_loop()
            self._stall = loop.call_later(self.write_stall, self._drop)

    def resume_writing(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        super().connection_lost(exc)

    def _look_later(self) -> None:
        self._watch = asyncio.get_running_loop().call_later(self.write_stall, self._look)

    def _look(self) -> None:
        """A connection the server closed, still there a whole `write_stall` later, is
        waiting for a peer that reads nothing (below the high-water mark, so without a
        stall): it is dropped too."""
        if self.transport.is_closing():
            if self._seen_closing:
                self._drop()
                return
            self._seen_closing = True
        self._look_later()

    def _stop_watching(self) -> None:
        for timer in (self._stall, self._watch):
            if timer is not None:
                timer.cancel()
        self._stall = self._watch = None

    def _drop(self) -> None:
        """Close with a reset: a plain close would leave the kernel sending what is
        buffered (megabytes) to a peer that does not read."""
        self._stop_watching()
        sock = self.transport.get_extra_info("socket")
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_OFF)
        except (AttributeError, OSError):
            pass  # no socket object, or closed already: the abort alone then
        self.transport.abort()


class _Limits(StalledWrites):
    """The HTTP rules over either uvicorn HTTP protocol (first in the bases, as
    `StalledWrites`)."""

    request_timeout: ClassVar[float]
    peers: ClassVar[PeerConnections]
    cycle: Any
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if not self.peers.admit(transport):
            transport.close()
            return
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)
        self.peers.forget(self.transport)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing():
            self._start_clock()

    def handle_websocket_upgrade(self, *args: Any) -> None:
        self._stop_clock()
        self._stop_watching()  # the WebSocket protocol watches the transport from now on
        super().handle_websocket_upgrade(*args)  # type: ignore[misc]

    def _start_clock(self) -> None:
        self._stop_clock()
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self.request_timeout, self._expired)

    def _stop_clock(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            return  # the app is answering a whole request: its response restarts the clock
        self.transport.close()


class HttpToolsLimits(_Limits, HttpToolsProtocol):
    """Also: a WebSocket upgrade of ``/ws/<table_id>`` is handed to the worker that owns
    that table when `handoff` is set and it is another worker (app/ops/handoff.py); reading
    stops while the owner is looked up, and anything that fails serves it here."""

    handoff: ClassVar[Handoff | None] = None
    handed_over = False  # this connection came from another worker: it stays here
    _handing: asyncio.Task[None] | None = None

    def handle_websocket_upgrade(self, *args: Any) -> None:
        handoff = self.handoff
        if handoff is not None and not self.handed_over:
            table_id = table_hint(httptools.parse_url(self.url).path)
            if table_id is not None:
                self._stop_clock()
                self.transport.pause_reading()
                self._handing = asyncio.get_running_loop().create_task(
                    self._hand_over(handoff, table_id, args)
                )
                return
        super().handle_websocket_upgrade(*args)

    async def _hand_over(self, handoff: Handoff, table_id: str, args: tuple[Any, ...]) -> None:
        sock = self.transport.get_extra_info("socket")
        if sock is not None and await handoff.pass_on(table_id, sock, self._head()):
            self.transport.abort()  # the other worker holds the connection now
            return
        metrics.handoff("kept")
        if self.transport.is_closing():
            return
        self.transport.resume_reading()
        super().handle_websocket_upgrade(*args)

    def _head(self) -> bytes:
        """The upgrade request as it arrived (what uvicorn feeds its WebSocket protocol)."""
        out = [self.scope["method"].encode(), b" ", self.url, b" HTTP/1.1\r\n"]
        for name, value in self.scope["headers"]:
            out += [name, b": ", value, b"\r\n"]
        out.append(b"\r\n")
        return b"".join(out)


def adopter(config: Any, server_state: Any, app_state: dict[str, Any]) -> Adopt:
    """What serves a connection another worker handed over: a new HTTP protocol of
    `config` (uvicorn's objects, as its server makes one per accepted connection) on the
    socket, fed the request head that was read there."""
    tasks: set[asyncio.Task[None]] = set()

    async def serve(sock: socket.socket, head: bytes) -> None:
        protocol = config.http_protocol_class(
            config=config, server_state=server_state, app_state=app_state
        )
        protocol.handed_over = True
        try:
            transport, _ = await asyncio.get_running_loop().connect_accepted_socket(
                lambda: protocol, sock
            )
        except OSError:
            sock.close()
            return
        if not transport.is_closing():
            protocol.data_received(head)

    def adopt(sock: socket.socket, head: bytes) -> None:
        task = asyncio.get_running_loop().create_task(serve(sock, head))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    return adopt


class H11Limits(_Limits, H11Protocol):
    pass


class WebSocketLimits(StalledWrites, WebSocketsSansIOProtocol):
    """Also: while the write buffer is over its high-water mark, a peer's pings are not
    answered. uvicorn answers every ping with a pong written straight into that buffer,
    read or not: a client that sent pings and read nothing grew a node by 83 MB in 10 s."""

    def handle_ping(self) -> None:
        if self.writable.is_set():
            super().handle_ping()
        else:
            self.conn.data_to_send()  # the pong is dropped: the peer is not reading

    async def run_asgi(self) -> None:
        self.scope["extensions"][SEND_MANY] = {"writable": self.writable}  # type: ignore[index]
        await super().run_asgi()

    async def send(self, message: Any) -> None:
        """``texts`` (`SEND_MANY`): the frames written at once, as uvicorn writes one.
        A handshake refused with an HTTP answer (a foreign Origin, a limit) is a
        handshake completed: uvicorn 0.54 logged each one as an error of the app."""
        texts = message.get("texts")
        if texts is not None and message["type"] == "websocket.send" and self.handshake_complete:
            await self.writable.wait()
            if self.disconnected:
                raise ClientDisconnected()
            if self.close_sent:
                raise RuntimeError(
                    "Unexpected ASGI message 'websocket.send', after sending 'websocket.close'."
                )
            try:
                for text in texts:
                    self.conn.send_text(text.encode())
            except InvalidState:
                raise ClientDisconnected() from None
            self.transport.write(b"".join(self.conn.data_to_send()))
            return
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body"):
            self.handshake_complete = True


_PARSERS: dict[Parser, type[_Limits]] = {"httptools": HttpToolsLimits, "h11": H11Limits}


def check_hooks(base: type, hooks: tuple[str, ...] = HOOKS) -> None:
    """Refuse to serve over a uvicorn whose protocol class lacks a hook these rules need."""
    missing = [name for name in hooks if not callable(getattr(base, name, None))]
    if missing:
        raise RuntimeError(
            f"{base.__qualname__} has no {', '.join(missing)}: this uvicorn does not fit "
            "app/ops/transport.py"
        )


def check_uvicorn_version(installed: str, requires: Iterable[str]) -> None:
    """Refuse a uvicorn outside the versions the project requires (`requires`, its
    Requires-Dist: pyproject.toml's bound, the versions this module was tested on). pip keeps
    to them; one upgraded by hand would serve with limits that may silently not apply."""
    for line in requires:
        required = Requirement(line)
        if canonicalize_name(required.name) != "uvicorn" or required.marker is not None:
            continue
        if not required.specifier.contains(installed, prereleases=True):
            raise RuntimeError(
                f"uvicorn {installed} is not {required.specifier}, the versions "
                "app/ops/transport.py was tested on: it extends uvicorn's private protocol "
                "classes. Install one of those, or raise the bound in pyproject.toml once "
                "tests/ops/test_uvicorn_shape.py and tests/ops/test_transport.py pass on "
                f"uvicorn {installed}"
            )


def _project_requires() -> list[str]:
    """The installed project's Requires-Dist; none when it runs from a bare source tree."""
    try:
        return metadata.requires("zjmahjong") or []
    except metadata.PackageNotFoundError:
        return []


check_uvicorn_version(metadata.version("uvicorn"), _project_requires())
for _base in (HttpToolsProtocol, H11Protocol):
    check_hooks(_base)
check_hooks(WebSocketsSansIOProtocol, WEBSOCKET_HOOKS)


def http_protocol(settings: Settings, parser: Parser = "httptools") -> type[asyncio.Protocol]:
    """The HTTP protocol class for one server (uvicorn's `http=`): `parser`'s protocol with
    the limits of `settings` and a count of connections per peer of its own."""
    limited = _PARSERS[parser]
    trusted = TrustedPeers(settings.forwarded_allow_ips)
    return type(
        limited.__name__,
        (limited,),
        {
            "request_timeout": settings.request_timeout_seconds,
            "write_stall": settings.write_stall_seconds,
            "peers": PeerConnections(settings.max_connections_per_peer, trusted),
        },
    )


def websocket_protocol(settings: Settings) -> type[asyncio.Protocol]:
    """The WebSocket protocol class (uvicorn's `ws=`): websockets-sansio with the
    stalled-writes rule of `settings`."""
    return type(
        WebSocketLimits.__name__, (WebSocketLimits,), {"write_stall": settings.write_stall_seconds}
    )
