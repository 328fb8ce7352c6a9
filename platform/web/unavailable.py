"""What the site answers while its database cannot be reached (issue 14, docs/faults.md "postgres_restart").

A request or socket that fails because PostgreSQL is down (stopped, restarting, unreachable) is not a
bug of ours, and the reader can do one thing about it: try again shortly. So:

- HTTP: ``web.views.server_error`` (``handler500``) answers 503 with ``Retry-After`` (the ``503.html``
  page, or ``{"error": "unavailable", ...}`` under ``/api/`` and ``/healthz``) instead of the 500 page.
- WebSockets: the socket is accepted (if it was not yet), sent one ``error`` ``server_unavailable`` and
  closed with **4503** (the site's application codes mirror HTTP: 4401, 4403, 4404, 4409, 4429; 503 is
  "Service Unavailable"; RFC 6455's own "try again later", 1013, cannot be sent: Daphne's autobahn lets an
  application close only with 1000 or 3000-4999, and answers anything else with 1011), which the pages'
  socket (``web/static/web/socket.js``) treats like any non-fatal close: reconnect with backoff.
  Before, the session and user lookup of Channels' ``AuthMiddlewareStack`` raised before any consumer ran
  and Daphne refused the handshake with HTTP 500, and a consumer's ``connect`` that failed on the
  database dropped the socket. Two places, one answer: :class:`SocketUnavailable` wraps the socket stack
  (``config.asgi``) for the lookup before any consumer; :class:`RefusesWhenUnavailable`, the base of the
  consumers that read the database in ``connect``, for theirs. (The middleware alone would answer those
  too, but only once the consumer has torn down: 5 s later in a test on the Redis channel layer, whose
  receive waits out its ``BRPOP`` timeout.)

Which failures count (:func:`database_unavailable`): Django's ``InterfaceError`` (a connection already
closed), and ``OperationalError`` caused by the connection itself: psycopg's with no SQLSTATE (the
client could not connect, or the server closed the connection: a crash, ``pg_ctl stop -m immediate``)
or of class 08 (connection exception) or 57P (``admin_shutdown``, ``crash_shutdown``,
``cannot_connect_now``: "the database system is starting up"); SQLite's "database is locked" (the
embedded profile's busy timeout ran out). Any other database error (a bad query, a missing table, a
deadlock) stays a 500 / an uncaught error with its traceback: those are bugs to see.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any

from asgiref.typing import WebSocketConnectEvent
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import InterfaceError, OperationalError

from web.close_codes import UNAVAILABLE_CLOSE_CODE

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
"""``Retry-After`` of a 503: a restarted PostgreSQL is usually back within seconds."""
SOCKET_ERROR = {
    "type": "error",
    "code": "server_unavailable",
    "message": "the server cannot reach its database: nothing was applied; reconnect in a few seconds",
    "id": None,
}
"""The frame a socket gets before its 4503 close (docs/protocol.md)."""

_SQLSTATE_CLASSES = ("08", "57P")


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached now (see the module docstring), as opposed
    to a failing query. ``exc`` is what Django raised (its wrapper keeps the driver's error as
    ``__cause__``) or a driver error itself."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return _driver_unavailable(exc)
    return _driver_unavailable(exc.__cause__) if exc.__cause__ is not None else False


def _driver_unavailable(exc: BaseException | None) -> bool:
    if isinstance(exc, sqlite3.OperationalError):
        return str(exc).startswith("database is locked")
    try:
        import psycopg
    except ImportError:  # pragma: no cover  (psycopg is a dependency of every profile)
        return False
    if isinstance(exc, psycopg.InterfaceError):
        return True
    if isinstance(exc, psycopg.OperationalError):
        sqlstate = exc.sqlstate
        return sqlstate is None or sqlstate.startswith(_SQLSTATE_CLASSES)
    return False


def describe(exc: BaseException) -> str:
    """``"OperationalError: <first line of the driver's message>"``, for a one-line log record (the
    message names the database host and port, which the log may show but no client)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


Scope = dict[str, Any]


def _log_refusal(path: str, exc: BaseException, request_id: Any) -> None:
    log.warning(
        "socket %s: database unavailable (%s): error server_unavailable, close %d",
        path, describe(exc.__cause__ or exc), UNAVAILABLE_CLOSE_CODE,
        extra={"request_id": request_id},
    )


class RefusesWhenUnavailable(AsyncWebsocketConsumer):
    """Base of a consumer whose ``connect`` reads the database: when that fails because the database
    cannot be reached (:func:`database_unavailable`), the socket is accepted if it was not yet, sent
    :data:`SOCKET_ERROR` and closed with :data:`UNAVAILABLE_CLOSE_CODE` at once; ``disconnect`` then runs
    as for any refused socket (it must cope with a ``connect`` that stopped early, as for a refusal).
    Logged as one WARNING line of ``web.unavailable``, without a traceback. Other errors propagate."""

    _accepted = False

    async def accept(self, *args: Any, **kwargs: Any) -> None:
        self._accepted = True
        await super().accept(*args, **kwargs)

    async def websocket_connect(self, message: WebSocketConnectEvent) -> None:
        try:
            await super().websocket_connect(message)
        except Exception as exc:
            if not database_unavailable(exc):
                raise
            _log_refusal(str(self.scope.get("path", "")), exc, self.scope.get("request_id"))
            if not self._accepted:
                await self.accept()
            await self.send(text_data=json.dumps(SOCKET_ERROR, separators=(",", ":")))
            await self.close(code=UNAVAILABLE_CLOSE_CODE)


class SocketUnavailable:
    """ASGI middleware for WebSockets (``config.asgi``, around ``AuthMiddlewareStack``): a connection whose
    application raises a database-unavailable error (:func:`database_unavailable`; in practice the session
    and user lookup, before any consumer) is answered with :data:`SOCKET_ERROR` and closed with
    :data:`UNAVAILABLE_CLOSE_CODE`, accepted first if it was not yet, instead of an HTTP 500 at the
    handshake or a dropped connection. Any other error, or one after the socket was closed, propagates.
    Logged as one WARNING line of ``web.unavailable``, without a traceback."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        state = {"accepted": False, "closed": False}

        async def tracked_send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                state["accepted"] = True
            elif message["type"] == "websocket.close":
                state["closed"] = True
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception as exc:
            if state["closed"] or not database_unavailable(exc):
                raise
            _log_refusal(str(scope.get("path", "")), exc, scope.get("request_id"))
            if not state["accepted"]:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps(SOCKET_ERROR, separators=(",", ":"))})
            await send({"type": "websocket.close", "code": UNAVAILABLE_CLOSE_CODE})
