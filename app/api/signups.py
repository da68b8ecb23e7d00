"""Registrations and the signup grant, limited per address (docs/architecture.md, "The edge",
"Registrations and the signup grant").

Rules:
- registrations are counted per client address key (`app.ops.addresses.address_key`: an
  IPv4 address, an IPv6 /64) over an hour (settings.register_per_address_hour) and over a
  day (settings.register_per_address_day), and per IPv6 /48 over a day
  (settings.register_per_network_day): a subscriber given a /48 holds 65,536 /64s. A
  registration over a bar is refused (429 `rate_limited`) before its password is hashed;
- the bars are looked at (`wait`, nothing taken) before the username is, and taken
  (`take`) after it was found free: a registration refused for a taken name (409) or a
  bad body (422) costs its address nothing. One that then fails (a race for the same name,
  503 `busy` for a password turn) has taken its slots: a moving window cannot give one back;
- the signup grant is paid to at most settings.signup_grants_per_address_day registrations
  per address key a day and settings.signup_grants_per_network_day per IPv6 /48 a day
  (`grant`, after the account was made): beyond, the account is made without silver and
  the answer says so (`signup_grant: 0`). So silver cannot be farmed faster than that from
  one address, however many accounts it makes;
- the windows are moving windows (the `limits` library's, as the login limits') in
  `app.state.limits`, so every node counts against the same ones through Redis; if that
  storage fails the registration fails (500): a bar is never skipped. The keys are apart
  from the login limits', so no number of registrations keeps anybody from logging in.
"""

from __future__ import annotations

import time

from limits import RateLimitItem, RateLimitItemPerDay, RateLimitItemPerHour
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter

from app.settings import Settings

Bar = tuple[RateLimitItem, str, str]  # the window, what it counts ("address", "network"), key


class SignupLimits:
    """The registration bars and the grant's bars over one `limits` storage (module
    docstring); `app.state.signup_limits`."""

    def __init__(self, storage: Storage, settings: Settings) -> None:
        self.window = MovingWindowRateLimiter(storage)
        self.per_address = (
            RateLimitItemPerHour(settings.register_per_address_hour, 1, "register"),
            RateLimitItemPerDay(settings.register_per_address_day, 1, "register"),
        )
        self.per_network = RateLimitItemPerDay(settings.register_per_network_day, 1, "register")
        self.grant_per_address = RateLimitItemPerDay(
            settings.signup_grants_per_address_day, 1, "signup-grant"
        )
        self.grant_per_network = RateLimitItemPerDay(
            settings.signup_grants_per_network_day, 1, "signup-grant"
        )

    def _registration_bars(self, address: str, network: str | None) -> list[Bar]:
        """Narrowest first, so that a refusal by the hour's bar takes nothing of the day's."""
        bars: list[Bar] = [(item, "address", address) for item in self.per_address]
        if network is not None:
            bars.append((self.per_network, "network", network))
        return bars

    async def _seconds_to_room(self, bar: Bar) -> int:
        reset, _ = await self.window.get_window_stats(bar[0], bar[1], bar[2])
        return max(0, int(reset - time.time())) + 1  # a whole second past the reset

    async def wait(self, address: str, network: str | None) -> int | None:
        """None when a registration from `address` (in IPv6 /48 `network`) fits every bar,
        else the seconds until the full one has room. Takes nothing."""
        for bar in self._registration_bars(address, network):
            if not await self.window.test(*bar):
                return await self._seconds_to_room(bar)
        return None

    async def take(self, address: str, network: str | None) -> int | None:
        """Count one registration against every bar; as `wait`, but a bar that another
        registration filled since `wait` refuses this one (what it took before stays)."""
        for bar in self._registration_bars(address, network):
            if not await self.window.hit(*bar):
                return await self._seconds_to_room(bar)
        return None

    async def grant(self, address: str, network: str | None) -> bool:
        """Whether the account just made from `address` gets the signup grant: True, and
        one grant counted against each bar, if every bar had room."""
        bars: list[Bar] = [(self.grant_per_address, "address", address)]
        if network is not None:
            bars.append((self.grant_per_network, "network", network))
        if any(item.amount == 0 for item, _, _ in bars):  # grants turned off
            return False
        for bar in bars:
            if not await self.window.test(*bar):
                return False
        for bar in bars:
            if not await self.window.hit(*bar):
                return False  # filled meanwhile by another registration of the address
        return True
