"""Pushes from the embedded profile's Celery processes, carried to the Daphne process over HTTP.

The embedded default (no Redis) runs Daphne with channels' in-memory layer, which lives in Daphne's
process only, beside a Celery worker and beat in other processes: a message such a process sent on its
own in-memory layer reached nobody (the rating after a rated match, a tournament's round starting), and
the table had to poll the database for its rating. Here ``scripts/serve`` gives every process of one run
the same random ``PUSH_FORWARD_TOKEN``, and the Celery processes ``PUSH_FORWARD_URL`` (Daphne's
``/internal/push/``; on 127.0.0.1 when Daphne listens on every address): ``push.send`` in those
processes posts its messages there (:func:`post`), and :func:`receive` in Daphne sends them on the
layer that holds the sockets. The production profile never forwards (Redis connects every process).

Request: ``POST`` JSON ``{"messages": [[group, message], ...]}`` with ``Authorization: Bearer <token>``
(256 random bits made for the run: the only credential). Answers: 204 (sent), 400 (malformed, or a
message no schema admits: nothing sent), 403 (wrong token), 404 (forwarding off: no token in this
process), 405 (not a POST), 413 (over :data:`MAX_BYTES`), 503 (the layer could not send).
"""

from __future__ import annotations

import hmac
import json
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from push import schemas
from web import strict_json

TIMEOUT = 10.0
"""Seconds a post may take: more than a layer send's ``push.send.PUSH_TIMEOUT``, because a Daphne that has
just started imports its whole URL configuration on its first request (2.3 s seen in a test). Only the
embedded profile's Celery processes post, never a move's path."""

MAX_BYTES = 1_000_000
"""Largest request body accepted (a batch of ratings pushes is a few KB)."""


class ForwardRefused(Exception):
    """Daphne refused the forwarded messages (a bug: the status and its reason)."""


def post(url: str, token: str, messages: list[tuple[str, dict[str, Any]]], timeout: float) -> None:
    """Post ``messages`` to Daphne's ``url``.

    :raises ConnectionError: Daphne cannot be reached (an outage, as a stalled Redis is in production).
    :raises TimeoutError: no answer within ``timeout`` seconds.
    :raises ForwardRefused: any answer but 204 (with the answer's error text).
    """
    body = json.dumps({"messages": messages}, separators=(",", ":")).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status = answer.status
            text = answer.read(2000).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read(2000).decode("utf-8", "replace")
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise reason from None
        raise ConnectionError(f"push forward to {url}: {reason}") from None
    if status == 503:
        raise ConnectionError(f"push forward to {url}: the layer could not send: {text}")
    if status != 204:
        raise ForwardRefused(f"push forward to {url}: {status}: {text}")


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
    from push import send  # send imports this module

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
