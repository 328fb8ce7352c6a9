"""What the log records of a piece of work carry besides their message: the request id and the match.

- ``request_id``: django-guid's context variable (``django_guid.get_guid``), set by its middleware for
  each HTTP request from ``X-Request-ID`` (a UUID) or made anew; a WebSocket connection gets one the same
  way at its handshake (:func:`bind_socket`).
- ``match_id``: :data:`match_id`, set while the work concerns one match: a view with a ``match_id``
  argument (``web.middleware.MatchIdMiddleware``), the table's and the watch page's WebSocket consumers
  (:func:`bind_socket`), a Celery task with a ``match_id`` argument (:func:`bind_task`).

Both are context variables: each request, socket (one asyncio task each) and task has its own, and
``sync_to_async`` carries them into the database threads. ``web.log_filters.ContextIds`` copies them
onto every record.
"""

from __future__ import annotations

import inspect
import re
import uuid
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from django_guid import get_guid, set_guid

match_id: ContextVar[int | None] = ContextVar("match_id", default=None)


REQUEST_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""An accepted ``X-Request-ID`` (docs/api.md): 32 hex digits, or a UUID's 8-4-4-4-12 dashed form."""


def normalized_request_id(header: str | None) -> str | None:
    """An incoming ``X-Request-ID`` as it is kept: lower-cased when it is 32 hex digits (dashes allowed
    in a UUID's places), else None (braces, ``urn:uuid:``, other dashes or characters: replaced)."""
    if not header or len(header) > 36:
        return None
    value = header.lower()
    return value if REQUEST_ID.fullmatch(value) else None


def request_id_from(header: str | None) -> str:
    """The request id for an incoming ``X-Request-ID`` value: :func:`normalized_request_id`, else a new
    random one (32 hex digits)."""
    return normalized_request_id(header) or uuid.uuid4().hex


def current_request_id() -> str | None:
    """The request id of the work in progress, or None outside any request or socket."""
    return get_guid()


def bind_socket(scope: Mapping[str, Any], match: int | None) -> None:
    """Give a WebSocket connection its request id (from its handshake's ``X-Request-ID`` or new) and its
    match; call it first in ``connect`` (the values then hold for every handler of that connection).
    The access log (``web.access_log``) has already chosen it: ``scope["request_id"]``, so its lines and
    the consumer's share one id."""
    chosen = scope.get("request_id")
    if isinstance(chosen, str):
        set_guid(chosen)
        match_id.set(match)
        return
    headers = dict(scope.get("headers") or [])
    raw = headers.get(b"x-request-id")
    set_guid(request_id_from(raw.decode("latin-1") if raw else None))
    match_id.set(match)


def bind_task(task: Any, args: Any, kwargs: Any) -> None:
    """Celery ``task_prerun``: the task's ``match_id`` argument (by keyword or position) becomes the
    match of its records; None for a task without one. A task's arguments that do not fit its signature
    are left to Celery to refuse."""
    try:
        bound = inspect.signature(task.run).bind_partial(*(args or ()), **(kwargs or {}))
    except (TypeError, ValueError):
        match_id.set(None)
        return
    value = bound.arguments.get("match_id")
    match_id.set(value if isinstance(value, int) else None)
