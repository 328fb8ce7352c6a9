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
import uuid
from contextvars import ContextVar
from typing import Any

from django_guid import get_guid, set_guid

match_id: ContextVar[int | None] = ContextVar("match_id", default=None)


def request_id_from(header: str | None) -> str:
    """The request id for an incoming ``X-Request-ID`` value: kept (as 32 hex digits) when it is a UUID,
    else a new random one."""
    if header and len(header) <= 36:
        try:
            return uuid.UUID(header).hex
        except ValueError:
            pass
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    """The request id of the work in progress, or None outside any request or socket."""
    return get_guid()


def bind_socket(scope: dict[str, Any], match: int | None) -> None:
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
