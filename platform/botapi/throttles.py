"""Request limits of the bot API (docs/bot-api.md "Fair limits"), counted in the default cache (Redis in
production: every Daphne process shares the counts).

A request with a live token is counted per TOKEN (:class:`TokenThrottle`, ``BOTAPI_TOKEN_RATE``, default
``"600/min"``: a program holding two tokens has two quotas, as lichess counts per token); one without a
token, or with an unknown or revoked one, per IP address at the public API's anonymous rate
(:class:`AnonIpThrottle`, ``API_ANON_RATE``: a client guessing tokens is slowed like any anonymous
reader). Over the limit: 429 ``throttled`` with ``Retry-After`` (seconds). The rates are read from the
settings on each request; a cache outage lets requests through (a warning logged), as the public API's
limits do (``api.throttles``, which this app may not import: it is the layer above).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle

from botapi.auth import token_of
from botapi.pauses import note_throttled

log = logging.getLogger(__name__)

TOKEN_RATE = "600/min"
"""Default of ``BOTAPI_TOKEN_RATE``."""


class _FailOpen:
    """Rate from settings at request time; a cache error allows the request (logged)."""

    setting: str
    default: str

    def get_rate(self) -> str:
        return str(getattr(settings, self.setting, self.default))

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            return bool(super().allow_request(request, view))  # type: ignore[misc]
        except Exception as exc:
            log.warning(
                "bot API throttle %s: cache unavailable (%s), request allowed", self.setting,
                type(exc).__name__,
            )
            return True


class TokenThrottle(_FailOpen, SimpleRateThrottle):
    """Requests with a live token, per token id: ``BOTAPI_TOKEN_RATE``."""

    scope = "bot_token"
    setting = "BOTAPI_TOKEN_RATE"
    default = TOKEN_RATE

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        token = token_of(request)
        if token is None:
            return None  # counted by AnonIpThrottle only
        return self.cache_format % {"scope": self.scope, "ident": token.pk}

    def throttle_failure(self) -> bool:
        # A token refused again and again goes to the fair-play queue (botapi.pauses.note_throttled).
        token = getattr(self, "_token", None)
        if token is not None:
            note_throttled(token)
        return False

    def allow_request(self, request: Request, view: Any) -> bool:
        self._token = token_of(request)
        return super().allow_request(request, view)


class AnonIpThrottle(_FailOpen, AnonRateThrottle):
    """Requests without a live token, per IP address (``REMOTE_ADDR``): ``API_ANON_RATE``."""

    scope = "bot_anon"
    setting = "API_ANON_RATE"
    default = "60/min"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if token_of(request) is not None:
            return None  # counted by TokenThrottle only
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


THROTTLES = [TokenThrottle, AnonIpThrottle]
