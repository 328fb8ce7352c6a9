"""The site kit's own answers: the favicon, the health check, the 500 and 404 pages."""

from __future__ import annotations

import logging
import sys

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template import loader
from django.templatetags.static import static
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_safe

from web import health
from web.errors import NotFound
from web.middleware import json_address
from web.refusals import refusal_page
from web.unavailable import RETRY_AFTER_SECONDS, database_unavailable

log = logging.getLogger(__name__)


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


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: the response to an uncaught exception (Django calls it inside its ``except``, so
    ``sys.exc_info()`` is the exception, also under ASGI: asgiref re-raises it in the worker thread).

    - The database cannot be reached (``web.unavailable.database_unavailable``): 503 with ``Retry-After``
      (seconds) and ``Cache-Control: no-store``: ``503.html`` (rendered without the request, like the 500
      page: nothing that needs the database), or under ``/api/`` and ``/healthz`` the API's JSON error
      ``{"error": "unavailable", "message": ...}``.
    - Anything else: 500, ``500.html`` (Django's own view), or ``{"error": "server_error", ...}`` under
      ``/api/``.
    """
    exc = sys.exc_info()[1]
    json_path = json_address(request.path_info)
    if exc is not None and database_unavailable(exc):
        if json_path:
            response: HttpResponse = JsonResponse(
                {"error": "unavailable", "message": "the database cannot be reached: try again shortly"},
                status=503,
            )
        else:
            response = HttpResponse(loader.get_template("503.html").render(), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        patch_cache_control(response, no_store=True)
        return response
    if json_path:
        return JsonResponse({"error": "server_error", "message": "unexpected failure"}, status=500)
    return defaults.server_error(request)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: a view's ``web.errors.NotFound`` on the site's refusal page (``web.refusals``), with
    its reason for the reader (else the 404 page's own sentence); any other 404 (the resolver's,
    ``get_object_or_404``'s) on ``404.html``, its message (internal) never shown."""
    if isinstance(exception, NotFound):
        reason = str(exception) if exception.args else _(
            "There is nothing at this address. The link may be mistyped, or the table may no longer exist.")
        return refusal_page(request, status=404, heading=_("Page not found"), message=reason)
    body = loader.render_to_string("404.html", {"request_path": request.path}, request)
    return HttpResponse(body, status=404)
