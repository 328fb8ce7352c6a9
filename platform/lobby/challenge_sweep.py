"""The server's clock for open and direct challenges: expiry, and the creators who left the lobby
(docs/lobby.md "Open challenges", "Direct challenges").

:func:`sweep_once` ends every open seek past its ``expires_at`` or whose creator left the lobby (their
``ws/lobby/`` sockets all gone longer than ``lobby.seeks.leave_seconds``), and every direct challenge past
its ``expires_at``. It is idempotent and safe to run in several processes at once (``seeks_sweep`` and
``challenges_sweep`` lock with SKIP LOCKED and re-check), so it is run by two drivers, as the server
moves are (``games.scheduling``):

- **In-process**: each Daphne process that served a lobby or notices socket runs it every
  :data:`SWEEP_SECONDS` on its event loop (the work in a thread). On the embedded default it must: its
  in-memory channel layer never leaves the process, so only Daphne's own sends reach the sockets.
- **Celery beat** (``lobby.tasks.sweep_challenges``, every 5 s: ``config.celery``): the safety net with
  nobody on the lobby page and for a Daphne that died. With the in-memory layer (a worker's sends reach
  no socket, and its cache is not Daphne's) it only ends what is overdue by
  :data:`WORKER_GRACE_SECONDS` and leaves presence alone.

Presence: each open ``ws/lobby/`` socket stamps its user's "last seen" time in the cache
(:func:`seen`, every :func:`seen_refresh_seconds`, and once more when it closes). A creator whose stamp
is older than ``leave_seconds`` (or missing) has left; a page reload (a few hundred ms without a socket)
therefore keeps the seek.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import datetime

import redis.exceptions
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.db import DatabaseError
from django.utils import timezone

from games import scheduling
from lobby import challenges, seeks

log = logging.getLogger(__name__)

SWEEP_SECONDS = 2.0
"""Period of the in-process sweep."""
WORKER_GRACE_SECONDS = 30.0
"""With the in-memory layer, beat's sweep ends only what is overdue by this much (Daphne is down)."""

_lock = threading.Lock()
_sweepers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def _seen_key(user_id: int) -> str:
    return f"lobby-seen:{user_id}"


def seen_refresh_seconds() -> float:
    """How often an open lobby socket stamps its user's presence (a third of the leave time)."""
    return max(0.5, seeks.leave_seconds() / 3)


def seen(user_id: int, *, at: float | None = None) -> None:
    """Stamp ``user_id`` as present on the lobby page at ``at`` (Unix time; default now)."""
    cache.set(_seen_key(user_id), time.time() if at is None else at,
              timeout=int(seeks.leave_seconds() * 6) + 60)


def creators_gone(*, now: datetime) -> set[int]:
    """The creators of open seeks (older than the leave time) last seen longer than
    ``seeks.leave_seconds()`` before ``now``, or never: their seeks end."""
    ids = seeks.open_creator_ids(now=now)
    if not ids:
        return set()
    stamps = cache.get_many([_seen_key(user_id) for user_id in ids])
    limit = now.timestamp() - seeks.leave_seconds()
    return {user_id for user_id in ids if float(stamps.get(_seen_key(user_id), 0.0)) < limit}


def sweep_once(*, now: datetime | None = None, grace_seconds: float = 0.0, presence: bool = True) -> int:
    """One sweep (module docstring); returns how many seeks and challenges it ended."""
    now = now or timezone.now()
    gone = creators_gone(now=now) if presence else None
    return (seeks.seeks_sweep(now=now, grace_seconds=grace_seconds, gone=gone)
            + challenges.challenges_sweep(now=now, grace_seconds=grace_seconds))


def beat_sweep(*, now: datetime | None = None) -> int:
    """Beat's sweep (module docstring)."""
    if scheduling.local_layer():
        return sweep_once(now=now, grace_seconds=WORKER_GRACE_SECONDS, presence=False)
    return sweep_once(now=now)


def socket_opened() -> None:
    """A lobby or notices socket opened (called on the consumer's event loop): make sure this loop runs
    the in-process sweep."""
    loop = asyncio.get_running_loop()
    with _lock:
        task = _sweepers.get(loop)
        if task is None or task.done():
            for old in [old for old in _sweepers if old.is_closed()]:
                del _sweepers[old]
            _sweepers[loop] = loop.create_task(_sweep_forever())
            _sweepers[loop].add_done_callback(_ended)


async def _sweep_forever() -> None:
    """:func:`sweep_once` every :data:`SWEEP_SECONDS`. An outage (database or Redis unreachable) is one
    WARNING line and the next round retries; any other error ends the loop with its traceback
    (:func:`_ended`), and the next socket that opens starts it again."""
    while True:
        try:
            await database_sync_to_async(sweep_once, thread_sensitive=False)()
        except (DatabaseError, ConnectionError, TimeoutError, redis.exceptions.ConnectionError,
                redis.exceptions.TimeoutError) as exc:
            log.warning("lobby sweep skipped: %s: %s", type(exc).__name__, exc)
        await asyncio.sleep(SWEEP_SECONDS)


def _ended(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("lobby sweep stopped", exc_info=exc)


def stop_all() -> None:
    """Cancel the in-process sweeps (tests, between cases)."""
    with _lock:
        for task in _sweepers.values():
            task.cancel()
        _sweepers.clear()
