"""Writes racing on purpose: run callables in threads released together by one barrier."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

from games.services import GameError


def concurrently(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` in threads released together by one barrier; each one's result, or the exception it
    raised (for the caller's assertions to show). Each thread closes its database connection."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = calls[i]()
        except Exception as exc:  # surfaced by the caller's assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """:func:`concurrently`, with a ``GameError`` given as its code."""
    return [r.code if isinstance(r, GameError) else r for r in concurrently(calls)]
