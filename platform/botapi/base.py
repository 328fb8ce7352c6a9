"""What every view of the bot API shares (docs/bot-api.md "Requests and answers"): token authentication
(``botapi.auth``), the limits (``botapi.throttles``: counted before the scope is checked, and for a
request whose token is refused too), English answers, and strictly read JSON bodies (:func:`body`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.utils import translation
from rest_framework.parsers import JSONParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from botapi.auth import BearerToken, token_of
from botapi.errors import BotApiError
from botapi.throttles import THROTTLES
from web.strict_json import loads

MAX_BODY_BYTES = 4096
"""Largest request body (docs/bot-api.md: at most 4 KB)."""
MAX_ID_LENGTH = 64
"""Longest retry key (``id``) of an action or resignation (``games.models.MatchEvent.msg_id``)."""
MAX_SEQ = 2**53 - 1
"""Largest ``seq`` a client may send (the table socket's bound: an exact JSON number everywhere)."""


class AnyToken(BasePermission):
    """A live token, whatever its scopes (``GET account/``)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if token_of(request) is None:
            raise BotApiError("not_authenticated", "send your API token: 'Authorization: Bearer <token>'")
        return True


class BotView(APIView):
    """Base of the bot API's views: ``Authorization: Bearer`` only (never a session), JSON bodies only,
    the per-token and per-IP limits, answers in English. A subclass sets ``permission_classes``
    (``botapi.auth.scope(...)`` or :class:`AnyToken`) and reads its body with :func:`body`."""

    authentication_classes = [BearerToken]
    parser_classes = [JSONParser]
    throttle_classes = THROTTLES
    permission_classes: list[type[BasePermission]] = [AnyToken]
    _throttled = False

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        translation.activate("en")
        try:
            super().initial(request, *args, **kwargs)
        except BotApiError as exc:
            # A refused or missing token still counts, per IP address (a client guessing tokens is slowed).
            if exc.code in ("bad_token", "not_authenticated"):
                self.check_throttles(request)
            raise

    def check_permissions(self, request: Request) -> None:
        # The limit first: a token without the scope it uses still spends its quota.
        self.check_throttles(request)
        super().check_permissions(request)

    def check_throttles(self, request: Request) -> None:
        if self._throttled:
            return
        self._throttled = True
        super().check_throttles(request)


def body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` for an empty body), read strictly (``web.strict_json``).

    :raises BotApiError: ``bad_request``: over :data:`MAX_BODY_BYTES`, a content type other than JSON,
        not UTF-8, not JSON, not an object, or a NUL character anywhere (raw or ``\\u0000``)."""
    too_big = BotApiError("bad_request", f"the body is over {MAX_BODY_BYTES} bytes")
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit() or int(declared) > MAX_BODY_BYTES:
        # Refused by its declared length, before Django reads it: past DATA_UPLOAD_MAX_MEMORY_SIZE,
        # Django's own refusal (RequestDataTooBig) would be an HTML page, not the API's JSON.
        raise too_big
    try:
        raw = request.body
    except RequestDataTooBig:  # chunked (no Content-Length) and past DATA_UPLOAD_MAX_MEMORY_SIZE
        raise too_big from None
    if len(raw) > MAX_BODY_BYTES:  # a body without Content-Length (chunked)
        raise too_big
    if not raw.strip():
        return {}
    kind = (request.content_type or "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BotApiError("bad_request", "send the body as JSON (Content-Type: application/json)")
    if b"\x00" in raw:
        raise BotApiError("bad_request", "the body contains a NUL character")
    try:
        data = loads(raw)
    except RecursionError:
        raise BotApiError("bad_request", "the body's JSON is nested too deeply") from None
    except ValueError as exc:
        raise BotApiError("bad_request", f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BotApiError("bad_request", "the body must be a JSON object")
    if _has_nul(data):
        raise BotApiError("bad_request", "the body contains a NUL character (\\u0000)")
    return data


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


def field(data: dict[str, Any], name: str, kind: type, *, default: Any = None, required: bool = False) -> Any:
    """``data[name]`` of type ``kind`` exactly (an int is never a bool or a float), or ``default`` when
    absent (or null, unless ``required``).

    :raises BotApiError: ``bad_request``: missing when ``required``, or of another type."""
    if name not in data or (data[name] is None and not required):
        if required:
            raise BotApiError("bad_request", f"the field {name!r} is missing")
        return default
    value = data[name]
    if type(value) is not kind:
        raise BotApiError("bad_request", f"the field {name!r} must be {_KIND_NAMES.get(kind, kind.__name__)}")
    return value


_KIND_NAMES = {int: "an integer", str: "a string", bool: "true or false"}
