"""What the edge sees of every request: a pure ASGI middleware, the outermost of the app, that
names the request in the logs and counts it.

- **Request id**: a request's (or a WebSocket handshake's) `X-Request-ID`, when it is sane (1
  to `MAX_REQUEST_ID` characters of letters, digits and `._:;=+/@-`, what proxies and
  tracers send), else a new random one; every log line of the request (and of the tasks it
  starts: a socket's) carries it (`request_id`, app/ops/logging.py), uvicorn's access line
  included, and the answer sends it back in `X-Request-ID` (an accepted WebSocket's
  handshake too). A header that is not sane is replaced, never echoed: it is the client's
  text in our logs.
- **Node id**: every line logged while serving the app carries the app's node id (the
  lifespan's tasks, the tables', every request's).
- **Metrics**: `mahjong_http_requests_total{method, route, status}` and
  `mahjong_http_request_duration_seconds{method, route}` (from the request's arrival to the
  end of the app's answer), where `route` is the route's template (`/tables/{table_id}/sit`),
  never the raw path: a path that matches no route (a 404) is `unrouted`, so a stranger
  cannot grow the series.
  Every 429 answered (an HTTP request or a WebSocket handshake) is also counted in
  `mahjong_rate_limited_total{limit}`: `requests` or `ws_connects` when the edge's request
  limits refused it (app/api/throttle.py), else the template of the route whose own limit
  did (`/auth/login`, `/auth/register`, `/ws`, `/replays/{hand_id}` ...). Each route's series
  exist from the start, at 0 (`prefill`, at the app's start).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterable
from typing import Any

from prometheus_client import Counter, Histogram
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.ops import logging as ops_logging
from app.ops.metrics import PREFIX

MAX_REQUEST_ID = 128
_SANE_ID = re.compile(rf"[A-Za-z0-9._:;=+/@-]{{1,{MAX_REQUEST_ID}}}")
HEADER = b"x-request-id"
UNROUTED = "unrouted"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
EDGE_LIMITS = {"http": "requests", "websocket": "ws_connects"}

# a REST answer: 1 ms to 10 s
HTTP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    f"{PREFIX}_http_requests",
    "HTTP requests answered, by method, route template (unrouted: no route matched) and "
    "status",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    f"{PREFIX}_http_request_duration_seconds",
    "From an HTTP request's arrival to the end of its answer, by method and route template",
    ["method", "route"],
    buckets=HTTP_BUCKETS,
)
RATE_LIMITED = Counter(
    f"{PREFIX}_rate_limited",
    "Requests and WebSocket handshakes answered 429, by the limit that refused them "
    "(requests, ws_connects: the edge's request limits; else the route whose own limit did)",
    ["limit"],
)


def request_id(scope: Scope) -> str:
    """The request's `X-Request-ID` if it is sane, else a new one."""
    for name, value in scope.get("headers", ()):
        if name == HEADER:
            text = value.decode("latin-1")
            if _SANE_ID.fullmatch(text):
                return text
            break
    return uuid.uuid4().hex


def route_of(scope: Scope) -> str:
    """The template of the route that served the request, or `UNROUTED`. The router names
    its routes in the scope; the app's own pages outside it (FastAPI's /docs) are looked
    up."""
    route = scope.get("route")
    if route is None:
        route = next((r for r in getattr(scope.get("app"), "routes", ())
                      if hasattr(r, "path_format") and r.matches(scope)[0] == Match.FULL), None)
    path = getattr(route, "path_format", None)
    return path if isinstance(path, str) else UNROUTED


def _method(scope: Scope) -> str:
    method = str(scope.get("method", "GET"))
    return method if method in METHODS else "other"


def observed(scope: Scope, status: int, seconds: float) -> None:
    """One HTTP request answered with `status` after `seconds`."""
    method, route = _method(scope), route_of(scope)
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(method, route).observe(seconds)
    if status == 429:
        refused(scope)


def refused(scope: Scope) -> None:
    """A 429: counted by the limit that gave it."""
    edge = scope.get("route") is None  # refused before the router ran
    RATE_LIMITED.labels(EDGE_LIMITS[scope["type"]] if edge else route_of(scope)).inc()


def _routes(routes: Iterable[Any]) -> Iterable[Any]:
    """Every route of `routes`, those of included routers too."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _routes(included.routes)
        else:
            yield route


def prefill(app: Any) -> None:
    """Make every HTTP route's series (at its success status) and every edge limit's, at 0:
    a rate or an alert over them has a series to read before the first request."""
    for route in _routes(getattr(app, "routes", ())):
        methods = getattr(route, "methods", None)
        path = getattr(route, "path_format", None)
        if not methods or not isinstance(path, str):
            continue  # a WebSocket route, a mount
        status = str(getattr(route, "status_code", None) or 200)
        for method in sorted(set(methods) & METHODS - {"HEAD"}):
            REQUESTS.labels(method, path, status)
            LATENCY.labels(method, path)
    REQUESTS.labels("GET", UNROUTED, "404")
    LATENCY.labels("GET", UNROUTED)
    for limit in EDGE_LIMITS.values():
        RATE_LIMITED.labels(limit)


def id_header() -> dict[str, str] | None:
    """The request's `X-Request-ID` header, for an answer sent outside this middleware (the
    app's 500, by the outermost error handler)."""
    bound = ops_logging.request_id_var.get()
    return None if bound is None else {"X-Request-ID": bound}


def _with_id(message: Message, header: tuple[bytes, bytes]) -> Message:
    return {**message, "headers": [*message.get("headers", ()), header]}


class Observe:
    """The middleware (the module's docstring): `node` is the app's node id."""

    def __init__(self, app: ASGIApp, node: str) -> None:
        self.app = app
        self.node = node

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        ops_logging.bind_node(self.node)
        kind = scope["type"]
        if kind == "lifespan":
            prefill(scope.get("app"))
            await self.app(scope, receive, send)
            return
        if kind not in EDGE_LIMITS:
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        ops_logging.bind_request(rid)
        header = (HEADER, rid.encode())
        if kind == "websocket":
            await self.app(scope, receive, self._websocket_send(scope, send, header))
            return
        started = time.perf_counter()
        status: int | None = None

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message = _with_id(message, header)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            # an exception before the answer began: the app's 500 (sent by the outermost
            # error handler, which adds the id itself: app/api/errors.py)
            observed(scope, 500 if status is None else status, time.perf_counter() - started)

    @staticmethod
    def _websocket_send(scope: Scope, send: Send, header: tuple[bytes, bytes]) -> Send:
        async def send_with_id(message: Message) -> None:
            kind = message["type"]
            if kind in ("websocket.accept", "websocket.http.response.start"):
                if kind.endswith("start") and message.get("status") == 429:
                    refused(scope)
                message = _with_id(message, header)
            await send(message)

        return send_with_id
