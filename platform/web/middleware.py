"""Site-wide request middleware."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import BadRequest, DisallowedHost, TooManyFieldsSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.template import loader
from django.utils import translation

from web.log_context import match_id, normalized_request_id

NUL = "\x00"


def json_address(path: str) -> bool:
    """Addresses whose refusals are JSON: the API and the health check."""
    return path.startswith("/api/") or path == "/healthz"


class RequestIdHeaderMiddleware:
    """Before django-guid reads it: an ``X-Request-ID`` is kept lower-cased when it is 32 hex digits
    (dashes allowed in a UUID's places), else dropped, so django-guid makes a new one
    (``web.log_context.normalized_request_id``; django-guid alone kept ``{...}`` or upper case as sent)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "HTTP_X_REQUEST_ID" in request.META:
            kept = normalized_request_id(request.META["HTTP_X_REQUEST_ID"])
            if kept is None:
                del request.META["HTTP_X_REQUEST_ID"]
            else:
                request.META["HTTP_X_REQUEST_ID"] = kept
        return self.get_response(request)


class EarlyRefusalsMiddleware:
    """Requests Django refuses before any view, answered as JSON under ``/api/`` and ``/healthz``, each
    logged as one WARNING line, ``django.request``'s "Bad Request: <path>" (Django logs them as ERROR
records of ``django.security``):

    - a ``Host`` header not in ``ALLOWED_HOSTS``: 400 ``bad_host`` (the site's pages keep Django's own
      400 page and its ``django.security.DisallowedHost`` record);
    - more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (1000) query parameters: 400 ``bad_query`` under
      ``/api/``, the site's 400 page elsewhere (``TooManyFieldsSent`` would be an ERROR record).

    Right after the request id is set, so nothing else reads the host or the query string first.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if json_address(path):
            try:
                request.get_host()
            except DisallowedHost:
                return JsonResponse(
                    {"error": "bad_host", "message": "this Host header is not served here"}, status=400
                )
        try:
            request.GET  # noqa: B018  (parsed here: the count is checked then)
        except TooManyFieldsSent:
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            if path.startswith("/api/"):
                return JsonResponse(
                    {"error": "bad_query", "message": f"too many query parameters (at most {limit})"},
                    status=400,
                )
            request.GET = QueryDict()  # the 400 page renders without the refused query string
            RefuseNulMiddleware._activate_language(request)
            raise BadRequest("too many query parameters") from None  # django.request: one WARNING
        return self.get_response(request)


class RefuseNulMiddleware:
    """Keep NUL (U+0000) out of everything a request can hand to the database.

    PostgreSQL text cannot hold NUL: a lookup with one is a ``DataError`` (a 500), on any page. So, before
    any view, session or authentication code runs:

    - in the path (``/t/%00/``): 404 (the site's page), no page has such an address;
    - in the query string, a name or a value (``?q=%00``): 400 (the site's page, ``400.html``, saying
      the query string holds a NUL; in the reader's language, with DEBUG on or off);
    - under ``/api/`` the same answers as the API's JSON errors (``not_found``, ``bad_query`` with
      ``fields``: each parameter whose name or value holds a NUL);
    - in a cookie (``sessionid="\\000..."``, which Python's cookie parser decodes): that cookie is dropped,
      as if the browser had not sent it (a stale or forged cookie must not lock a visitor out).

    Form fields are refused by the forms themselves: Django's ``CharField`` carries
    ``ProhibitNullCharactersValidator`` ("Null characters are not allowed."), so a NUL in a username,
    password or any text field is an error on that field. Request headers with NUL never arrive: Daphne
    answers 400 itself. WebSocket fields: ``games.consumers``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = request.path_info.startswith("/api/")
        if NUL in request.path_info:
            if api:
                return JsonResponse({"error": "not_found", "message": "no such API endpoint"}, status=404)
            self._activate_language(request)
            raise Http404("NUL in the path")
        with_nul = sorted(
            key for key, values in request.GET.lists() if NUL in key or any(NUL in value for value in values)
        )
        if with_nul:
            if api:
                return JsonResponse(
                    {
                        "error": "bad_query",
                        "message": f"invalid query parameter(s): {', '.join(with_nul)}",
                        "fields": {key: ["must not contain a NUL character"] for key in with_nul},
                    },
                    status=400,
                )
            self._activate_language(request)
            # Answered here, not raised: with DEBUG on Django would show a traceback page for a
            # BadRequest, and the generic 400 page does not say what was wrong.
            reason = translation.gettext(
                "The address's query string contains a NUL character (%00), which no page accepts: "
                "remove it from the link.")
            body = loader.render_to_string("400.html", {"reason": reason})
            return HttpResponse(body, status=400)
        if any(NUL in key or NUL in value for key, value in request.COOKIES.items()):
            request.COOKIES = {k: v for k, v in request.COOKIES.items() if NUL not in k and NUL not in v}
        return self.get_response(request)

    @staticmethod
    def _activate_language(request: HttpRequest) -> None:
        """The error page is rendered before ``LocaleMiddleware`` runs: pick the reader's language here
        (cookie or Accept-Language; never the session, which is what this guards)."""
        translation.activate(translation.get_language_from_request(request))


class MatchIdMiddleware:
    """While a request to a view with a ``match_id`` argument is handled, its log records carry that
    match (``web.log_context.match_id``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Cleared when a request starts, not when it ends: Django logs the response's status ("Not Found:
        # /replay/7/") after every middleware has returned, and that record belongs to the match too.
        match_id.set(None)
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        value = kwargs.get("match_id")
        if isinstance(value, int):
            match_id.set(value)
