"""The API's errors: one JSON shape for every refusal, ``{"error": code, "message": text}``.

``code`` is a stable machine word (``bad_query``, ``not_found``, ``no_such_player``, ``method_not_allowed``,
``throttled``, ...); ``message`` is an English sentence; a refused query string adds ``fields``
(parameter -> its problems). The same shape as ``/replay/<id>.json``'s errors. Every status the API can
answer is listed in docs/api.md and in the schema (``api.schema.add_error_responses``).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApiError(exceptions.APIException):
    """A refusal with its own ``code`` and HTTP ``status``: ``raise ApiError(404, "no_such_player", ...)``."""

    def __init__(self, status_code: int, code: str, message: str) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message


class BadQuery(ApiError):
    """The query string was refused: ``fields`` maps each bad parameter to its problems (400)."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        names = ", ".join(sorted(fields))
        super().__init__(status.HTTP_400_BAD_REQUEST, "bad_query", f"invalid query parameter(s): {names}")
        self.fields = fields


class ErrorSerializer(serializers.Serializer[Any]):
    """Body of every API error (its schema component)."""

    error = serializers.CharField(help_text="Machine-readable code, e.g. bad_query, not_found, throttled.")
    message = serializers.CharField(help_text="What went wrong, in English.")
    # Declared fields leave the class (DRF's metaclass); DRF's stubs see it replace Serializer.fields.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="bad_query only: each refused query parameter and its problems.",
    )


# DRF's own exceptions -> (code, English message). The message is ours: DRF's are translated, and the
# API answers in English whatever the reader's language.
_DRF_CODES: dict[type[exceptions.APIException], tuple[str, str]] = {
    exceptions.NotFound: ("not_found", "not found"),
    exceptions.MethodNotAllowed: ("method_not_allowed", "this API is read-only: use GET, HEAD or OPTIONS"),
    exceptions.NotAcceptable: ("not_acceptable", "the API answers application/json only"),
    exceptions.PermissionDenied: ("forbidden", "you may not read this"),
    exceptions.NotAuthenticated: ("not_authenticated", "log in first"),
    exceptions.AuthenticationFailed: ("not_authenticated", "log in first"),
    exceptions.ParseError: ("bad_request", "the request could not be read"),
    exceptions.UnsupportedMediaType: ("unsupported_media_type", "the API reads no request body"),
}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: DRF's handler (status, ``Retry-After``, ``Allow``), then our body.

    Anything DRF does not handle (a bug) is left to Django: a 500, logged with its traceback.
    """
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, BadQuery):
        response.data = {"error": exc.code, "message": exc.message, "fields": exc.fields}
    elif isinstance(exc, ApiError):
        response.data = {"error": exc.code, "message": exc.message}
    elif isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait) if exc.wait is not None else None  # type: ignore[attr-defined]  # set by __init__; DRF's stubs omit it
        message = "too many requests" + (f": try again in {wait} s" if wait is not None else "")
        response.data = {"error": "throttled", "message": message}
    elif isinstance(exc, exceptions.ValidationError):
        response.data = {"error": "bad_query", "message": "invalid request", "fields": exc.detail}
    elif isinstance(exc, exceptions.MethodNotAllowed) and "POST" in _allowed(context):
        # The bot API (platform/botapi) is not read-only: say what this endpoint takes.
        response.data = {"error": "method_not_allowed", "message": f"use {', '.join(_allowed(context))}"}
    else:
        response.data = dict(zip(("error", "message"), _code_and_message(exc), strict=True))
    return response


def _allowed(context: dict[str, Any]) -> list[str]:
    """The methods the view of ``context`` answers (its ``Allow`` header), or [] without a view."""
    view = context.get("view")
    return list(getattr(view, "allowed_methods", []) or [])


def _code_and_message(exc: Exception) -> tuple[str, str]:
    """The ``(code, message)`` of a DRF or Django refusal: ours for the known kinds (Django's ``Http404``,
    which DRF answers as a ``NotFound``, too), else the exception's own ``default_code`` and detail; never
    the word ``error`` (APIException's default code), which says nothing."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    for kind, known in _DRF_CODES.items():
        if isinstance(exc, kind):
            return known
    code = str(getattr(exc, "default_code", "") or "")
    if code in ("", "error"):
        return ("server_error", "the request could not be answered")
    detail = getattr(exc, "detail", None)
    return (code, str(detail) if isinstance(detail, str) and detail else code.replace("_", " "))


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any other address under ``/api/``: a JSON 404 (not the site's HTML page), whatever the method."""
    return JsonResponse({"error": "not_found", "message": "no such API endpoint"}, status=404)
