"""Daphne's WebSocket server made to close, not drop, a connection it refuses (issue 8).

Daphne limits a client message to 1 MiB (``--websocket-max-message-size``, autobahn's
``maxMessagePayloadSize``), which keeps a client from making the server buffer unbounded frames. But its
autobahn factory keeps the default ``failByDrop=True``: a larger frame (or any protocol violation) cut
the TCP connection without a close frame, while docs/protocol.md promised an answer. With
``failByDrop=False`` autobahn sends the close frame first: 1009 "message too big" for an oversized
message, 1002 for a protocol error. Daphne exposes no option for it, so :func:`close_instead_of_drop`
sets it on Daphne's factory class; ``config.asgi`` calls it, which Daphne imports before it serves.
"""

from __future__ import annotations

from typing import Any


def close_instead_of_drop() -> None:
    """Make every Daphne WebSocket factory created from now on fail connections with a close frame.
    Idempotent."""
    from daphne.ws_protocol import WebSocketFactory

    original = WebSocketFactory.resetProtocolOptions
    if getattr(original, "closes_instead_of_dropping", False):
        return

    def reset(self: Any) -> None:
        original(self)
        self.failByDrop = False

    reset.closes_instead_of_dropping = True  # type: ignore[attr-defined]
    WebSocketFactory.resetProtocolOptions = reset


def add_reason_phrases() -> None:
    """Give Twisted's status-line table (``twisted.web.http.RESPONSES``, which Daphne uses: the ASGI
    response has no reason phrase) the codes it lacks, from ``http.HTTPStatus``: without it a 429 went out
    as "429 Unknown Status" (also 422). Idempotent; known phrases are kept."""
    from http import HTTPStatus

    from twisted.web import http

    for status in HTTPStatus:
        http.RESPONSES.setdefault(status.value, status.phrase.encode("ascii"))
