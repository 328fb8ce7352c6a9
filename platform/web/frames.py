"""The text of every WebSocket frame the server sends: one JSON encoder for the table, spectator and
home sockets.

``dumps(payload) -> str``: compact JSON (no spaces), non-ASCII as UTF-8 (a text frame is UTF-8 anyway),
integer dict keys as strings (as :func:`json.dumps` writes them). Encoded with orjson: a table's
``state`` frame (about 2.6 KB) costs 4-5 us instead of 27-28 us with ``json.dumps`` (issue 23,
measured on this machine on the states of ``scripts/bench_action``'s matches), and every accepted
action sends two or more of them.

A value orjson refuses (a ``str`` holding a lone surrogate, an integer past 64 bits) is encoded by
:func:`json.dumps` instead, which escapes the one and writes the other: the frame is never lost for it.

:raises TypeError: a value neither encoder knows (a bug: the payloads are built of JSON types).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(payload: Any) -> str:
    """``payload`` as the compact JSON text of one frame (module docstring)."""
    try:
        return orjson.dumps(payload, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(payload, separators=(",", ":"))
