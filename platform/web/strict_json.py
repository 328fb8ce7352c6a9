"""JSON from clients, parsed strictly: what RFC 8259 allows and nothing a reader could take two ways.

Python's ``json.loads`` accepts ``NaN``, ``Infinity`` and ``-Infinity`` and turns ``1e400`` into an
infinite float; a ping's ``id`` of ``1e400`` came back in the ``pong`` as ``Infinity``, which is not JSON
and which a browser's ``JSON.parse`` refuses (fresh-clone trial). It also lets the last of two equal keys
win: ``{"type": "ping", "type": "resign"}`` resigned a match. :func:`loads` refuses all of these.
"""

from __future__ import annotations

import json
import math
from typing import Any


class StrictJSONError(ValueError):
    """A text that is JSON to Python but not to this parser; the message names what was refused."""


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a number JSON allows")


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"the number {text[:40]} is out of range")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise StrictJSONError(f"the key {key[:40]!r} appears twice in one object")
        result[key] = value
    return result


def loads(text: str | bytes) -> Any:
    """``text`` parsed as JSON.

    :raises StrictJSONError: ``NaN``/``Infinity``, a number beyond a double, or a key twice in an object.
    :raises ValueError: not JSON at all (``json.JSONDecodeError``, or bytes that are not UTF-8).
    :raises RecursionError: nested deeper than the parser's stack.
    """
    return json.loads(text, parse_constant=_constant, parse_float=_number, object_pairs_hook=_object)
