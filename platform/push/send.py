"""The one after-commit path from a write to every socket: batching, one timeout, the right event loop
and a failure signal that nobody can miss.

``send_on_commit(messages)`` registers the send of ``[(group, message), ...]`` (in order, batched:
two Redis round trips for any number of groups, ``infra.channel_layer.group_send_many``) to run after
the current transaction commits (at once outside one) and returns an :class:`Outcome` the caller may
read after the commit. ``send_now`` sends from synchronous code; ``send`` from a coroutine.

Which event loop sends (the layer's connections belong to one loop):

- the in-memory layer (embedded profile): asgiref's, i.e. Daphne's own loop when the caller is a
  Daphne worker thread, the loop that owns the sockets' queues;
- a shared layer (Redis), called from a thread that a running loop of this process called through
  asgiref (a Daphne consumer's ``db_call``, the in-process driver of the server's moves): that loop,
  Daphne's, which holds the sockets and the layer's receive pump (:func:`_callers_loop`);
- a shared layer otherwise (a Celery worker, a script): one loop per process, on a daemon thread made
  lazily (again after a fork: a Celery prefork child), so every send of the process reuses the layer's
  connection pool.
  ``async_to_sync`` outside Daphne (a Celery worker, the simulation) ran each send on a new loop with a
  new Redis connection: about half of the rating task's CPU and 40% of the wall time of a bot-vs-bot move.

Failures. The write is committed before anything is sent, so no failure ever becomes the writer's
error; each one is:

- an **outage** (Redis unreachable, a send past :data:`PUSH_TIMEOUT`): one WARNING line, ``failed`` on
  the :class:`Outcome` (the table's consumer then sends the acting socket its state itself), and a
  :class:`Failure` recorded;
- anything else (a bug: a message no schema admits, an import error, a wrong argument): an ERROR line
  with the traceback, ``failed``, recorded, and raised to the caller (after a commit, Django's robust
  ``on_commit`` logs it once more and goes on).

Every failure goes to :data:`FAILURES` and to each callable of :data:`LISTENERS`: the test suite fails a
test in which a send could not be made, unless the test says it expects one (``tests/conftest.py``,
marker ``push_failure``), so a broken push can never hide in a log line again (a broad ``except`` once
turned an ImportError into a warning and no analysis progress reached a page).

In the embedded profile's Celery processes (``PUSH_FORWARD_URL`` set) the messages are posted to the
Daphne process instead, which sends them on the layer that holds the sockets (:mod:`push.forward`).

With the ``PUSH_CHECK`` setting on (the test suite), every message is checked before it is sent
(:func:`push.schemas.check`: a JSON round trip and the schema of its type).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import transaction

from infra import channel_layer
from push import forward, schemas
from web.socket_end import outage

log = logging.getLogger(__name__)

PUSH_TIMEOUT = 2.0
"""Seconds the sends of one call may take together before they are given up (a stalled Redis)."""

Messages = list[tuple[str, dict[str, Any]]]
"""``[(group, message), ...]``: sent in this order."""

T = TypeVar("T")


@dataclass(frozen=True)
class Failure:
    """One send that could not be made: the groups and message types, and the error."""

    groups: tuple[str, ...]
    types: tuple[str, ...]
    error: BaseException
    is_outage: bool


class Outcome:
    """What became of one call's sends: ``failed`` is set (in the sending thread, before the committing
    call returns when the send ran on commit) when they could not all be made."""

    __slots__ = ("failed",)

    def __init__(self) -> None:
        self.failed = False


FAILURES: collections.deque[Failure] = collections.deque(maxlen=1000)
"""The latest failures of this process (newest last)."""

LISTENERS: list[Callable[[Failure], None]] = []
"""Called with each failure, in the sending thread (the test suite's recorder)."""

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pid = 0


def _process_loop() -> asyncio.AbstractEventLoop:
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid():  # a forked child never reuses its parent's loop
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="push-loop", daemon=True).start()
            _loop, _pid = loop, os.getpid()
        return _loop


def _callers_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop that called this thread through asgiref's ``SyncToAsync`` (a Daphne
    consumer's ``db_call``, the in-process driver of the server's moves; this process, not a parent's),
    or None (a Celery worker, a script, a thread of its own).

    Why send there: it is the loop of the process's sockets and of the layer's receive pump, so a member
    in this process gets its copy straight into its buffer, and no third thread (the process loop's)
    wakes for each send. ``scripts/loadtest 50 --think 0`` (issue 23), three runs each, alternating:
    307-344 human actions per second against 243-297, ack p99 137-151 ms against 196-267 ms. The
    caller waits for the send as before."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or not loop.is_running() or loop is channel_layer.running_loop():
        return None
    return loop


def run_on_process_loop(coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
    """Run ``coroutine`` on this process's loop from synchronous code (never from a coroutine: it
    blocks) and return its result, waiting at most ``timeout`` seconds (then ``TimeoutError``; the
    coroutine should bound itself, e.g. with ``asyncio.wait_for``, so nothing is left running)."""
    return asyncio.run_coroutine_threadsafe(coroutine, _process_loop()).result(timeout)


def _check(messages: Messages) -> None:
    if getattr(settings, "PUSH_CHECK", False):
        for group, message in messages:
            schemas.check(group, message)


def _failed(messages: Messages, exc: BaseException, outcome: Outcome) -> None:
    outcome.failed = True
    failure = Failure(groups=tuple(dict.fromkeys(group for group, _ in messages)),
                      types=tuple(dict.fromkeys(str(m.get("type")) for _, m in messages)),
                      error=exc, is_outage=outage(exc) or isinstance(exc, TimeoutError))
    FAILURES.append(failure)
    if failure.is_outage:
        log.warning("push of %s to %s not sent: %s: %s", ", ".join(failure.types), ", ".join(failure.groups),
                    type(exc).__name__, exc)
    else:
        log.error("push of %s to %s failed", ", ".join(failure.types), ", ".join(failure.groups),
                  exc_info=(type(exc), exc, exc.__traceback__))
    for listener in list(LISTENERS):
        listener(failure)


async def _bounded(layer: Any, messages: Messages) -> None:
    await asyncio.wait_for(channel_layer.group_send_many(layer, messages), PUSH_TIMEOUT)


def send_now(messages: Iterable[tuple[str, dict[str, Any]]]) -> Outcome:
    """Send ``messages`` now from synchronous code, never from an event loop's thread (module docstring:
    which loop). Returns the :class:`Outcome`.

    :raises Exception: any failure but an outage (recorded and logged first: module docstring)."""
    return _send_now(list(messages), Outcome())


def _forward_url() -> str:
    """``PUSH_FORWARD_URL``: set in the embedded profile's Celery processes only (``push.forward``)."""
    return str(getattr(settings, "PUSH_FORWARD_URL", "") or "")


def _send_now(messages: Messages, outcome: Outcome) -> Outcome:
    if not messages:
        return outcome
    if _forward_url():
        try:
            _check(messages)
            forward.post(_forward_url(), settings.PUSH_FORWARD_TOKEN, messages, forward.TIMEOUT)
        except Exception as exc:
            _failed(messages, exc, outcome)
            if not outcome_is_outage(exc):
                raise
        return outcome
    layer = get_channel_layer()
    if layer is None:
        return outcome
    try:
        _check(messages)
        if isinstance(layer, InMemoryChannelLayer):
            async_to_sync(_bounded)(layer, messages)
        else:
            loop = _callers_loop()
            if loop is None:
                run_on_process_loop(_bounded(layer, messages), PUSH_TIMEOUT + 1.0)
            else:
                asyncio.run_coroutine_threadsafe(_bounded(layer, messages), loop).result(PUSH_TIMEOUT + 1.0)
    except Exception as exc:
        _failed(messages, exc, outcome)
        if not outcome_is_outage(exc):
            raise
    return outcome


async def send(messages: Iterable[tuple[str, dict[str, Any]]], layer: Any = None) -> Outcome:
    """Send ``messages`` now from a coroutine on ``layer`` (default: the default layer), on the
    caller's loop (a consumer's: Daphne's). Same failures as :func:`send_now`."""
    messages = list(messages)
    outcome = Outcome()
    if _forward_url() and layer is None:  # a Celery process of the embedded profile: post it (blocking I/O)
        return await asyncio.to_thread(_send_now, messages, outcome)
    layer = layer if layer is not None else get_channel_layer()
    if layer is None or not messages:
        return outcome
    try:
        _check(messages)
        await _bounded(layer, messages)
    except Exception as exc:
        _failed(messages, exc, outcome)
        if not outcome_is_outage(exc):
            raise
    return outcome


def outcome_is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` of a send is an outage (tolerated: logged and recorded) rather than a bug."""
    return outage(exc) or isinstance(exc, TimeoutError)


def send_on_commit(messages: Iterable[tuple[str, dict[str, Any]]] | Callable[[], Messages]) -> Outcome:
    """After the current transaction commits (at once outside one), :func:`send_now` ``messages``: a
    list, or a callable that builds it then (in the committing thread, after the commit: e.g. each
    seat's ``state``). Returns the :class:`Outcome`, set once the send has run."""
    outcome = Outcome()
    build = messages if callable(messages) else (lambda fixed=list(messages): fixed)

    def run() -> None:
        try:
            built = build()
        except Exception as exc:  # building is part of the send: the same signal
            _failed([], exc, outcome)
            raise
        _send_now(list(built), outcome)

    transaction.on_commit(run, robust=True)
    return outcome
