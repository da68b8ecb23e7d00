"""The one key every per-address limit counts a client by (app/ops/addresses.py)."""

from __future__ import annotations

from app.ops.addresses import address_key, network_key


def test_an_ipv4_address_is_itself_mapped_or_not() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert address_key("203.0.113.8") != address_key("203.0.113.7")


def test_every_address_of_one_ipv6_64_is_one_key_and_another_64_another() -> None:
    one = {address_key(f"2001:db8:0:1::{i:x}") for i in range(1, 200)}
    one.add(address_key("2001:db8:0:1:ffff:ffff:ffff:ffff"))
    one.add(address_key("2001:DB8:0:1:0:0:0:9"))  # any spelling
    assert one == {"2001:db8:0:1::/64"}
    assert address_key("2001:db8:0:2::1") == "2001:db8:0:2::/64"
    assert address_key("fe80::1%eth0") == "fe80::/64"  # a zone is no new key


def test_what_is_not_an_address_counts_as_itself() -> None:
    assert address_key("unknown") == "unknown"
    assert address_key("/run/proxy.sock") == "/run/proxy.sock"
    assert address_key("") == ""


def test_the_wider_network_is_an_ipv6_48_and_none_for_ipv4() -> None:
    assert network_key("2001:db8:0:1::1") == network_key("2001:db8:0:ff00::1") == (
        "2001:db8::/48")
    assert network_key("2001:db8:1::1") == "2001:db8:1::/48"
    assert network_key("203.0.113.7") is None
    assert network_key("::ffff:203.0.113.7") is None
    assert network_key("unknown") is None
