"""Running the games' database work off the event loop, concurrently.

Channels' ``database_sync_to_async`` is thread-sensitive by default: every call of every socket then
queues behind ONE thread, so one match's write waits for all the others (issue 9: 88% busy at 45
actions/s). The services lock what they change (row lock on PostgreSQL, compare-and-set on SQLite)
and hold no thread-bound state, so they run in a pool instead: :func:`db_call`. Each pool thread keeps
its own persistent connection (``CONN_MAX_AGE``), so the pool size is also this process's number of
database connections: ``GAMES_DB_THREADS`` (setting; default 8 on PostgreSQL, 4 on SQLite, where
writers take turns on the file's one write lock anyway).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

from web.request_connections import POOL_THREAD_PREFIX

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def db_threads() -> int:
    """Size of the pool (= database connections of this process)."""
    configured = getattr(settings, "GAMES_DB_THREADS", None)
    if configured:
        return int(configured)
    return 4 if connection.vendor == "sqlite" else 8


def pool() -> ThreadPoolExecutor:
    """The process's database thread pool (created on first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=db_threads(), thread_name_prefix=POOL_THREAD_PREFIX)
        return _pool


def db_call(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as an awaitable run in the pool, closing the thread's connection when it is too old or
    broken before and after (``database_sync_to_async`` without the single thread)."""
    return database_sync_to_async(func, thread_sensitive=False, executor=pool())


class NoConnectionSweepPerMessage:
    """Mixin for a Channels consumer whose every database call runs through :func:`db_call` or
    ``database_sync_to_async`` (each closes its thread's old or broken connections before and after):
    its ``dispatch`` skips the ``aclose_old_connections()`` channels awaits before EVERY message (each
    frame, each group message). That call is a hop to asgiref's one thread-sensitive thread, where
    Django's synchronous views also run: every message of every socket queued behind them, for a sweep of
    that thread's connections, which this consumer never uses (issue 9: 3.4 per move in a 50-match
    ``scripts/loadtest``). Put it before the consumer base classes."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Call the handler of ``message["type"]``.

        :raises ValueError: no handler for that type (as channels' ``dispatch``)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
