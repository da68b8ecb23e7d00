"""Rate limits (限流): the logins' (`LoginLimits`, counted in `app.state.limits`, so shared by
every node through Redis when REDIS_URL is set) and the lobby's bot seats (`MemoryQuota`,
in this process).

Logins (docs/architecture.md, "The edge", "Logins"). Every attempt takes its slot in a
moving window (the `limits` library's `hit`, atomic in memory and in Redis) before its
password is checked, so concurrent guesses cannot outrun a limit. The limits, each over
settings.login_window_seconds:
- per username and address: settings.login_attempts; a good login clears it (only the
  password's holder can). Its failures lock out nobody but that address;
- per address, over all usernames: settings.login_address_attempts;
- per username, over all addresses: settings.login_account_attempts, a much higher bar
  against guesses spread over many addresses.
The last two apply only to a username the address has not logged in to lately (a good
login makes the pair known for settings.login_known_days; registering does too): the
owner at a usual address is never refused for other addresses' guesses, whatever their
number. Slots are taken per username and address first and per username last, so an
attempt refused by a limit of its own address takes nothing from the one all addresses
share. An address is the client's IP (uvicorn reads X-Forwarded-For from trusted
proxies), counted as every per-address limit counts it (`app.ops.addresses.address_key`:
an IPv6 one by its /64, a subscriber's usual allocation). A username
counts by its key (`accounts.username_key`), known or not, so a limit tells nothing of
who exists.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from urllib.parse import quote

from fastapi import Request
from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter

from app.ops.addresses import address_key
from app.settings import Settings


def client_host(request: Request) -> str:
    """The client's IP as uvicorn set it (X-Forwarded-For's from a trusted proxy)."""
    return request.client.host if request.client is not None else "unknown"


def client_address(request: Request) -> str:
    """The address a login counts against: the client's by `address_key` (an IPv6 one is
    its /64), as every per-address limit counts it."""
    return address_key(client_host(request))


class LoginLimits:
    """The login limits over one `limits` storage (module docstring)."""

    def __init__(self, storage: Storage, settings: Settings) -> None:
        self.storage = storage
        self.window = MovingWindowRateLimiter(storage)
        seconds = settings.login_window_seconds
        self.pair = RateLimitItemPerSecond(settings.login_attempts, seconds, "login-pair")
        self.address = RateLimitItemPerSecond(
            settings.login_address_attempts, seconds, "login-address"
        )
        self.account = RateLimitItemPerSecond(
            settings.login_account_attempts, seconds, "login-account"
        )
        self.known_seconds = settings.login_known_days * 86400

    @staticmethod
    def _known_key(name: str, address: str) -> str:
        return f"login-known/{address}/{quote(name, safe='')}"

    async def attempt(self, name: str, address: str) -> int | None:
        """Take this attempt's slots for username key `name` from `address`: None when every
        limit had room, else the seconds until the one that had none has a slot free."""
        known = await self.storage.get(self._known_key(name, address)) > 0
        quoted = quote(name, safe="")
        limits: list[tuple[RateLimitItem, tuple[str, ...]]] = [(self.pair, (address, quoted))]
        if not known:
            limits += [(self.address, (address,)), (self.account, (quoted,))]
        for item, ids in limits:
            if not await self.window.hit(item, *ids):
                reset, _ = await self.window.get_window_stats(item, *ids)
                return max(0, int(reset - time.time())) + 1  # a whole second past the reset
        return None

    async def succeeded(self, name: str, address: str) -> None:
        """A good login (or a registration) of `name` from `address`: its attempts there are
        forgotten and the pair is known for settings.login_known_days from now."""
        await self.window.clear(self.pair, address, quote(name, safe=""))
        known = self._known_key(name, address)
        await self.storage.clear(known)  # a counter's expiry is set by its first increment
        await self.storage.incr(known, self.known_seconds)


SWEEP_ABOVE = 100_000  # keys kept before every expired one is dropped at once


class MemoryQuota:
    """At most `limit` units per key within a sliding window of `window_seconds`, in this
    process (the lobby's bot seats per account and hour). `retry_after` asks whether `units`
    more fit; `spend` records them. No method awaits, so each runs whole on the event loop."""

    def __init__(
        self, limit: int, window_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window_seconds
        self.clock = clock
        self._spent: dict[str, deque[tuple[float, int]]] = {}

    def _live(self, key: str, now: float) -> deque[tuple[float, int]]:
        spent = self._spent.get(key)
        if spent is None:
            return deque()
        while spent and spent[0][0] <= now - self.window:
            spent.popleft()
        if not spent:
            del self._spent[key]
        return spent

    def used(self, key: str) -> int:
        return sum(units for _, units in self._live(key, self.clock()))

    def retry_after(self, key: str, units: int) -> int | None:
        """Seconds until `units` more fit for `key` (None: they fit now; never fitting, as
        more than `limit`: the whole window)."""
        now = self.clock()
        spent = self._live(key, now)
        over = sum(u for _, u in spent) + units - self.limit
        if over <= 0:
            return None
        for at, u in spent:
            over -= u
            if over <= 0:
                return max(1, math.ceil(at + self.window - now))
        return math.ceil(self.window)

    def spend(self, key: str, units: int) -> None:
        if units > 0:
            now = self.clock()
            if len(self._spent) > SWEEP_ABOVE:
                for stale in list(self._spent):
                    self._live(stale, now)
            self._live(key, now)
            self._spent.setdefault(key, deque()).append((now, units))
