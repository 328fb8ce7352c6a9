"""The receiving end of the pushes forwarded by the embedded profile's Celery processes (``push.forward``
holds the protocol and the sending end): Daphne's ``/internal/push/`` (``config.urls``), which checks the
run's token and the messages, then sends them on this process's layer (``push.send``).
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from push import schemas, send
from web import strict_json

MAX_BYTES = 1_000_000
"""Largest request body accepted (a batch of ratings pushes is a few KB)."""


def _refused(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": code, "message": message}, status=status)


def _parsed(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The ``[(group, message)]`` of a request body.

    :raises ValueError: not the documented shape, or a message no schema admits (``schemas.check``).
    """
    try:
        data = strict_json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the body is not JSON: {exc}") from None
    items = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError("the body must be {\"messages\": [[group, message], ...]} with at least one message")
    messages: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(items):
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], dict)):
            raise ValueError(f"messages[{index}] must be [group, message]")
        group, message = item
        if not (0 < len(group) < 100) or not all(c.isalnum() or c in "_-." for c in group):
            raise ValueError(f"messages[{index}]: {group!r} is not a group name")
        schemas.check(group, message)  # always: this came from another process
        messages.append((group, message))
    return messages


@csrf_exempt
async def receive(request: HttpRequest) -> HttpResponse:
    """Daphne's end (module docstring): check, then send the messages on this process's layer."""
    if request.method != "POST":
        refused = _refused(405, "method_not_allowed", "only POST")
        refused["Allow"] = "POST"
        return refused
    token = getattr(settings, "PUSH_FORWARD_TOKEN", "")
    if not token:
        return _refused(404, "not_found", "push forwarding is off in this process")
    given = request.headers.get("Authorization", "").removeprefix("Bearer ")
    if not hmac.compare_digest(given.encode(), token.encode()):
        return _refused(403, "forbidden", "only this run's own processes may forward pushes")
    if len(request.body) > MAX_BYTES:
        return _refused(413, "too_large", f"at most {MAX_BYTES} bytes")
    try:
        messages = _parsed(request.body)
    except (ValueError, schemas.MessageRejected) as exc:
        return _refused(400, "bad_messages", str(exc))
    outcome = await send.send(messages)
    if outcome.failed:
        return _refused(503, "layer_failed", "the channel layer could not send (an outage)")
    return HttpResponse(status=204)
