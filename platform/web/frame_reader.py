"""Reading a client's WebSocket frame into a message, for the read-mostly sockets (home, spectator,
analysis): a text frame of at most ``max_bytes`` characters holding one strict JSON object
(``web.strict_json``: no duplicate keys, no NaN or Infinity; what a string holds is the socket's to check).

``read_object(text_data, bytes_data, max_bytes=...) -> dict | Refusal``: the message, or the error the
socket answers with (``error_frame(refusal.code, refusal.message)``, docs/protocol.md "Errors"):

- ``frame_too_large``: the frame is longer than ``max_bytes`` (text or binary);
- ``bad_json``: a binary frame, or text that is not strict JSON (the parser's reason included when it
  gives one; a nesting deeper than the parser's stack is refused too);
- ``not_an_object``: valid JSON that is not an object.

The table's socket (``games.consumers``) reads more strictly still (UTF-8 length, lone surrogates), and
the lobby's sockets answer their own ``bad_frame`` code; they keep their readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from web import strict_json


@dataclass(frozen=True)
class Refusal:
    """Why a frame was not read: an error ``code`` of docs/protocol.md and its English ``message``."""

    code: str
    message: str


def error_frame(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The ``error`` message a socket sends: ``{"type": "error", "code", "message", "id": None, **extra}``."""
    return {"type": "error", "code": code, "message": message, "id": None, **extra}


def read_object(
    text_data: str | None, bytes_data: bytes | None, *, max_bytes: int
) -> dict[str, Any] | Refusal:
    """The JSON object in a client's frame, or the :class:`Refusal` to answer with (module docstring).

    >>> read_object('{"type": "ping"}', None, max_bytes=100)
    {'type': 'ping'}
    >>> read_object(None, b"{}", max_bytes=100)
    Refusal(code='bad_json', message='send JSON text frames')
    >>> read_object("[1]", None, max_bytes=100)
    Refusal(code='not_an_object', message='a message must be a JSON object')
    """
    if text_data is None or len(text_data) > max_bytes:
        if text_data is not None or len(bytes_data or b"") > max_bytes:
            return Refusal("frame_too_large", f"frames are limited to {max_bytes} bytes")
        return Refusal("bad_json", "send JSON text frames")
    try:
        message = strict_json.loads(text_data)
    except strict_json.StrictJSONError as exc:
        return Refusal("bad_json", f"the frame is not valid JSON: {exc}")
    except (ValueError, RecursionError):
        return Refusal("bad_json", "the frame is not valid JSON")
    if not isinstance(message, dict):
        return Refusal("not_an_object", "a message must be a JSON object")
    return message
