"""The spectators' ``watch`` message, built once per match and change in each process, not once per socket.

Why (issue 20, finding 2's benchmark): every spectator socket rebuilt the view itself after each move (a
read of the match, its live state and its deals, then ``json.dumps``), all on the process's one database
thread; with 300 spectators on one match that was about 0.9 s of Daphne CPU per second, and handshakes
(whose session lookup queues on the same thread) timed out. The view is the third party's, the same for
every spectator (``replays.watch.watch_payload``: no seat, no concealed card), so one build serves them all.

:func:`view` returns the latest view of a match built in this process if it is recent enough for the
caller, else builds it (one build at a time per match: callers that wait for it use it):

- after a move's ``match.update`` notice with ``seq`` N: any view at seq >= N;
- on connect or ``sync``: a view whose database read began after the caller's ``since`` (its
  ``time.monotonic()`` when it joined the group, or when it asked): nothing committed before that
  moment can be missing from it, and anything committed after reaches the socket as a notice.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async

from games.selectors import match_get
from replays import watch

KEPT = 1000
"""Views kept per process (one per match watched here); the oldest is dropped past this."""


@dataclass(frozen=True, slots=True)
class View:
    """A built ``watch`` message: its ``seq``, its JSON ``text``, and when its read began (monotonic s)."""

    seq: int
    text: str
    read_at: float


_views: dict[int, View] = {}
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, asyncio.Lock]] = (
    weakref.WeakKeyDictionary())


def _build(match_id: int) -> dict[str, Any] | None:
    match = match_get(match_id=match_id)
    return None if match is None else watch.watch_payload(match=match)


def _fresh(cached: View | None, *, seq: int | None, since: float | None) -> bool:
    if cached is None:
        return False
    if seq is not None and cached.seq >= seq:
        return True
    return since is not None and cached.read_at >= since


async def view(match_id: int, *, seq: int | None = None, since: float | None = None) -> View | None:
    """The match's view, at seq >= ``seq`` or read after ``since`` (module docstring); None when the
    match is gone. Built on the database thread when nothing kept is fresh enough."""
    cached = _views.get(match_id)
    if _fresh(cached, seq=seq, since=since):
        return cached
    locks = _locks.setdefault(asyncio.get_running_loop(), {})
    lock = locks.setdefault(match_id, asyncio.Lock())
    async with lock:
        cached = _views.get(match_id)
        if _fresh(cached, seq=seq, since=since):
            return cached
        read_at = time.monotonic()
        payload = await database_sync_to_async(_build)(match_id)
        if payload is None:
            return None
        built = View(payload["seq"], json.dumps(payload), read_at)
        if cached is None or built.seq >= cached.seq:
            _views.pop(match_id, None)
            _views[match_id] = built  # the newest last: the oldest is dropped first
            while len(_views) > KEPT:
                _views.pop(next(iter(_views)))
        return built


def forget() -> None:
    """Drop every kept view (tests: a new test database reuses match ids)."""
    _views.clear()
