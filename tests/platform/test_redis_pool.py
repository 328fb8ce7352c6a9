"""``infra.redis_pool``: Django's Redis cache shares one connection pool per process, across the asyncio
contexts of the sockets (before: a pool, and an open Redis connection, per socket that touched the
cache: 766 idle connections after ``scripts/loadtest 500``). On the real Redis."""

from __future__ import annotations

import asyncio
import secrets

import redis
from asgiref.sync import sync_to_async
from django.core.cache import caches
from django.test import override_settings

from infra.redis_pool import SharedConnectionPool


def cache_settings(redis_url: str) -> dict[str, object]:
    return {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url,
        "KEY_PREFIX": f"gin-test-{secrets.token_hex(6)}",
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0,
                    "pool_class": "infra.redis_pool.SharedConnectionPool"},
    }}


def clients_of_this_process(redis_url: str) -> int:
    """Connections Redis has open whose client name marks them as this test's (named below)."""
    with redis.Redis.from_url(redis_url) as admin:
        return sum(1 for client in admin.client_list() if client.get("name") == "gin-test-pool")


def test_fifty_socket_contexts_use_one_pool_and_a_few_connections(redis_url: str) -> None:
    with override_settings(CACHES=cache_settings(redis_url)):

        async def one_socket(n: int) -> object:
            # each task has its own context, so its own cache instance (as each consumer has)
            def touch() -> object:
                cache = caches["default"]
                assert cache.add(f"slot-{n}", "owner", timeout=30)
                client = cache._cache.get_client(write=True)
                client.client_setname("gin-test-pool")
                return client.connection_pool

            return await sync_to_async(touch, thread_sensitive=False)()

        async def fifty() -> list[object]:
            return await asyncio.gather(*(asyncio.create_task(one_socket(n)) for n in range(50)))

        pools = asyncio.run(fifty())
        assert len({id(pool) for pool in pools}) == 1
        assert isinstance(pools[0], SharedConnectionPool)
        # at most one connection per thread that ran at once (asyncio's default executor: <= 32)
        assert 1 <= clients_of_this_process(redis_url) <= 32
        assert caches["default"].get("slot-49") == "owner"


def test_the_same_url_and_options_give_the_same_pool_and_other_options_another(redis_url: str) -> None:
    first = SharedConnectionPool.from_url(redis_url, socket_timeout=1.0)
    assert SharedConnectionPool.from_url(redis_url, socket_timeout=1.0) is first
    assert SharedConnectionPool.from_url(redis_url, socket_timeout=2.0) is not first
