"""HTTP throttles of the accounts pages (limits: README "Limits").

- Log-in (site and admin): django-axes (settings ``AXES_*``) counts failed log-ins per username and per
  client IP in the database (shared by every Daphne process); at ``AXES_FAILURE_LIMIT`` failures within
  ``AXES_COOLOFF_TIME`` either one is refused, even with the right password, until the cool-off has passed
  since its last failure. ``locked_out`` renders that refusal (429 + ``Retry-After``).
- Guest creation and sign-up: fixed windows per client IP (django-ratelimit's counters in the default
  cache: Redis in production, so shared by every Daphne process). ``over_limit`` tells whether a POST
  is over its rate, ``throttled`` renders the 429 page.

The client IP is ``REMOTE_ADDR``: Daphne runs with ``--proxy-headers`` behind nginx (deploy/), so it is
the browser's address, not the proxy's.
"""

from __future__ import annotations

import ipaddress
import logging
import math
from datetime import timedelta
from typing import Any

from axes.helpers import get_client_ip_address, get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_ratelimit.core import get_usage

log = logging.getLogger(__name__)

GUEST_GROUP = "accounts.guest"
SIGNUP_GROUP = "accounts.signup"


def axes_client_ip(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: ``REMOTE_ADDR`` if it is an IPv4/IPv6 address, else None.

    ``AccessAttempt.ip_address`` is PostgreSQL ``inet``: a value that is not an address (Daphne's
    ``--proxy-headers`` copies the first ``X-Forwarded-For`` entry as sent) made every log-in a 500
    (``ValueError`` storing it, ``DataError`` looking it up). Such a request is counted per username only.
    """
    address = request.META.get("REMOTE_ADDR") or ""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def _rate(group: str, request: HttpRequest) -> str:
    """The rate of ``group`` from settings (read per request, so tests can override it)."""
    return {GUEST_GROUP: settings.ACCOUNTS_GUEST_RATE, SIGNUP_GROUP: settings.ACCOUNTS_SIGNUP_RATE}[group]


def over_limit(request: HttpRequest, *, group: str) -> int | None:
    """Count this POST against ``group``'s per-IP window; seconds until the window ends if over, else None.

    A cache failure (Redis down or stalled past its 1 s socket timeout) lets the request through and logs
    a warning: a throttle must not take the site down with it.
    """
    return over_rate(request, group=group, key="ip", rate=_rate)


def over_rate(request: HttpRequest, *, group: str, key: Any, rate: Any,
              method: str | tuple[str, ...] = "POST") -> int | None:
    """:func:`over_limit` of any django-ratelimit ``key`` (``"ip"``, or a callable ``(group, request)``:
    e.g. the account) and ``rate`` (``"count/period"``, or a callable ``(group, request)``), counting
    requests of ``method`` (one, or a tuple: one counter for all of them). Fails open on a cache error,
    as :func:`over_limit`."""
    try:
        usage = get_usage(request, group=group, key=key, rate=rate, method=method, increment=True)
    except Exception as exc:  # redis-py's errors are not imported here; any cache error fails open
        log.warning("throttle %s skipped: cache error %s", group, exc)
        return None
    if usage is None or not usage["should_limit"]:
        return None
    return max(1, int(usage["time_left"]))


def _minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def _render_429(request: HttpRequest, *, heading: str, detail: str, retry_after: int) -> HttpResponse:
    minutes = _minutes(retry_after)
    retry = ngettext(
        "Try again in %(minutes)d minute.", "Try again in %(minutes)d minutes.", minutes
    ) % {"minutes": minutes}
    response = render(
        request, "accounts/throttled.html", {"heading": heading, "detail": detail, "retry": retry}, status=429
    )
    response["Retry-After"] = str(retry_after)
    return response


def too_many(request: HttpRequest, *, detail: str, retry_after: int) -> HttpResponse:
    """The site's 429 page ("Slow down", ``detail``, when to retry) with ``Retry-After`` (seconds)."""
    return _render_429(request, heading=_("Slow down"), detail=detail, retry_after=retry_after)


def throttled(request: HttpRequest, *, group: str, retry_after: int) -> HttpResponse:
    """The 429 page of a guest-creation or sign-up POST over its per-IP rate."""
    if group == GUEST_GROUP:
        detail = _("Too many guest accounts were created from your network.")
    else:
        detail = _("Too many accounts were signed up from your network.")
    return _render_429(request, heading=_("Slow down"), detail=detail, retry_after=retry_after)


def lockout_seconds_left(request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Seconds until the log-in lockout of this request's username or IP ends (at least 1).

    django-axes counts, per username and per IP, the failures of the attempt rows (one per username, IP
    and user agent; ``attempt_time`` = its last failure) newer than the cool-off. A lockout lasts until
    enough of the newest rows have aged out that the rest hold fewer than the limit: the end is the
    ``attempt_time`` of the row that brings the newest-first running total to the limit, plus the cool-off.
    """
    cool_off = get_cool_off(request) or timedelta(0)
    limit = get_failure_limit(request, credentials)
    now = timezone.now()
    ends = []
    username = get_client_username(request, credentials)
    address = get_client_ip_address(request)
    for match in (Q(ip_address=address) if address else None, Q(username=username) if username else None):
        if match is None:
            continue
        total = 0
        for attempt_time, failures in (
            AccessAttempt.objects.filter(match, attempt_time__gte=now - cool_off)
            .order_by("-attempt_time")
            .values_list("attempt_time", "failures_since_start")
        ):
            total += failures
            if total >= limit:
                ends.append(attempt_time + cool_off)
                break
    if not ends:
        return max(1, int(cool_off.total_seconds()))
    return max(1, math.ceil((max(ends) - now).total_seconds()))


def locked_out(
    request: HttpRequest, original_response: Any = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the 429 page of a refused log-in, with when to retry.

    django-axes calls it as ``(request, original_response, credentials)`` from its sync middleware and as
    ``(request, credentials)`` from its async one, so a dict in the second place is the credentials.
    """
    if isinstance(original_response, dict) and credentials is None:
        credentials = original_response
    return _render_429(
        request,
        heading=_("Log-in paused"),
        detail=_("Too many wrong passwords for this account or from your network."),
        retry_after=lockout_seconds_left(request, credentials),
    )
