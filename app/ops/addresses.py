"""What every per-address limit counts a client by (docs/architecture.md, "The edge",
"Addresses"): one function for the login limits, the registration bars, the request and
handshake bars, the table-socket cap and the connection cap, so that no limit can be walked
around by a client that changes what another one does not count.

- An IPv4 address counts as itself; an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`, what a
  dual-stack socket reports for an IPv4 peer) as that IPv4 address.
- An IPv6 address counts as its /64: a subscriber's usual smallest allocation, which one
  host can fill with as many addresses as it likes (privacy addresses rotate by
  themselves), so counting full addresses let one host take 3,291 of 3,291 requests where
  an IPv4 address gets 600.
- Anything else (a Unix socket's name, "unknown" when the server had no peer) counts as
  itself.

`network_key` is the wider key of the registration bars: an IPv6 address's /48, the
largest allocation a subscriber usually gets (a /56 is 256 /64s, a /48 65,536).

This lives in `app/ops` (not `app/api`) because the connection cap, below the app, counts
by it too, and `app/ops` may not import `app/api`.
"""

from __future__ import annotations

import ipaddress

ADDRESS_PREFIX = 64  # an IPv6 client counts as this network
NETWORK_PREFIX = 48  # an IPv6 client's wider network, for the registration bars


def _parsed(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`host` as an IP address, an IPv4-mapped IPv6 one as its IPv4; None if it is none."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_key(host: str) -> str:
    """The key every per-address limit counts the peer `host` by (the module's rules)."""
    ip = _parsed(host)
    if ip is None:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, ADDRESS_PREFIX), strict=False))
    return str(ip)


def network_key(host: str) -> str | None:
    """The IPv6 /48 of `host`; None for an IPv4 address (a wider IPv4 network holds
    unrelated people) or anything that is not an address."""
    ip = _parsed(host)
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    return str(ipaddress.IPv6Network((ip, NETWORK_PREFIX), strict=False))
