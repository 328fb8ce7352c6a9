"""The default cache (throttles, sockets-per-user counts): Redis on ``REDIS_URL``, else in-process."""

from __future__ import annotations

import os

from config.settings.environment import REDIS_URL

# Shared across processes in production (several Daphne processes must see one count); one process in the
# embedded default, so locmem is enough there. Short socket timeouts: a stalled Redis fails the cache call
# fast (callers treat a cache error as "no limit known") instead of hanging the request.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "gin"),
            # One pool per process, not one per asyncio context (each socket's): infra.redis_pool.
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0,
                        "pool_class": "infra.redis_pool.SharedConnectionPool"},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "gin"}}
