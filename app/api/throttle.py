"""Request limits (限流) at the edge: a pure ASGI middleware that counts every REST request
and every WebSocket handshake before the app sees it.

Rules:
- two bars for REST requests, two for new WebSocket connections (`/ws` handshakes), each
  within a sliding window of `rate_window_seconds` (app/settings.py): per client address,
  for every request, and per account, for a REST request that carries a valid access token
  in its bearer header (checked by signature and expiry only: the database is not touched
  here, so a banned account's token still counts as its own); a table socket's account is
  counted once its ``hello`` names it (app/api/ws.py: over the bar, closed with 4429);
- the address is `scope["client"]`, which uvicorn has already replaced by the
  X-Forwarded-For address when the peer is a trusted proxy (FORWARDED_ALLOW_IPS), counted
  by `app.ops.addresses.address_key` as every per-address limit is: an IPv6 one as its
  /64, whose every address one host may take;
- a token that is not valid counts against the address only: nobody can use up an
  account's bar without that account's token;
- the probes (`/health`, `/ready`) are never counted, so that an orchestrator still sees
  a flooded node alive;
- a request over a bar is answered at once, without its body being read: 429 with the
  error shape (`rate_limited`, `details.retry_after`) and `Retry-After` in seconds; a
  refused request is not counted against the bar that refused it (the address bar is
  counted first, so a request the account bar refuses has used one unit of its address);
- a refused handshake gets the same HTTP 429 instead of the upgrade (the ASGI
  "websocket.http.response" extension, which uvicorn's websockets-sansio offers); a
  server without it closes before accepting, which the client sees as HTTP 403;
- the counters live in `app.state.limits` (app/ops/limits_storage.py): this process's
  memory, or Redis with REDIS_URL, where every node counts against the same bars; if the
  storage fails (Redis down), the request is served uncounted and a warning logged
  (at most one per `WARN_EVERY` seconds).

The strategy is the `limits` library's sliding window counter: two counters per key (this
window's and the last one's, weighted by how much of it is still inside the sliding
window), so a key costs the same small memory whatever its bar, in Redis too (a moving
window keeps one timestamp per counted request: up to a whole bar per address during a
flood), and there is no burst of twice the bar at a window's turn (a fixed window's flaw).
Its count is an estimate at a window's turn (it may let one request more through) and so
is `Retry-After` (a client that retries then may be told to wait a little more).
"""

from __future__ import annotations

import logging
import math
import time
from typing import Literal

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api import tokens
from app.api.errors import ApiError, error_response
from app.ops import metrics
from app.ops.addresses import address_key
from app.settings import Settings

log = logging.getLogger(__name__)

UNCOUNTED = frozenset({"/health", "/ready"})  # the probes
WARN_EVERY = 60.0  # seconds between warnings that the counters' storage failed


def _bearer(scope: Scope) -> str | None:
    """The access token a REST request carries in its bearer header."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


Kind = Literal["http", "websocket"]


class Bars:
    """The four bars and their counters (`app.state.request_bars`): the middleware counts
    every request and handshake by address (and a REST request by its token's account);
    the table socket counts its account once its ``hello`` names it (app/api/ws.py)."""

    def __init__(self, settings: Settings, storage: Storage) -> None:
        self.settings = settings
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        window = settings.rate_window_seconds
        self.bars: dict[Kind, tuple[RateLimitItem, RateLimitItem]] = {
            "http": (
                RateLimitItemPerSecond(settings.requests_per_address, window, "requests"),
                RateLimitItemPerSecond(settings.requests_per_account, window, "requests"),
            ),
            "websocket": (
                RateLimitItemPerSecond(settings.ws_connects_per_address, window, "ws_connects"),
                RateLimitItemPerSecond(settings.ws_connects_per_account, window, "ws_connects"),
            ),
        }
        self._warned_at = -math.inf

    async def retry_after(
        self, kind: Kind, address: str | None, account_id: int | None = None
    ) -> int | None:
        """Count one request of `kind` against its address's and its account's bars: None
        if every one allows it, else the seconds until the one that refused it would."""
        per_address, per_account = self.bars[kind]
        checks = []
        if address is not None:
            checks.append((per_address, "address", address))
        if account_id is not None:
            checks.append((per_account, "account", str(account_id)))
        try:
            for bar, who, key in checks:
                if not await self.limiter.hit(bar, who, key):
                    reset_at = (await self.limiter.get_window_stats(bar, who, key)).reset_time
                    return max(1, math.ceil(reset_at - time.time()))
        except Exception as exc:  # noqa: BLE001 - any storage failure: serve uncounted
            if self.settings.redis_url:  # the counters live in Redis
                metrics.redis_error("limits")
            now = time.monotonic()
            if now - self._warned_at >= WARN_EVERY:
                self._warned_at = now
                log.warning("request limits not counted: their storage failed: %r", exc)
        return None


class RequestLimits:
    """The middleware: see the module's rules."""

    def __init__(self, app: ASGIApp, bars: Bars) -> None:
        self.app = app
        self.bars = bars

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in self.bars.bars or scope["path"] in UNCOUNTED:
            await self.app(scope, receive, send)
            return
        retry_after = await self.bars.retry_after(
            scope["type"], _address(scope), self._account(scope)
        )
        if retry_after is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()  # websocket.connect: the handshake the answer refuses
            if "websocket.http.response" not in scope.get("extensions", {}):
                await send({"type": "websocket.close", "code": 1008})  # HTTP 403
                return
        what = "connections" if scope["type"] == "websocket" else "requests"
        response = error_response(
            "rate_limited",
            f"too many {what}; try again in {retry_after} s",
            details={"retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )
        await response(scope, receive, send)

    def _account(self, scope: Scope) -> int | None:
        """A REST request's account, by a valid access token (a handshake carries none:
        the socket counts its account at its hello)."""
        token = _bearer(scope) if scope["type"] == "http" else None
        if not token:
            return None
        try:
            return tokens.account_id_of(token, self.bars.settings)
        except ApiError:
            return None  # not a valid access token: the address alone is counted


def _address(scope: Scope) -> str:
    """The key of the client's address (`address_key`: an IPv6 one is its /64)."""
    client = scope.get("client")
    return address_key(client[0] if client else "unknown")
