"""Pushes from the embedded profile's Celery processes, carried to the Daphne process over HTTP.

The embedded default (no Redis) runs Daphne with channels' in-memory layer, which lives in Daphne's
process only, beside a Celery worker and beat in other processes: a message such a process sent on its
own in-memory layer reached nobody (the rating after a rated match, a tournament's round starting), and
the table had to poll the database for its rating. Here ``scripts/serve`` gives every process of one run
the same random ``PUSH_FORWARD_TOKEN``, and the Celery processes ``PUSH_FORWARD_URL`` (Daphne's
``/internal/push/``; on 127.0.0.1 when Daphne listens on every address): ``push.send`` in those
processes posts its messages there (:func:`post`, this module: the sending end), and
``push.views.receive`` in Daphne sends them on the layer that holds the sockets (the receiving end). The
production profile never forwards (Redis connects every process).

Request: ``POST`` JSON ``{"messages": [[group, message], ...]}`` with ``Authorization: Bearer <token>``
(256 random bits made for the run: the only credential). Answers: 204 (sent), 400 (malformed, or a
message no schema admits: nothing sent), 403 (wrong token), 404 (forwarding off: no token in this
process), 405 (not a POST), 413 (over ``push.views.MAX_BYTES``), 503 (the layer could not send).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

TIMEOUT = 10.0
"""Seconds a post may take: more than a layer send's ``push.send.PUSH_TIMEOUT``, because a Daphne that has
just started imports its whole URL configuration on its first request (2.3 s seen in a test). Only the
embedded profile's Celery processes post, never a move's path."""


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
