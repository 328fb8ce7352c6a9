"""Where and when the server's own moves run: a bot's move, and the automatic move at a turn deadline.

Every write that leaves such a move pending stores its due time in ``Match.server_move_at`` (the
decision: ``games.services``) and calls :func:`schedule_on_commit`; after the commit the driver wakes up
at that time and calls ``services.match_play_server_moves``, which plays every move that is due (a
whole match between two house bots at engine speed). Nothing here depends on a table being open, and
racing drivers are harmless: each move is a compare-and-set on the match's ``last_seq``.

This module imports neither the services nor the tasks: they call it (``schedule_on_commit``,
``schedule``), and what it runs in turn (the services' driver and sweeps, the Celery task) is a
:class:`Driver` that ``games.apps`` connects once per process (:func:`connect`, ``games.tasks.DRIVER``).

Two drivers, chosen by :func:`in_process` (docs/protocol.md "Server moves"):

- **In-process** (the default, both profiles): the Daphne process that made the write runs the next
  move itself: a timer on its event loop, then the service in a thread of the default executor (never
  on the event loop, never on the threads that serve the sockets' database calls). In the embedded
  default it must: its in-memory channel layer never leaves the process, so a worker's broadcast would
  reach no table. In production it is the fast path: a bot's reply starts the moment the player's
  write commits, with no broker round trip and no task overhead (issue 9, ``scripts/loadtest 50
  --think 0``: 113-123 human actions/s with the Celery driver, 137-154 with this one). The loop is
  learned from the first table opened (:func:`table_opened`), which also picks up a move left pending
  across a restart; an in-process sweep then runs every ``SWEEP_SECONDS`` in every Daphne process.
- **Celery** (``GAMES_SERVER_MOVES_IN_PROCESS=0``, production only): the task
  ``games.tasks.play_server_moves`` is enqueued with a countdown until the due time; a worker runs it
  and its broadcast reaches the Daphne processes through Redis.

One exception in production: the moves of a match that :func:`heavy` calls costly (a level-5 bot,
which plays out sampled worlds: p90 50 ms and up to 101 ms of CPU per decision by
``python -m engine.tools.botbench --level 5 --against 3 --matches 4 --seed 1``, against 0.05 ms for level 3;
or two bots, a whole match at engine speed) go to the Celery workers, so they never hold a socket
process's GIL for that long. In the embedded default they stay in Daphne (nowhere else reaches a table).

Either way Celery beat's sweep (``games.tasks.sweep_server_moves``) is the safety net for lost messages
and for the moves of a Daphne process that died (its timers die with it): see :func:`local_layer`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

log = logging.getLogger(__name__)

SWEEP_SECONDS = 5.0
"""Period of both sweeps (beat's, and the in-process one)."""
ABSENT_SWEEP_SECONDS = 30.0
"""Period of the sweep that ends matches between people whose players are gone
(the driver's ``sweep_absent``; beat's task, and the in-process sweep on the in-memory layer)."""



@dataclass(frozen=True, slots=True)
class Driver:
    """What the timers and sweeps of this module run (``games.tasks.DRIVER``)."""

    play: Callable[[int, int | None], object]
    """Play the due moves of match ``match_id`` scheduled at ``seq`` (None: whatever its seq is then):
    ``services.match_play_server_moves``."""
    enqueue: Callable[[int, int | None, float], object]
    """Have a worker do ``play`` for (``match_id``, ``seq``) after a delay in seconds: the Celery task
    ``games.tasks.play_server_moves``."""
    sweep: Callable[[float, bool | None], object]
    """Drive every match overdue by ``grace_seconds`` (``heavy``: which ones, None: all):
    ``services.match_sweep_server_moves``."""
    sweep_absent: Callable[[], object]
    """End the matches whose players are gone: ``services.match_sweep_absent``."""


_driver: Driver | None = None


def connect(driver: Driver) -> None:
    """Make ``driver`` what this process's timers and sweeps run (``GamesConfig.ready``)."""
    global _driver
    _driver = driver


def _connected() -> Driver:
    if _driver is None:
        raise RuntimeError("games.scheduling has no driver: GamesConfig.ready connects games.tasks.DRIVER")
    return _driver


_local = threading.local()
_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()
_sweeper: asyncio.Task[None] | None = None
_timers: set[threading.Timer] = set()
_armed: set[tuple[int, int | None]] = set()  # (match, seq) with a timer on the loop; loop thread only


def in_process() -> bool:
    """Whether server moves run inside the Daphne process (see the module docstring): the setting
    ``GAMES_SERVER_MOVES_IN_PROCESS`` when set, else yes."""
    return by_daphne(is_heavy=False)


HEAVY_BOT_LEVEL = 5
"""Bot levels from this one up are :func:`heavy` (see the module docstring)."""


def heavy(bot_level: int | None, bot_seats: list[int] | None) -> bool:
    """Whether a match's server moves cost too much CPU for a socket process (module docstring):
    ``bot_level`` >= :data:`HEAVY_BOT_LEVEL`, or two bot seats (``Match.bot_level``, ``Match.bot_seats``)."""
    return len(bot_seats or []) >= 2 or (bot_level or 0) >= HEAVY_BOT_LEVEL


def by_daphne(*, is_heavy: bool = False) -> bool:
    """Whether this match's next server move runs in the Daphne process, given whether it is
    :func:`heavy`: the setting ``GAMES_SERVER_MOVES_IN_PROCESS`` when set (all moves one way; tests),
    else yes, except heavy moves wherever a worker's broadcast reaches a table (not :func:`local_layer`)."""
    explicit = getattr(settings, "GAMES_SERVER_MOVES_IN_PROCESS", None)
    if explicit is not None:
        return bool(explicit)
    return not is_heavy or local_layer()


def local_layer() -> bool:
    """Whether a broadcast made in a worker process never reaches a socket: the in-memory channel
    layer (the embedded default) or ``CELERY_TASK_ALWAYS_EAGER``. Then only Daphne may make the moves
    (a worker's sweep waits ``games.tasks.IN_PROCESS_SWEEP_GRACE_SECONDS`` before it steps in, for a
    Daphne that is down); with Redis a worker's move is seen everywhere, so beat's sweep takes a move
    over after ``games.tasks.DAPHNE_TAKEOVER_GRACE_SECONDS``."""
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return True
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return bool(backend.endswith("InMemoryChannelLayer"))


@contextlib.contextmanager
def driving() -> Iterator[None]:
    """While active (in this thread), writes do not schedule their next server move on commit: the
    driver that made them goes on playing, and schedules what is left itself."""
    before = getattr(_local, "driving", False)
    _local.driving = True
    try:
        yield
    finally:
        _local.driving = before


@contextlib.contextmanager
def no_timers() -> Iterator[None]:
    """While active (in this thread), :func:`schedule` starts no in-process timer thread: for the
    embedded worker's sweep, whose moves no socket would hear about (Daphne takes over when it runs)."""
    before = getattr(_local, "no_timers", False)
    _local.no_timers = True
    try:
        yield
    finally:
        _local.no_timers = before


def schedule_on_commit(match_id: int, seq: int, due_at: datetime, *, is_heavy: bool = False) -> None:
    """After the current transaction commits, drive match ``match_id`` (at ``seq``) at ``due_at``
    (``is_heavy``: see :func:`heavy`).

    Does nothing inside :func:`driving`. A failure to enqueue is logged, never raised: the write is
    committed, and the sweep will find the move.
    """
    if getattr(_local, "driving", False):
        return
    transaction.on_commit(lambda: schedule(match_id, seq, due_at, is_heavy=is_heavy), robust=True)


def schedule(match_id: int, seq: int | None, due_at: datetime, *, is_heavy: bool = False) -> None:
    """Drive match ``match_id`` at ``due_at`` (now if past): the driver's ``play``
    (``services.match_play_server_moves``) with ``expected_seq=seq`` (None: whatever the match's seq is
    then); by a worker (the driver's ``enqueue``) when not :func:`by_daphne`."""
    delay = max(0.0, (due_at - timezone.now()).total_seconds())
    if not by_daphne(is_heavy=is_heavy):
        _connected().enqueue(match_id, seq, delay)
        return
    loop = _running_loop()
    if loop is None:
        # No table was opened in this process yet (a view's write, a management command, a test): a
        # due move runs right here (between two bots: the whole match, which the driver plays in one
        # loop, so eager runs never recurse), a later one (or the driver's own follow-up) on a timer
        # thread. A worker's sweep (no_timers) leaves follow-ups to Daphne and the next sweep.
        if getattr(_local, "no_timers", False):
            return
        if delay <= 0 and not getattr(_local, "driving", False):
            _run(match_id, seq)
        else:
            timer = threading.Timer(delay, _run_in_thread, args=(match_id, seq))
            timer.daemon = True
            with _loop_lock:
                _timers.add(timer)
            timer.start()
        return
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
        loop.call_soon_threadsafe(_arm, loop, delay, match_id, seq)


def _run(match_id: int, seq: int | None) -> None:
    try:
        _connected().play(match_id, seq)
    except Exception:
        log.exception("match %s: server move failed", match_id)


def _run_in_thread(match_id: int, seq: int | None) -> None:
    try:
        _run(match_id, seq)
    finally:
        connections.close_all()  # this thread's own connections
        with _loop_lock:
            _timers.discard(threading.current_thread())


def cancel_timers() -> None:
    """Cancel the timer threads not started yet (tests, between cases)."""
    with _loop_lock:
        for timer in _timers:
            timer.cancel()
        _timers.clear()


def table_opened(match: Any) -> None:
    """A player's socket opened ``match`` (called from the consumer's event loop): learn the loop for
    the in-process driver, start its sweep, and drive the match's pending move (one left pending across
    a restart). Does nothing with the Celery driver."""
    if not in_process():
        return
    loop = asyncio.get_running_loop()
    global _loop, _sweeper
    with _loop_lock:
        if _loop is not loop:
            _loop = loop
            _sweeper = None
            _armed.clear()
        if _sweeper is None or _sweeper.done():
            _sweeper = loop.create_task(_sweep_forever())
    deferred = match.get_deferred_fields()
    if not {"bot_level", "bot_seats"} & deferred and not by_daphne(is_heavy=heavy(match.bot_level,
                                                                                 match.bot_seats)):
        return  # a worker's (its task is queued; beat's sweep re-drives it if lost)
    if {"status", "server_move_at", "last_seq"} & deferred:
        _arm(loop, 0.0, match.pk, None)  # the driver reads the row itself
    elif match.status == "active" and match.server_move_at is not None:
        delay = max(0.0, (match.server_move_at - timezone.now()).total_seconds())
        _arm(loop, delay, match.pk, match.last_seq)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    loop = _loop
    if loop is None or loop.is_closed():
        return None
    return loop


def _arm(loop: asyncio.AbstractEventLoop, delay: float, match_id: int, seq: int | None) -> None:
    """On ``loop``: start :func:`_drive` after ``delay`` seconds (once per match and seq: a storm of
    reconnects arms one timer, not one per socket)."""
    key = (match_id, seq)
    if seq is not None and key in _armed:
        return
    _armed.add(key)
    loop.call_later(delay, lambda: loop.create_task(_drive(match_id, seq)))


async def _drive(match_id: int, seq: int | None) -> None:
    _armed.discard((match_id, seq))
    try:
        await database_sync_to_async(_connected().play, thread_sensitive=False)(match_id, seq)
    except Exception:
        log.exception("match %s: server move failed", match_id)


async def _sweep_forever() -> None:
    driver = _connected()
    absent_every = max(1, round(ABSENT_SWEEP_SECONDS / SWEEP_SECONDS))
    rounds = 0
    while True:
        try:
            await database_sync_to_async(driver.sweep, thread_sensitive=False)(
                1.0, None if by_daphne(is_heavy=True) else False,
            )
        except Exception:
            log.exception("in-process server-move sweep failed")
        rounds += 1
        # The in-memory layer (embedded default): only this process's broadcast reaches its tables, so
        # Daphne ends the abandoned matches between people itself (beat's worker steps in later). With
        # Redis beat's task alone does it (once, not once per Daphne process).
        if local_layer() and rounds % absent_every == 0:
            try:
                await database_sync_to_async(driver.sweep_absent, thread_sensitive=False)()
            except Exception:
                log.exception("in-process absent-match sweep failed")
        await asyncio.sleep(SWEEP_SECONDS)
