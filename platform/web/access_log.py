"""The access log: one record per HTTP response and per WebSocket connection, through Python logging.

Daphne's own access log (``-v 1``, its default) writes plain NCSA lines straight to stdout with the full
URL, a private replay's ``?token=`` included, and no request id. The site runs Daphne with ``-v 0`` (no
access log: ``scripts/serve``, ``deploy/systemd/gin-daphne@.service``) and :class:`AccessLog` wraps the
ASGI application instead, so the lines go through the ``LOGGING`` handler: JSON in production, the
secrets redacted (a ``?token=`` and a friend invite's ``/t/<token>/``: ``web.log_filters.redact_secrets``),
the request id on each.

Logger ``web.access``, level INFO. Message ``"<method> <path?query> <status>"`` (WebSockets:
``"WSCONNECT <path>"``, ``"WSREJECT <path>"``, ``"WSDISCONNECT <path>"``); ``extra``: ``method``, ``path``
(with the query string), ``status_code`` (HTTP), ``size`` (body bytes sent), ``duration_ms``, ``client``
(``host:port``, Daphne's ``--proxy-headers`` address behind nginx) and ``request_id``: the response's
``X-Request-ID`` (django-guid sets it on every response), for a socket the id of its handshake
(:func:`web.log_context.request_id_from`, kept in ``scope["request_id"]`` for the consumer's records).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from web.log_context import request_id_from
from web.log_filters import redact_secrets

log = logging.getLogger("web.access")

Scope = dict[str, Any]


def _target(scope: Scope) -> str:
    path = str(scope.get("path", ""))
    query = scope.get("query_string") or b""
    if query:
        path += "?" + query.decode("latin-1")
    return redact_secrets(path)


def _client(scope: Scope) -> str | None:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else None


class AccessLog:
    """ASGI middleware around the whole application (``config.asgi``): logs, never changes, the traffic."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Any, send: Any) -> None:
        started = time.monotonic()
        state: dict[str, Any] = {"status": None, "size": 0, "request_id": None, "logged": False}

        async def logged_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                state["status"] = int(message["status"])
                for name, value in message.get("headers") or ():
                    if name.lower() == b"x-request-id":
                        state["request_id"] = value.decode("latin-1")
            elif message["type"] == "http.response.body":
                state["size"] += len(message.get("body") or b"")
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self._log_http(scope, state, started)

        try:
            await self.app(scope, receive, logged_send)
        finally:
            if not state["logged"]:  # the application failed or the client left before the last byte
                self._log_http(scope, state, started)

    @staticmethod
    def _log_http(scope: Scope, state: dict[str, Any], started: float) -> None:
        state["logged"] = True
        method = str(scope.get("method", "-"))
        target = _target(scope)
        status = state["status"]
        log.info(
            "%s %s %s",
            method,
            target,
            status if status is not None else "-",
            extra={
                "method": method,
                "path": target,
                "status_code": status,
                "size": state["size"],
                "duration_ms": round((time.monotonic() - started) * 1000, 1),
                "client": _client(scope),
                "request_id": state["request_id"],
            },
        )

    async def _websocket(self, scope: Scope, receive: Any, send: Any) -> None:
        started = time.monotonic()
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"x-request-id")
        request_id = request_id_from(raw.decode("latin-1") if raw else None)
        scope = {**scope, "request_id": request_id}
        target = _target(scope)
        extra = {"path": target, "client": _client(scope), "request_id": request_id}
        state = {"accepted": False, "answered": False}

        async def logged_send(message: dict[str, Any]) -> None:
            kind = message["type"]
            if not state["answered"] and kind in ("websocket.accept", "websocket.close"):
                state["answered"] = True
                state["accepted"] = kind == "websocket.accept"
                log.info("%s %s", "WSCONNECT" if state["accepted"] else "WSREJECT", target, extra=extra)
            await send(message)

        try:
            await self.app(scope, receive, logged_send)
        finally:
            if state["accepted"]:
                duration = round((time.monotonic() - started) * 1000, 1)
                log.info("WSDISCONNECT %s", target, extra={**extra, "duration_ms": duration})
