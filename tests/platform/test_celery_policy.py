"""The one beat schedule and the one delivery policy of the project's tasks (``config.celery``), as a worker
and beat see them once every app's ``tasks`` module is imported: entry names, task names and periods;
each task's acks, retries and result, worked out; the naming convention; and the rows beat's
DatabaseScheduler writes from the schedule. Queues by name: tests/platform/test_task_routes.py."""

from __future__ import annotations

from typing import Any

import pytest
from celery.schedules import crontab
from django.db import OperationalError

from config.celery import OLDER_NAMES, app

BEAT = {  # entry name (a PeriodicTask row's name in a running deployment) -> (task, seconds)
    "games-sweep-server-moves": ("games.tasks.sweep_server_moves", 5.0),
    "games-abandon-idle-matches": ("games.tasks.abandon_idle_matches", 600.0),
    "games-end-absent-matches": ("games.tasks.end_absent_matches", 30.0),
    "lobby-sweep-challenges": ("lobby.tasks.sweep_challenges", 5.0),
    "ratings-sweep-unrated": ("ratings.sweep_unrated", 60.0),
    "ratings-sweep-refunds": ("ratings.tasks.sweep_refunds", 600.0),
    "tournaments-ensure-schedule": ("tournaments.tasks.ensure_schedule", 600.0),
    "tournaments-advance": ("tournaments.tasks.advance", 5.0),
    "tournaments-remind": ("tournaments.tasks.remind", 30.0),
    "fairplay-signals-refresh": ("fairplay.tasks.signals_refresh", 600.0),
}

# The worked attributes of every task: ignore_result, acks_late, reject_on_worker_lost, autoretry_for,
# retry_backoff, max_retries (3 is Celery's default; it matters only with autoretry_for or a retry call).
PLAIN = (True, False, None, (), False, 3)
RATING = (True, True, True, (OperationalError,), True, 5)
POLICY = {
    "games.tasks.play_server_moves": PLAIN,
    "games.tasks.sweep_server_moves": PLAIN,
    "games.tasks.expire_due_turns": PLAIN,
    "games.tasks.abandon_idle_matches": PLAIN,
    "games.tasks.end_absent_matches": PLAIN,
    "lobby.tasks.sweep_challenges": PLAIN,
    "ratings.rate_match": RATING,
    "ratings.rate_pending": RATING,
    "ratings.sweep_unrated": PLAIN,
    "ratings.tasks.refund_closure": RATING,
    "ratings.tasks.sweep_refunds": PLAIN,
    "replays.analyse_match": (True, True, None, (OperationalError,), True, 5),
    "fairplay.tasks.assistance_match": (True, True, None, (OperationalError,), True, 5),
    "fairplay.tasks.assistance_reported": PLAIN,
    "tournaments.tasks.ensure_schedule": PLAIN,
    "tournaments.tasks.open": PLAIN,
    "tournaments.tasks.start": PLAIN,
    "tournaments.tasks.pair_round": PLAIN,
    "tournaments.tasks.record_round": PLAIN,
    "tournaments.tasks.finish": PLAIN,
    "tournaments.tasks.advance": PLAIN,
    "tournaments.tasks.remind": PLAIN,
    "tournaments.tasks.arena_wave": PLAIN,
    "web.platform_probe": (False, False, None, (), False, 3),
    "fairplay.tasks.signals_refresh": PLAIN,
}


def tasks() -> dict[str, Any]:
    app.loader.import_default_modules()  # autodiscovery, as in a worker and in beat
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def worked(task: Any) -> tuple[object, ...]:
    return (task.ignore_result, task.acks_late, task.reject_on_worker_lost,
            tuple(getattr(task, "autoretry_for", ())), bool(getattr(task, "retry_backoff", False)),
            task.max_retries)


def test_the_one_beat_schedule() -> None:
    registered = tasks()  # importing the tasks modules adds nothing to it
    schedule = app.conf.beat_schedule
    assert {name: (entry["task"], entry["schedule"]) for name, entry in schedule.items()} == BEAT
    assert all(set(entry) == {"task", "schedule"} for entry in schedule.values())  # no options
    assert {task for task, _ in BEAT.values()} <= set(registered)


def test_periods_shared_with_the_in_process_sweeps() -> None:
    from games import scheduling

    schedule = app.conf.beat_schedule
    assert schedule["games-sweep-server-moves"]["schedule"] == scheduling.SWEEP_SECONDS
    assert schedule["games-end-absent-matches"]["schedule"] == scheduling.ABSENT_SWEEP_SECONDS


@pytest.mark.django_db
def test_beat_writes_these_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """django-celery-beat's DatabaseScheduler (CELERY_BEAT_SCHEDULER) keeps one row per entry name."""
    from django.conf import settings
    from django_celery_beat import schedulers
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import DatabaseScheduler

    # Beat closes connections it finds in a transaction: here, the test's own.
    monkeypatch.setattr(schedulers, "close_old_connections", lambda: None)
    assert settings.CELERY_BEAT_SCHEDULER == "django_celery_beat.schedulers:DatabaseScheduler"
    DatabaseScheduler(app=app)  # setup_schedule: the default entries, then the schedule
    rows = {row.name: row for row in PeriodicTask.objects.select_related("interval", "crontab")}
    assert {name: (row.task, row.interval.every, row.interval.period)
            for name, row in rows.items() if row.interval} == {
        name: (task, int(seconds), "seconds") for name, (task, seconds) in BEAT.items()}
    cleanup = rows.pop("celery.backend_cleanup")  # beat's own, as CELERY_RESULT_EXPIRES is set
    assert (cleanup.task, cleanup.crontab.schedule) == ("celery.backend_cleanup", crontab("0", "4", "*"))
    assert set(rows) == set(BEAT) and all(row.enabled and row.queue is None for row in rows.values())


def test_every_task_s_delivery_policy() -> None:
    assert {name: worked(task) for name, task in tasks().items()} == POLICY
    assert app.tasks["celery.backend_cleanup"].ignore_result is False  # Celery's own tasks: its defaults


def test_a_database_error_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    from ratings import services
    from ratings.tasks import rate_match

    calls: list[int] = []

    def flaky(*, match_id: int) -> list[object]:
        calls.append(match_id)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return []

    monkeypatch.setattr(services, "match_rate", flaky)
    assert rate_match.apply(args=[7], throw=False).get() == 0  # the retry runs in place (eager)
    assert calls == [7, 7]


def test_task_names_follow_one_convention() -> None:
    """``<module>.<function>`` (a trailing ``_`` left out), except the older names, kept as they are."""
    for name, task in tasks().items():
        function = type(task).__name__.rstrip("_")
        assert OLDER_NAMES.get(name, name) == f"{task.__module__}.{function}", name
    assert set(OLDER_NAMES) <= set(POLICY)
