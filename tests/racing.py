"""Writes racing on purpose: run callables in threads released together by one barrier."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

from games.services import GameError


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` in threads released together; each result, or the code of its ``GameError``."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = calls[i]()
        except GameError as exc:
            results[i] = exc.code
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results
