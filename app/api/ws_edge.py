"""What the table WebSocket checks before it accepts a handshake (app/api/ws.py).

Rules:
- `Origin`: a handshake that carries one is accepted when it is the server's own origin
  (its host and port are the `Host` header's; the scheme is not compared, since a proxy in
  front may end TLS) or one of `ws_allowed_origins`; any other Origin, `null` included, is
  refused. A handshake without an Origin is accepted: browsers always send one on a
  WebSocket handshake, so a missing one is a program (the load test, a native app), which
  could send any Origin it liked and is stopped by the hello's token instead;
- at most `ws_connections_per_address` sockets at once per client address on this node
  (`AddressSlots`); the address is the peer's, or X-Forwarded-For's when the peer is a
  trusted proxy (uvicorn's `forwarded_allow_ips`), counted by `address_key` as every
  per-address limit is (an IPv6 one as its /64);
- `/ws` takes no query string: the access token goes in the hello message. Whatever query
  a client sends is taken out of the request before anything is logged (`take_query`), so
  that a token put there, however its name is spelled, reaches no log line.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.websockets import WebSocket

from app.ops.addresses import address_key

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """`host[:port]` as a lower-case host and a port (the scheme's default when left out)."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a bad port, a bad IPv6 literal
        return None
    if not parts.hostname or port is None:
        return None
    return parts.hostname, port


def origin_allowed(headers: Headers, allowed: list[str]) -> bool:
    """May a page of this handshake's Origin open the socket (see the module's rules)?"""
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in {a.strip().lower().rstrip("/") for a in allowed}:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or parts.path or parts.query:
        return False
    own = _host_port(headers.get("host", ""), parts.scheme)
    return own is not None and _host_port(parts.netloc, parts.scheme) == own


def take_query(websocket: WebSocket) -> bytes:
    """The handshake's query string, removed from the request: uvicorn's log lines
    ("WebSocket /ws ... [accepted]", "... 403") print the request's path from it."""
    query: bytes = websocket.scope.get("query_string", b"")
    websocket.scope["query_string"] = b""
    return query


def client_address(websocket: WebSocket) -> str:
    """The key the socket counts against (`address_key`: an IPv6 client is its /64)."""
    client = websocket.client
    return address_key(client.host if client is not None else "unknown")


class AddressSlots:
    """Sockets open per client address, at most `limit` each."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._open: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        """Count one more socket of `address`, unless it has `limit` open already."""
        if self._open[address] >= self._limit:
            return False
        self._open[address] += 1
        return True

    def give_back(self, address: str) -> None:
        """One socket of `address` closed."""
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]
