"""Where members are seen from, stored only as salted hashes (docs/fairplay.md "Privacy: sightings").

- **When**: at log-in (``django.contrib.auth``'s ``user_logged_in``: ``fairplay.sighting_receivers``) and
  when a member opens a match's table page (``fairplay.middleware.SightingMiddleware``; joining a friend
  table or being paired by a pool leads there too). Members only: guests and house bots are not recorded.
- **What**: a :class:`~fairplay.models.Sighting` per (user, kind, digest): ``ip`` is the HMAC of the
  client address's network (``fairplay.hashing.network_digest``: IPv4 whole, IPv6 its /64), ``device``
  the HMAC of the device cookie's random id. The raw address and id are never stored nor logged.
- **How often**: at most one database write per user, kind and digest per ``SIGHTING_EVERY`` seconds
  (``cache.add``: atomic, so two requests at once write once). A cache that fails lets the write through
  (the write is an idempotent upsert; the guard only saves writes).
- **The client address**: ``REMOTE_ADDR`` as the log-in throttle reads it
  (``accounts.throttles.axes_client_ip``: Daphne runs with ``--proxy-headers`` behind nginx, so it is the
  browser's address); a request without a valid address records no network sighting.
- **The device cookie** (``DEVICE_COOKIE``): 32 random URL-safe characters (``secrets``), set for a
  member who has none (``SightingMiddleware``), for ``DEVICE_COOKIE_AGE``; HttpOnly, SameSite=Lax,
  Secure as the session cookie is. A cookie of any other shape is replaced, never hashed.

Moderators read :func:`shared_with` ("same network as X") in the admin; nothing here is shown to players.
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts.models import User
from accounts.throttles import axes_client_ip
from fairplay.hashing import device_digest, network_digest
from fairplay.models import Sighting, SightingKind
from fairplay.reporting import is_member

log = logging.getLogger(__name__)

DEVICE_COOKIE = "gin_device"
DEVICE_COOKIE_AGE = 2 * 365 * 24 * 3600
"""Seconds the device cookie lives (two years), renewed each time it is set."""
DEVICE_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")
SIGHTING_EVERY = 3600
"""At most one write per user, kind and digest in this many seconds."""
_NEW_DEVICE = "_fairplay_new_device"


def device_id(request: HttpRequest) -> str:
    """The request's device id: its cookie when well formed, else a new one, which the response will
    set (:func:`set_device_cookie`)."""
    given = request.COOKIES.get(DEVICE_COOKIE, "")
    if DEVICE_ID_SHAPE.fullmatch(given):
        return given
    new = getattr(request, _NEW_DEVICE, None)
    if new is None:
        new = secrets.token_urlsafe(24)
        setattr(request, _NEW_DEVICE, new)
    return str(new)


def set_device_cookie(request: HttpRequest, response: HttpResponse) -> None:
    """Set the device cookie on ``response`` when :func:`device_id` made a new one for ``request``."""
    new = getattr(request, _NEW_DEVICE, None)
    if new is None:
        return
    response.set_cookie(DEVICE_COOKIE, new, max_age=DEVICE_COOKIE_AGE, httponly=True, samesite="Lax",
                        secure=settings.SESSION_COOKIE_SECURE)


def sighting_record(*, user_id: int, kind: str, digest: str) -> None:
    """Count one sighting of ``user_id`` from ``digest`` (``kind``: ``ip`` or ``device``): a new row with
    ``times`` 1, or ``times`` + 1 and ``last_seen`` now. Race-safe: two writers at once both count (the
    loser of the insert race finds the row and increments it)."""
    now = timezone.now()
    rows = Sighting.objects.filter(user_id=user_id, kind=kind, digest=digest)
    if rows.update(times=F("times") + 1, last_seen=now):
        return
    try:
        with transaction.atomic():
            Sighting.objects.create(user_id=user_id, kind=kind, digest=digest, last_seen=now, times=1)
    except IntegrityError:  # another request inserted it between our update and insert
        rows.update(times=F("times") + 1, last_seen=now)


def _due(user_id: int, kind: str, digest: str) -> bool:
    """Whether this sighting is due a write (none in the last ``SIGHTING_EVERY`` s); True if the cache
    fails."""
    try:
        return bool(cache.add(f"fairplay:seen:{user_id}:{kind}:{digest}", 1, timeout=SIGHTING_EVERY))
    except Exception as exc:  # redis-py's errors are not imported here: any cache error writes anyway
        log.warning("sighting guard skipped: cache error %s", type(exc).__name__)
        return True


def seen(request: HttpRequest, user: Any) -> int:
    """Record that member ``user`` made ``request``: its network and its device (each at most once an
    hour). Returns how many rows were written (0..2); 0 for a guest, a bot or anonymous."""
    if not is_member(user):
        return 0
    salt = settings.FAIRPLAY_HASH_SALT
    digests = [(SightingKind.DEVICE.value, device_digest(device_id(request), salt=salt))]
    address = axes_client_ip(request)
    if address is not None:
        digests.append((SightingKind.NETWORK.value, network_digest(address, salt=salt)))
    written = 0
    for kind, digest in digests:
        if _due(user.pk, kind, digest):
            sighting_record(user_id=user.pk, kind=kind, digest=digest)
            written += 1
    return written


def shared_with(user: User) -> list[tuple[User, list[str]]]:
    """The other accounts seen from a network or device ``user`` was seen from: ``(other, kinds)`` with
    ``kinds`` the :class:`SightingKind` values they share (``["device", "ip"]``, sorted), those sharing
    both first, then by username. What a moderator reads as "same network as X"; no digest is returned."""
    mine = Sighting.objects.filter(user_id=user.pk)
    pairs = (Sighting.objects.filter(digest__in=mine.values("digest"))
             .exclude(user_id=user.pk).values_list("user_id", "kind").distinct())
    kinds: dict[int, set[str]] = {}
    for other_id, kind in pairs:
        kinds.setdefault(other_id, set()).add(kind)
    users = User.objects.in_bulk(list(kinds))
    found = [(users[pk], sorted(k)) for pk, k in kinds.items() if pk in users]
    return sorted(found, key=lambda item: (-len(item[1]), item[0].username.casefold(), item[0].pk))
