"""Close an HTTP request's database connections when the request ends (under ASGI: Daphne).

Why: Django's ASGI handler runs each request's synchronous code in a thread of its own
(``asgiref.sync.ThreadSensitiveContext``: a new thread per request), and each thread has its own
connection. With persistent connections (``CONN_MAX_AGE``, on for the live play's pool threads, issue 9)
Django keeps the connection open at the end of the request, but its thread is gone: nothing uses it again
and nothing closes it until the garbage collector happens to break the cycle holding it. 20 page views of
``/rankings/`` left 23 more idle PostgreSQL connections, and ``scripts/loadtest 200`` (a ``POST
/play/bot/`` per new match) filled PostgreSQL's 100 slots: the next requests got 503 ("sorry, too many
clients already"). Django's documentation says the same: persistent connections do not fit ASGI's
request threads.

So at ``request_finished`` (sent in the request's own thread) every connection the thread opened is
closed, except in a transaction (a test's, which Django's test case wraps around its requests) and in
the games' database pool threads (``games.db``, prefix ``gin-db``), whose connections are reused by design.
WebSocket consumers send no ``request_finished``.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db import connections

POOL_THREAD_PREFIX = "gin-db"
"""Names of ``games.db``'s pool threads (their connections persist: ``CONN_MAX_AGE``)."""


def close_request_connections(**kwargs: Any) -> None:
    """``request_finished`` receiver: close this thread's open connections (see the module docstring)."""
    if threading.current_thread().name.startswith(POOL_THREAD_PREFIX):
        return
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()
