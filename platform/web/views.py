"""Site pages outside the games app."""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_safe

from accounts.selectors import house_bots_list
from web import health

log = logging.getLogger(__name__)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Home page: play a bot (levels listed), play a friend, recent matches."""
    return render(request, "web/home.html", {"bots": list(house_bots_list())})


@require_GET
@cache_control(max_age=86_400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: temporary redirect (302, cached a day) to the SVG icon ``web/favicon.svg``.

    Pages link the SVG themselves; this answers browsers and tools that ask the fixed path anyway, so it
    is not a 404 in the log. Temporary, so a later hashed static name is picked up.
    """
    return HttpResponseRedirect(static("web/favicon.svg"))


@require_safe
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """``/healthz``: 200 ``{"status": "ok", ...}`` when every part works, else 503 with ``failing``
    naming the parts that do not (``web.health``). Not rate-limited; says nothing secret (no URLs, no
    error messages: exception class names only)."""
    result = health.health()
    response = JsonResponse(result, status=200 if result["status"] == "ok" else 503)
    if result["failing"]:
        # One WARNING line naming what fails, instead of django.request's ERROR "Service Unavailable" on
        # every poll of a monitor (Django skips a response it is told was logged: django.utils.log).
        failing = ", ".join(
            f"{name} ({result['parts'][name].get('error', 'failed')})" for name in result["failing"]
        )
        log.warning("healthz: 503, failing: %s", failing, extra={"status_code": 503})
        response._has_been_logged = True  # type: ignore[attr-defined]
    return response
