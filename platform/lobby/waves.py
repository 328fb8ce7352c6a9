"""Where and when pairing waves run (docs/lobby.md "Pairing").

A loop on the event loop of each Daphne process that serves a pool socket runs
``lobby.pools.run_waves`` every ``LOBBY_WAVE_SECONDS`` (default 1 s), in a thread of the default
executor (never on the event loop). It starts with the first pool socket of the process
(:func:`ensure_running`, called by the pool consumer's ``connect``), as ``games.scheduling``'s in-process
driver learns its loop from the first table opened, and for the same reason: on the embedded default the
channel layer is in memory inside Daphne, so only Daphne can tell a waiting socket it was paired (a
Celery beat task's send would reach no socket). A wave is needed only while someone waits, and nobody
waits without a pool socket open, which started the loop in its process.

Exactly one runner per pool per wave: with several Daphne processes (production) every process runs the
loop, and each pool's wave takes the pool's row lock with ``SKIP LOCKED`` (``lobby.pools.run_wave``), so
a second process finds it taken and skips that pool; the decisions are written in one transaction, and
the ``paired`` messages cross processes through Redis. A pool whose wave any process ran less than
:data:`MIN_GAP_SECONDS` ago is skipped too (``Pool.last_wave_at``), so however many processes run the
loop, a pool gets at most four waves a second. A Daphne that dies takes its loop with it; the
other processes' loops go on (and a restarted one starts again with its first pool socket).

Tests call ``lobby.pools.run_wave(pool_id=..., now=...)`` directly with an injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError

from lobby import pools
from web.socket_end import outage

log = logging.getLogger(__name__)

WAVE_SECONDS = 1.0
"""Default of ``LOBBY_WAVE_SECONDS``: seconds between two waves (the issue: every 1-2 s)."""

MIN_GAP_SECONDS = 0.25
"""Least seconds between two waves of this process's loop, however often it is woken (:func:`wake`)."""

_lock = threading.Lock()
_wake: asyncio.Event | None = None
_task: asyncio.Task[None] | None = None
_loop: asyncio.AbstractEventLoop | None = None
waves_run = 0
"""Waves loops of this process completed (``/healthz``-style checks and tests)."""


def wave_seconds() -> float:
    """``LOBBY_WAVE_SECONDS`` (seconds), else :data:`WAVE_SECONDS`."""
    return float(getattr(settings, "LOBBY_WAVE_SECONDS", WAVE_SECONDS))


def ensure_running() -> bool:
    """Start this process's wave loop on the running event loop unless it runs already (call from a
    coroutine). True when this call started it."""
    global _task, _loop, _wake
    loop = asyncio.get_running_loop()
    with _lock:
        if _task is not None and not _task.done() and _loop is loop:
            return False
        _loop = loop
        _wake = asyncio.Event()
        _task = loop.create_task(_waves_forever(_wake))
        _task.add_done_callback(_ended)
        return True


def wake() -> None:
    """Run the next wave now rather than at the end of the period (a player joined: a partner may be
    waiting), though not sooner than :data:`MIN_GAP_SECONDS` after the last one. Call from the loop."""
    if _wake is not None and _loop is asyncio.get_running_loop():
        _wake.set()


def ensure_running_from_thread() -> bool:
    """From a synchronous view served by Daphne (a BOT account's ``pool/<slug>/join/`` over HTTP, which
    has no pool socket to start the loop): start this process's wave loop on Daphne's event loop unless it
    runs, and wake it. The event loop is the one ``asgiref`` ran this view's thread from; a view served
    without one (WSGI, tests' client) starts nothing and returns False (then a pool socket, or a test
    calling ``lobby.pools.run_wave``, drives the waves)."""
    from asgiref.sync import SyncToAsync

    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid() or not loop.is_running():
        return False

    def start() -> None:
        if not ensure_running():
            wake()

    loop.call_soon_threadsafe(start)
    return True


def running() -> bool:
    """Whether this process's wave loop is running."""
    return _task is not None and not _task.done()


async def stop() -> None:
    """Cancel the loop and wait for it (tests)."""
    global _task
    task, _task = _task, None
    if task is not None and not task.done():
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def _ended(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        # A bug, not an outage: logged with its traceback; the next pool socket starts the loop again.
        log.error("pool wave loop ended", exc_info=task.exception())


async def _waves_forever(woken: asyncio.Event) -> None:
    global waves_run
    while True:
        woken.clear()
        try:
            await database_sync_to_async(pools.run_waves, thread_sensitive=False)(
                min_gap=MIN_GAP_SECONDS)
        except Exception as exc:  # narrowed at once: anything but an outage is re-raised (a bug)
            if not (outage(exc) or isinstance(exc, (DatabaseError, TimeoutError))):
                raise
            # PostgreSQL or Redis unreachable, a send timed out, or a wave's transaction failed (e.g. a
            # deadlock victim): the next wave retries; the waiting sockets notice nothing
            log.warning("pool waves failed: %s: %s", type(exc).__name__, exc)
        waves_run += 1
        period = wave_seconds()
        await asyncio.sleep(min(MIN_GAP_SECONDS, period))
        with contextlib.suppress(TimeoutError):  # the period ended: the regular wave
            await asyncio.wait_for(woken.wait(), max(0.0, period - MIN_GAP_SECONDS))
