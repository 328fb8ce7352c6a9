"""``/healthz``: each part of the profile checked, 200 or 503 naming what fails; never limited; no secrets."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

# The parts run in their own threads (own connections): they see committed rows only.
pytestmark = pytest.mark.django_db(transaction=True)


def beat_ticked(seconds_ago: float) -> None:
    """A beat task as beat leaves it: sent ``seconds_ago`` seconds ago."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every, _ = IntervalSchedule.objects.get_or_create(every=5, period=IntervalSchedule.SECONDS)
    at = timezone.now() - dt.timedelta(seconds=seconds_ago)
    PeriodicTask.objects.update_or_create(
        name="tournaments-advance",
        defaults={"task": "tournaments.tasks.advance", "interval": every, "last_run_at": at},
    )
    # Beat's sync saves the whole row, so date_changed (auto_now) is the tick's time too (update(): as is).
    PeriodicTask.objects.filter(name="tournaments-advance").update(date_changed=at)


def beat_installed(seconds_ago: float) -> None:
    """Beat's schedule as beat leaves it when it starts: each entry saved (date_changed, beat's start),
    no last_run_at until its first sync, minutes later."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every, _ = IntervalSchedule.objects.get_or_create(every=5, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name="tournaments-advance",
        defaults={"task": "tournaments.tasks.advance", "interval": every, "last_run_at": None},
    )
    PeriodicTask.objects.filter(name="tournaments-advance").update(
        date_changed=timezone.now() - dt.timedelta(seconds=seconds_ago)
    )


def health(client: Client, status: int) -> dict[str, Any]:
    response = client.get("/healthz")
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]
    data: dict[str, Any] = response.json()
    return data


def test_embedded_profile_all_parts_ok(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""
    beat_ticked(12)
    data = health(client, 200)
    assert (data["status"], data["profile"], data["failing"]) == ("ok", settings.PROFILE, [])
    parts = data["parts"]
    assert list(parts) == ["database", "channel_layer", "broker", "beat"]
    assert all(part["ok"] is True and part["ms"] >= 0 for part in parts.values())
    from channels.layers import get_channel_layer

    # The in-process layer (with DATABASE_URL set, the settings' Redis layer: only REDIS_URL is cleared here)
    assert parts["channel_layer"]["backend"] == type(get_channel_layer()).__name__
    assert isinstance(parts["broker"]["messages"], int)
    assert 12 <= parts["beat"]["age_seconds"] < 60
    assert client.head("/healthz").status_code == 200


def test_beat_never_ticked_or_stale(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""
    data = health(client, 503)
    assert data["failing"] == ["beat"] and data["parts"]["beat"]["error"] == "no tick recorded"
    beat_ticked(301)
    data = health(client, 503)
    assert data["failing"] == ["beat"] and data["parts"]["beat"]["error"].startswith("stale")
    settings.HEALTH_BEAT_MAX_AGE = 600
    assert health(client, 200)["status"] == "ok"


def test_beat_just_started_is_starting_not_failing(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""
    beat_installed(20)  # beat started 20 s ago: its schedule is saved, no tick written yet
    data = health(client, 200)
    beat = data["parts"]["beat"]
    assert (data["status"], beat["ok"], beat["state"], beat["last_tick"]) == ("ok", True, "starting", None)
    assert 20 <= beat["started_seconds_ago"] < 60
    beat_installed(301)  # started more than HEALTH_BEAT_MAX_AGE ago and still no tick: it is not running
    data = health(client, 503)
    assert data["parts"]["beat"]["error"] == "no tick recorded" and data["parts"]["beat"]["state"] == "fail"
    beat_ticked(400)
    beat_installed(10)  # restarted after a stale tick: starting again
    assert health(client, 200)["parts"]["beat"]["state"] == "starting"


def test_a_failing_check_is_one_warning_line(client: Client, settings: Any, caplog: Any) -> None:
    import logging

    settings.REDIS_URL = ""
    health(client, 503)  # no beat at all
    logged = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert logged == [("web.views", "WARNING", "healthz: 503, failing: beat (no tick recorded)")]


def test_a_failing_or_hanging_part_is_named(client: Client, settings: Any, monkeypatch: Any) -> None:
    import threading

    from web import health as checks

    settings.REDIS_URL = ""
    beat_ticked(1)
    released = threading.Event()

    def broken() -> dict[str, Any]:
        raise ConnectionRefusedError("connecting to secret-host:5672 with password hunter2")

    def stuck() -> dict[str, Any]:
        released.wait(60)  # hangs until the test is done: far past any deadline
        return {"ok": True}

    # The database part answers at once here: the real one, under a busy 2-core machine, once took
    # longer than a short deadline and was named too (CI). This test is about the other two.
    monkeypatch.setattr(checks, "check_database", lambda: {"ok": True})
    monkeypatch.setattr(checks, "check_broker", broken)
    monkeypatch.setattr(checks, "check_channel_layer", stuck)
    monkeypatch.setattr(checks, "TIMEOUT_SECONDS", 3.0)
    started = time.monotonic()
    try:
        response = client.get("/healthz")
        assert time.monotonic() - started < 30  # the stuck part (60 s) is not waited for
    finally:
        released.set()
    data = response.json()
    assert response.status_code == 503 and data["status"] == "fail"
    assert data["failing"] == ["channel_layer", "broker"]
    assert data["parts"]["broker"] == {
        "ok": False,
        "error": "ConnectionRefusedError",
        "ms": data["parts"]["broker"]["ms"],
    }
    assert data["parts"]["channel_layer"]["error"] == "timeout"
    assert "secret-host" not in response.content.decode() and "hunter2" not in response.content.decode()


def test_production_parts_ping_redis(client: Client, settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url
    beat_ticked(1)
    data = health(client, 200)
    assert (
        list(data["parts"]) == ["database", "redis", "broker", "beat"]
        and data["parts"]["redis"]["ok"] is True
    )
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    data = health(client, 503)
    assert data["failing"] == ["redis"] and data["parts"]["redis"]["error"] == "ConnectionError"


def test_never_limited_and_no_secrets(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""
    settings.API_ANON_RATE = "1/min"
    beat_ticked(1)
    for _ in range(5):
        response = client.get("/healthz")
        assert response.status_code == 200
    text = response.content.decode()
    assert settings.SECRET_KEY not in text and "sqlite:///" not in text and "sqla+" not in text
    assert client.post("/healthz").status_code == 405


def test_broker_part_counts_each_queue_apart(client: Client, settings: Any) -> None:
    """Each worker pool's queue is declared and counted: three analyses waiting show as
    ``{"realtime": 0, "background": 3}`` (on today's broker; the old check counted only the default
    queue, which no task uses any more)."""
    from config.celery import app

    settings.REDIS_URL = ""
    beat_ticked(1)
    with app.connection_for_write() as conn:
        for name in settings.TASK_QUEUES:
            conn.default_channel.queue_declare(queue=name)
            conn.default_channel.queue_purge(name)
    try:
        for n in range(3):  # routed by CELERY_TASK_ROUTES; no worker consumes this test's broker queues
            app.send_task("replays.analyse_match", args=[10_000 + n])
        broker = health(client, 200)["parts"]["broker"]
        assert (broker["queues"], broker["messages"]) == ({"realtime": 0, "background": 3}, 3)
    finally:
        with app.connection_for_write() as conn:
            for name in settings.TASK_QUEUES:
                conn.default_channel.queue_purge(name)


def test_broker_check_leaves_no_database_connection_checked_out() -> None:
    """On the embedded broker (kombu's SQLAlchemy transport) each check read the queues in a session it
    never ended, which kept a pooled connection: 7 of 15 after 20 checks, and a full embedded run's
    later caller timed out waiting for one. Now none is left checked out."""
    from config.celery import app
    from web.health import check_broker

    with app.connection_for_write() as conn:
        session = getattr(conn.default_channel, "session", None)
    if session is None:
        pytest.skip("not the SQLAlchemy broker transport (the embedded profile's)")
    for _ in range(20):
        assert check_broker()["ok"] is True
    assert session.bind.pool.checkedout() == 0
