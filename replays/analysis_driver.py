"""Where an analysis runs: a Celery worker, or the Daphne process itself (as ``games.scheduling`` does
for the server's moves, and for the same reason).

- **Celery** (production: the Redis channel layer reaches every Daphne process): :func:`start`
  enqueues ``replays.tasks.analyse_match``; the worker's progress reaches the page through Redis.
- **In-process** (:func:`in_process`: the embedded default's in-memory channel layer, whose messages
  never leave one process, and ``CELERY_TASK_ALWAYS_EAGER`` test servers): the run goes
  to a thread of Daphne's own event loop (learned when a replay page's analysis socket opens,
  :func:`socket_opened`), so its progress reaches that page's socket. Without a known loop (no page
  open: a form posted without JavaScript, a test, a management command) it runs right here, before the
  call returns.

Either way the run is ``replays.analysis_runs.analysis_run``, which claims its row: starting it twice is
harmless.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from channels.db import database_sync_to_async
from django.conf import settings

from games.scheduling import local_layer
from replays.analysis_runs import analysis_run
from replays.tasks import analyse_match

log = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()
_tasks: set[asyncio.Task[None]] = set()  # strong references while they run (the loop keeps weak ones)


def in_process() -> bool:
    """Whether analyses run in the Daphne process: ``GAMES_SERVER_MOVES_IN_PROCESS`` when set (tests),
    else only where a worker's progress could not reach the page (``games.scheduling.local_layer``).
    Unlike a server move (a few milliseconds), an analysis is seconds of CPU: in production it stays
    off the processes that hold the sockets."""
    explicit = getattr(settings, "GAMES_SERVER_MOVES_IN_PROCESS", None)
    return local_layer() if explicit is None else bool(explicit)


def socket_opened() -> None:
    """An analysis socket opened (called on the consumer's event loop): remember the loop for the
    in-process runs. Does nothing with the Celery driver."""
    if not in_process():
        return
    global _loop
    with _lock:
        _loop = asyncio.get_running_loop()


def _known_loop() -> asyncio.AbstractEventLoop | None:
    loop = _loop
    return None if loop is None or loop.is_closed() else loop


def start(analysis_id: int) -> None:
    """Run analysis ``analysis_id`` (see the module docstring); a failure to enqueue is logged, never
    raised (the row stays queued and asking again restarts it once it is stale)."""
    if not in_process():
        try:
            analyse_match.apply_async(kwargs={"analysis_id": analysis_id}, retry=False)
        except Exception:
            log.exception("analysis %s: could not enqueue its run", analysis_id)
        return
    loop = _known_loop()
    if loop is None:
        _run(analysis_id)
        return
    try:
        loop.call_soon_threadsafe(_spawn, loop, analysis_id)
    except RuntimeError:  # the loop closed meanwhile
        _run(analysis_id)


def _spawn(loop: asyncio.AbstractEventLoop, analysis_id: int) -> None:
    task = loop.create_task(_drive(analysis_id))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _drive(analysis_id: int) -> None:
    try:
        await database_sync_to_async(analysis_run, thread_sensitive=False)(analysis_id=analysis_id)
    except Exception:
        log.exception("analysis %s: run failed", analysis_id)


def _run(analysis_id: int) -> None:
    try:
        analysis_run(analysis_id=analysis_id)
    except Exception:
        log.exception("analysis %s: run failed", analysis_id)
