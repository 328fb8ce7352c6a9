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

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

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
            _pool = ThreadPoolExecutor(max_workers=db_threads(), thread_name_prefix="gin-db")
        return _pool


def db_call(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as an awaitable run in the pool, closing the thread's connection when it is too old or
    broken before and after (``database_sync_to_async`` without the single thread)."""
    return database_sync_to_async(func, thread_sensitive=False, executor=pool())
