"""One Redis connection pool per process for Django's cache, whatever the asyncio context (issue 9).

Why: Django keeps a cache instance per asyncio context (``django.core.cache.caches`` is an
``asgiref.local.Local``), and each ``RedisCache`` instance builds its own ``redis.ConnectionPool``.
Every WebSocket consumer runs in its own context, so every socket that touched the cache (its slot in
``games.ratelimit``: ``cache.add`` at connect, ``delete`` at disconnect) opened a new Redis connection
(a TCP connect and redis-py's handshake on the socket's first cache call) and left it open until the
garbage collector freed the context: after ``scripts/loadtest 500`` the two Daphne processes held 766
idle Redis connections.

:class:`SharedConnectionPool` (the cache's ``OPTIONS["pool_class"]``) returns the same pool for the same
URL and options in a process; redis-py's pool is thread-safe, and a forked child (a Celery prefork
worker) builds its own (the key holds the process id).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis


class SharedConnectionPool(redis.ConnectionPool):
    """``redis.ConnectionPool`` whose :meth:`from_url` returns one pool per (process, URL, options)."""

    _shared: dict[tuple[Any, ...], redis.ConnectionPool] = {}
    _shared_lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        """The process's pool for ``url`` with ``kwargs`` (built by redis-py's own ``from_url`` the first
        time). Options must be hashable (Django passes numbers, strings and classes)."""
        key = (os.getpid(), url, tuple(sorted(kwargs.items())))
        with cls._shared_lock:
            pool = cls._shared.get(key)
            if pool is None:
                pool = cls._shared[key] = super().from_url(url, **kwargs)
            return pool
