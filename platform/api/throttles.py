"""Request limits of the API (README "Limits"), counted in the default cache (Redis in production, so
every Daphne process shares the counts).

Anonymous clients are counted per IP address (``REMOTE_ADDR``: Daphne's ``--proxy-headers`` puts the
browser's address there behind nginx; ``X-Forwarded-For`` from the client is never trusted), logged-in
members per account. A guest account counts as anonymous: in its IP address's count, with the anonymous
rate (a guest costs one click, ``ACCOUNTS_GUEST_RATE`` of them an hour per IP: a quota of its own each
would multiply the IP's quota by the number of guests). Over the limit: 429 ``throttled`` with
``Retry-After`` (seconds). The rates are read from the settings on each request (``API_ANON_RATE``,
``API_USER_RATE``: DRF's ``"count/period"``), and a cache outage lets requests through (logged), as the
site's other limits do.

The schema and the docs page (``/api/schema/``, ``/api/docs/``) have their own counts, not taken from the
``/api/v1/`` quota (reading the docs must not use up a client's data requests), with higher rates:
``API_DOCS_ANON_RATE``, ``API_DOCS_USER_RATE``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

log = logging.getLogger(__name__)


class _FailOpen:
    """Rate from settings at request time; a cache error allows the request."""

    setting: str

    def get_rate(self) -> str:
        return str(getattr(settings, self.setting))

    def allow_request(self, request: Request, view: Any) -> bool:
        # DRF makes one throttle per request and parses get_rate() then: a changed setting applies at once.
        try:
            return bool(super().allow_request(request, view))  # type: ignore[misc]
        except Exception as exc:
            log.warning(
                "API throttle %s: cache unavailable (%s), request allowed", self.setting, type(exc).__name__
            )
            return True


def is_member(request: Request) -> bool:
    """Whether ``request`` is a logged-in member's (not anonymous, not a guest account)."""
    user = request.user
    return bool(user and user.is_authenticated and not getattr(user, "is_guest", False))


class AnonThrottle(_FailOpen, AnonRateThrottle):
    """Anonymous clients and guest accounts together, per IP address: ``API_ANON_RATE``."""

    setting = "API_ANON_RATE"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if is_member(request):
            return None  # counted by UserThrottle only
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserThrottle(_FailOpen, UserRateThrottle):
    """Logged-in members, per account: ``API_USER_RATE`` (anonymous clients and guests fall to
    :class:`AnonThrottle`)."""

    setting = "API_USER_RATE"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not is_member(request):
            return None  # counted by AnonThrottle only
        return super().get_cache_key(request, view)


class DocsAnonThrottle(AnonThrottle):
    """The schema and docs page, anonymous clients and guests per IP address: ``API_DOCS_ANON_RATE``."""

    scope = "docs_anon"
    setting = "API_DOCS_ANON_RATE"


class DocsUserThrottle(UserThrottle):
    """The schema and docs page, logged-in members per account: ``API_DOCS_USER_RATE``."""

    scope = "docs_user"
    setting = "API_DOCS_USER_RATE"


DOCS_THROTTLES = [DocsAnonThrottle, DocsUserThrottle]
