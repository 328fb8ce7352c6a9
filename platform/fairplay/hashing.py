"""Salted hashes of the networks and browsers an account is seen from (docs/fairplay.md "Privacy:
sightings"). Framework-free: the salt is given by the caller (``settings.FAIRPLAY_HASH_SALT``).

A raw IP address or device id is never stored: only ``HMAC-SHA256(salt, kind + ":" + value)`` as 64
lowercase hex characters, so two accounts seen from one network share a digest, and the digest alone
names no address (without the salt, an attacker holding the table cannot try the 2^32 IPv4 addresses).

- **Network** (:func:`network_digest`): an IPv4 address whole (``203.0.113.7``); an IPv6 address by its
  /64 prefix (``2001:db8:1:2::/64``), because one home or phone is given a whole /64 and picks addresses in
  it at will (privacy extensions, RFC 8981), so the whole address would make one household many networks.
  An IPv4-mapped IPv6 address (``::ffff:203.0.113.7``) counts as the IPv4 address.
- **Device** (:func:`device_digest`): the device cookie's random id (``fairplay.sightings``), as given.

The kind is part of what is hashed, so a device id can never collide with a network's text.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

IPV6_PREFIX = 64
"""The IPv6 prefix length that names one network (one subscriber's allocation)."""


class NotAnAddress(ValueError):
    """The text given as an IP address is not one (IPv4 or IPv6)."""


def normalise_ip(address: str) -> str:
    """The network ``address`` stands for: an IPv4 address as itself (``"203.0.113.7"``), an IPv6 address
    as its /64 in compressed form (``"2001:db8:1:2::/64"``), an IPv4-mapped IPv6 address as its IPv4 one.

    :raises NotAnAddress: when ``address`` is not an IPv4 or IPv6 address (e.g. ``""``, ``"unknown"``).
    """
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError as exc:
        raise NotAnAddress(f"not an IP address: {address!r}") from exc
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def _digest(salt: str, kind: str, value: str) -> str:
    if not salt:
        raise ValueError("the hashing salt is empty")
    message = f"{kind}:{value}".encode()
    return hmac.new(salt.encode(), message, hashlib.sha256).hexdigest()


def network_digest(address: str, *, salt: str) -> str:
    """``HMAC-SHA256(salt, "ip:" + normalise_ip(address))`` as 64 hex characters.

    :raises NotAnAddress: ``address`` is not an IP address. :raises ValueError: ``salt`` is empty.
    """
    return _digest(salt, "ip", normalise_ip(address))


def device_digest(device_id: str, *, salt: str) -> str:
    """``HMAC-SHA256(salt, "device:" + device_id)`` as 64 hex characters.

    :raises ValueError: ``device_id`` or ``salt`` is empty.
    """
    if not device_id:
        raise ValueError("the device id is empty")
    return _digest(salt, "device", device_id)
