"""fairplay.hashing's worked examples: HMAC-SHA256 of "ip:<network>" / "device:<id>" under a fixed salt
(each checked against ``openssl dgst -sha256 -hmac test-salt``), IPv6 by its /64, IPv4 whole."""

from __future__ import annotations

import pytest

from fairplay.hashing import NotAnAddress, device_digest, network_digest, normalise_ip

SALT = "test-salt"


def test_known_outputs_for_a_fixed_salt() -> None:
    # echo -n "ip:203.0.113.7" | openssl dgst -sha256 -hmac test-salt
    assert network_digest("203.0.113.7", salt=SALT) == (
        "b53c6a47d83278fc918d3ca332fb76cee05a12b203cbb8a120e9c981f6fe7a6c")
    # echo -n "ip:2001:db8:1:2::/64" | openssl dgst -sha256 -hmac test-salt
    assert network_digest("2001:db8:1:2::5", salt=SALT) == (
        "0a4c840efaaf053c4043ea7d361cd297f94c487fa23a1debdf484224d0922f2f")
    # echo -n "device:AAAA...A" (32 A) | openssl dgst -sha256 -hmac test-salt
    assert device_digest("A" * 32, salt=SALT) == (
        "9b2121f5a0389acf1de4b1169e10fce932123c1f5007364362ee203584e43cec")


@pytest.mark.parametrize(("address", "network"), [
    ("203.0.113.7", "203.0.113.7"),
    (" 203.0.113.7 ", "203.0.113.7"),
    ("2001:db8:1:2::5", "2001:db8:1:2::/64"),
    ("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
    ("::ffff:203.0.113.7", "203.0.113.7"),
    ("::1", "::/64"),
])
def test_normalise_ip(address: str, network: str) -> None:
    assert normalise_ip(address) == network


def test_one_ipv6_64_is_one_network_and_ipv4_is_the_whole_address() -> None:
    same = {network_digest(a, salt=SALT) for a in ("2001:db8:1:2::5", "2001:db8:1:2:a:b:c:d",
                                                    "2001:db8:1:2:ffff:ffff:ffff:ffff")}
    assert len(same) == 1
    assert network_digest("2001:db8:1:3::5", salt=SALT) not in same  # the next /64
    assert network_digest("203.0.113.7", salt=SALT) != network_digest("203.0.113.8", salt=SALT)
    assert network_digest("::ffff:203.0.113.7", salt=SALT) == network_digest("203.0.113.7", salt=SALT)


def test_different_salts_and_kinds_differ() -> None:
    assert network_digest("203.0.113.7", salt=SALT) != network_digest("203.0.113.7", salt="other-salt")
    assert device_digest("A" * 32, salt=SALT) != device_digest("A" * 32, salt="other-salt")
    # "ip:" and "device:" are hashed in: a device id spelled like an address is another digest.
    assert device_digest("203.0.113.7", salt=SALT) != network_digest("203.0.113.7", salt=SALT)


@pytest.mark.parametrize("address", ["", "unknown", "203.0.113", "2001:db8::g", "203.0.113.7:443"])
def test_not_an_address(address: str) -> None:
    with pytest.raises(NotAnAddress):
        network_digest(address, salt=SALT)


def test_empty_salt_or_device_id_is_refused() -> None:
    with pytest.raises(ValueError, match="salt is empty"):
        network_digest("203.0.113.7", salt="")
    with pytest.raises(ValueError, match="device id is empty"):
        device_digest("", salt=SALT)
