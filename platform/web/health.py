"""The health check behind ``/healthz`` (docs/api.md "Health"): each part the site needs, checked in
its own thread with a short timeout, so one that hangs is reported as such instead of hanging the check.

Parts, by profile:

- ``database``: ``SELECT 1`` on a new connection (PostgreSQL in production, the SQLite file embedded).
- ``redis`` (production, ``REDIS_URL``): ``PING``. Embedded: ``channel_layer``, a message sent to a new
  channel of the in-process layer and received back.
- ``broker``: Celery's broker connection and each of its queues declared (``settings.TASK_QUEUES``:
  ``realtime`` and ``background``, each consumed by its own worker pool), which answers its message count
  (Redis ``LLEN``, or a query on the SQLite broker's file): ``queues`` maps each queue to its count,
  ``messages`` is their sum. A long ``background`` queue is normal under analyses; a long ``realtime``
  one means moves and ratings wait.
- ``beat``: how long ago beat last sent a scheduled task: the latest ``last_run_at`` of the enabled
  ``django_celery_beat.PeriodicTask`` rows, which beat itself writes (a worker is not involved). Beat
  writes them every 3 minutes (Celery's ``sync_every``) and sends ``tournaments-advance`` every 5 s, so
  a running beat is never more than about 185 s behind; ``HEALTH_BEAT_MAX_AGE`` (default 300 s) past
  that, or no tick recorded at all, fails the part, except while beat is starting (:func:`check_beat`).

Each part answers ``{"ok": bool, "ms": float, ...}``; a failure adds ``error``: the exception's class
name or ``timeout`` (never its message, which may name hosts), or what is wrong (``stale``, ``no tick``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

TIMEOUT_SECONDS = 2.0
"""Longest wait for one part (they run at the same time, so for the whole check too)."""
BEAT_MAX_AGE_SECONDS = 300.0


def check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
        if row is None or row[0] != 1:
            return {"ok": False, "error": "unexpected answer"}
        return {"ok": True}
    finally:
        connection.close()  # this thread's own connection: it ends with the check


def check_redis() -> dict[str, Any]:
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
    )
    try:
        return {"ok": bool(client.ping())}
    finally:
        client.close()


def check_channel_layer() -> dict[str, Any]:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return {"ok": False, "error": "no channel layer"}

    async def round_trip() -> bool:
        name = await layer.new_channel()
        await layer.send(name, {"type": "health.ping"})
        message = await asyncio.wait_for(layer.receive(name), TIMEOUT_SECONDS)
        return bool(message.get("type") == "health.ping")

    return {"ok": asyncio.run(round_trip()), "backend": type(layer).__name__}


def check_broker() -> dict[str, Any]:
    # The site's Celery app (config.celery), found without importing the wiring above the apps: Celery's
    # Django fix-up makes it the default app of every thread, this check's own included.
    from celery import current_app

    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=TIMEOUT_SECONDS)  # type: ignore[arg-type]  # seconds, a float: celery-types says int
        channel = conn.default_channel
        try:
            # The ignore: a transport's channel has queue_declare; celery-types knows only the abstract one.
            queues = {name: int(channel.queue_declare(queue=name).message_count)  # type: ignore[attr-defined]
                      for name in settings.TASK_QUEUES}
        finally:
            # The embedded broker (kombu's SQLAlchemy transport) reads in a session it never ends, which
            # keeps a pooled database connection checked out: 7 of the pool's 15 after 20 health checks,
            # and a later caller timed out waiting for one (a full embedded test run).
            session = getattr(channel, "_session", None)
            if session is not None:
                session.close()
        return {"ok": True, "messages": sum(queues.values()), "queues": queues}


def check_beat() -> dict[str, Any]:
    """Beat's part: ``state`` ``ok`` (a tick within ``HEALTH_BEAT_MAX_AGE``), ``starting`` or ``fail``.

    Beat writes ``last_run_at`` only when it syncs, every 3 minutes, and its first sync comes that long
    after it starts: a freshly started beat has no tick (or only its previous run's stale one) for
    minutes. But at start it saves every entry of its schedule (``update_or_create``: ``date_changed``
    is then beat's start; each later sync saves the rows again). So while the newest ``date_changed`` is
    younger than the limit and no fresh tick exists, beat is ``starting`` (ok, with
    ``started_seconds_ago``); past the limit without a fresh tick it has failed. (An edit of a periodic
    task in the admin also sets ``date_changed``: a beat that died before such an edit shows
    ``starting`` for at most one more limit, then ``fail``.)
    """
    from django.db.models import Max
    from django_celery_beat.models import PeriodicTask

    try:
        latest = PeriodicTask.objects.filter(enabled=True).aggregate(
            tick=Max("last_run_at"), changed=Max("date_changed")
        )
    finally:
        connection.close()
    last, changed = latest["tick"], latest["changed"]
    now = timezone.now()
    limit = float(getattr(settings, "HEALTH_BEAT_MAX_AGE", BEAT_MAX_AGE_SECONDS))
    result: dict[str, Any] = {"last_tick": last.isoformat() if last is not None else None}
    age = (now - last).total_seconds() if last is not None else None
    if age is not None:
        result["age_seconds"] = round(age, 1)
    if age is not None and age <= limit:
        return {"ok": True, "state": "ok", **result}
    started = (now - changed).total_seconds() if changed is not None else None
    if started is not None and started <= limit:
        return {"ok": True, "state": "starting", "started_seconds_ago": round(started, 1), **result}
    stale = f"stale: no tick for more than {timedelta(seconds=int(limit))}"
    error = "no tick recorded" if last is None else stale
    return {"ok": False, "state": "fail", "error": error, **result}


def parts() -> dict[str, Callable[[], dict[str, Any]]]:
    """The checks of this profile, by part name."""
    checks: dict[str, Callable[[], dict[str, Any]]] = {"database": check_database}
    if settings.REDIS_URL:
        checks["redis"] = check_redis
    else:
        checks["channel_layer"] = check_channel_layer
    checks["broker"] = check_broker
    checks["beat"] = check_beat
    return checks


def _timed(check: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        result = check()
    except Exception as exc:
        result = {"ok": False, "error": type(exc).__name__}
    result["ms"] = round((time.perf_counter() - start) * 1000, 1)
    return result


def health(checks: dict[str, Callable[[], dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Run every part at once: ``{"status": "ok" | "fail", "profile", "failing": [names], "parts":
    {name: result}}``. A part still running after :data:`TIMEOUT_SECONDS` is ``{"ok": false, "error":
    "timeout"}`` (its thread is left to finish on its own)."""
    checks = parts() if checks is None else checks
    pool = ThreadPoolExecutor(max_workers=len(checks), thread_name_prefix="gin-health")
    try:
        futures = {name: pool.submit(_timed, check) for name, check in checks.items()}
        deadline = time.monotonic() + TIMEOUT_SECONDS
        results: dict[str, dict[str, Any]] = {}
        for name, future in futures.items():
            try:
                results[name] = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                results[name] = {"ok": False, "error": "timeout", "ms": TIMEOUT_SECONDS * 1000}
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    failing = [name for name, result in results.items() if not result["ok"]]
    return {
        "status": "fail" if failing else "ok",
        "profile": settings.PROFILE,
        "failing": failing,
        "parts": results,
    }
