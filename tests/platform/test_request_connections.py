"""``web.request_connections``: an HTTP request's thread does not leave its database connection open.

Under Daphne each request runs in a new thread with its own connection; before this receiver, 20 page
views left 23 more idle PostgreSQL connections and ``scripts/loadtest 200`` ran PostgreSQL out of its
100 slots (503 "too many clients already")."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.signals import request_finished
from django.db import connection, transaction

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(name: str, body: Any) -> Any:
    """Run ``body()`` in a new thread called ``name`` (as Daphne runs a request) and return its result."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = body()
        finally:
            connection.close()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    thread.join(30)
    return out["value"]


def a_request_in_this_thread() -> tuple[bool, bool]:
    """Query, finish the request; return (connection open before, open after)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    before = connection.connection is not None
    request_finished.send(sender=None)
    return before, connection.connection is not None


def test_a_request_thread_closes_its_connection_when_the_request_ends():
    assert in_thread("ThreadPoolExecutor-7_0", a_request_in_this_thread) == (True, False)


def test_a_games_pool_thread_keeps_its_persistent_connection():
    assert in_thread("gin-db_3", a_request_in_this_thread) == (True, True)


def test_a_connection_inside_a_transaction_is_left_open():
    def inside() -> tuple[bool, bool]:
        with transaction.atomic():
            return a_request_in_this_thread()

    assert in_thread("ThreadPoolExecutor-7_1", inside) == (True, True)


def test_the_pool_threads_carry_the_prefix_the_receiver_spares():
    from games.db import pool

    assert pool().submit(lambda: threading.current_thread().name).result(10).startswith("gin-db")
