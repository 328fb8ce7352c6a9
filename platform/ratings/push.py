"""Send channel-layer messages from synchronous code (the rating task) over one event loop per process.

``async_to_sync(layer.group_send)`` outside an event loop runs each call on a NEW loop, and
channels-redis keeps its Redis connections per loop: every push opened (and dropped) a Redis connection,
about half of the rating task's CPU time. Here each process (each Celery prefork child: the loop is
made lazily and again after a fork) keeps one daemon thread running one loop, so the layer's
connection pool is reused by every push. :func:`run_on_process_loop` runs any coroutine there (the
games' after-commit broadcast of a move uses it with a shared layer).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from channels.layers import get_channel_layer

PUSH_TIMEOUT = 5.0
"""Seconds one push may take before the caller stops waiting (it raises ``TimeoutError``)."""

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pid = 0

T = TypeVar("T")


def _process_loop() -> asyncio.AbstractEventLoop:
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid():  # a forked child never reuses its parent's loop
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="ratings-push", daemon=True).start()
            _loop, _pid = loop, os.getpid()
        return _loop


def run_on_process_loop(coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
    """Run ``coroutine`` on this process's loop from synchronous code (never from a coroutine: it
    blocks) and return its result, waiting at most ``timeout`` seconds (then ``TimeoutError``; the
    coroutine should bound itself, e.g. with ``asyncio.wait_for``, so nothing is left running)."""
    return asyncio.run_coroutine_threadsafe(coroutine, _process_loop()).result(timeout)


def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """``group_send`` each ``(group, message)`` on the default channel layer, all at once on the loop
    (a batch of ratings pushes hundreds), waiting at most :data:`PUSH_TIMEOUT` seconds in all; the first
    error of the layer is raised to the caller after every send has been tried."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send_all() -> None:
        results = await asyncio.gather(*(layer.group_send(group, message) for group, message in messages),
                                       return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    run_on_process_loop(send_all(), PUSH_TIMEOUT)
