"""Who is online: the home page's "players online" (docs/protocol.md "Home socket").

Definition. A player is **online** when they are a member or a guest (never a house bot, never an
anonymous visitor: those have no identity to count once) and one of their WebSockets to the site (any:
the home page, a table, a spectator's, the lobby's) was open at some moment of the last
:data:`ONLINE_SECONDS` seconds. The count is of distinct players, across every Daphne process.

How. :class:`PresenceMiddleware` sits in the socket stack after Channels' auth (``config.asgi``): once a
socket of a signed-in player is accepted it marks the player seen (:func:`touch`), then again every
:data:`TOUCH_SECONDS` while the socket stays open. A mark is the player's id in one sorted set of the
shared cache (Redis in production: every process writes and reads the same set), scored with the time
it was made; :func:`count` counts the marks newer than ``now - ONLINE_SECONDS``. Nothing has to run when
a socket closes, so a killed Daphne's players drop out on their own within ``ONLINE_SECONDS``. On
another cache (the embedded profile's locmem: one process) a dict in the cache under a process lock.
A failing cache (Redis down) loses the marks: the count then reads 0 (logged), nobody is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis.exceptions
from asgiref.sync import sync_to_async
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)

ONLINE_SECONDS = 60.0
"""A player counts as online this many seconds after their last mark."""
TOUCH_SECONDS = 20.0
"""Seconds between two marks of one open socket (well under :data:`ONLINE_SECONDS`)."""
KEY = "presence:online"

WARN_EVERY = 60.0
"""Seconds between two WARNING lines of a failing cache (every open socket marks every 20 s: during an
outage one line per socket per mark would flood the log)."""

_local_lock = threading.Lock()
_warned_at = -WARN_EVERY


def _warn(what: str, exc: BaseException) -> None:
    global _warned_at
    now = time.monotonic()
    if now - _warned_at >= WARN_EVERY:
        _warned_at = now
        log.warning("presence: %s: %s: %s (this line at most once a minute)", what, type(exc).__name__, exc)


def _redis() -> Any | None:
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend._cache.get_client(write=True)
    return None


def _errors() -> tuple[type[BaseException], ...]:
    return (redis.exceptions.RedisError, OSError)


def touch(user_id: int, *, now: float | None = None) -> None:
    """Mark ``user_id`` seen at ``now`` (seconds since 1970; default: the clock), dropping the marks
    older than :data:`ONLINE_SECONDS` on the way. A failing cache: one WARNING line, no mark."""
    now = time.time() if now is None else now
    try:
        client = _redis()
        if client is not None:
            key = cache.make_and_validate_key(KEY)
            pipe = client.pipeline(transaction=False)
            pipe.zadd(key, {str(user_id): now})
            pipe.zremrangebyscore(key, "-inf", now - ONLINE_SECONDS)
            pipe.pexpire(key, int(ONLINE_SECONDS * 2000))
            pipe.execute()
            return
        with _local_lock:
            marks = _live(now)
            marks[str(user_id)] = now
            cache.set(KEY, marks, ONLINE_SECONDS * 2)
    except _errors() as exc:
        _warn(f"user {user_id} not marked", exc)


def _live(now: float) -> dict[str, float]:
    held = cache.get(KEY)
    cutoff = now - ONLINE_SECONDS
    return {m: t for m, t in held.items() if t > cutoff} if isinstance(held, dict) else {}


def count(*, now: float | None = None) -> int:
    """How many distinct players are online at ``now`` (module docstring); 0 when the cache fails."""
    now = time.time() if now is None else now
    try:
        client = _redis()
        if client is not None:
            return int(client.zcount(cache.make_and_validate_key(KEY), f"({now - ONLINE_SECONDS}", "+inf"))
        with _local_lock:
            return len(_live(now))
    except _errors() as exc:
        _warn("players online unavailable", exc)
        return 0


def _person_id(scope: dict[str, Any]) -> int | None:
    """The id of the signed-in member or guest of a socket's ``scope`` (None: anonymous, or a bot)."""
    user = scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "is_bot", False):
        return None
    return int(user.pk)


class PresenceMiddleware:
    """ASGI middleware of the socket stack (inside ``AuthMiddlewareStack``): marks the socket's player
    online from its accept to its end (module docstring). ``sleep`` is injectable for tests."""

    def __init__(self, inner: Any, *, sleep: Callable[[float], Any] = asyncio.sleep) -> None:
        self.inner = inner
        self.sleep = sleep

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        user_id = _person_id(scope) if scope.get("type") == "websocket" else None
        if user_id is None:
            return await self.inner(scope, receive, send)
        keeper: asyncio.Task[None] | None = None

        async def watched_send(message: dict[str, Any]) -> None:
            nonlocal keeper
            await send(message)
            if message.get("type") == "websocket.accept" and keeper is None:
                # Marked before the consumer goes on: its first read (the home numbers) counts its player.
                await _mark(user_id)
                keeper = asyncio.create_task(self._keep(user_id))

        try:
            return await self.inner(scope, receive, watched_send)
        finally:
            if keeper is not None:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper

    async def _keep(self, user_id: int) -> None:
        while True:
            await self.sleep(TOUCH_SECONDS)
            await _mark(user_id)


async def _mark(user_id: int) -> None:
    """:func:`touch` in a worker thread (a cache call: off the event loop, off the database thread)."""
    await sync_to_async(touch, thread_sensitive=False)(user_id)
