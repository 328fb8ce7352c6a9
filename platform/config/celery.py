"""The Celery app (``celery -A config worker`` / ``celery -A config beat``), the one beat schedule and the
one delivery policy of the project's tasks.

Settings come from Django settings under the ``CELERY_`` namespace (``config/settings/celery_settings.py``:
broker, results, beat's scheduler, and the queue of every task by name); tasks are discovered in each
installed app's ``tasks`` module. Here, next to the app: what beat sends when (:data:`BEAT_SCHEDULE`) and
how each task is delivered and retried (:data:`DEFAULT_POLICY`, :data:`TASK_POLICY`). The apps' ``tasks``
modules only name their tasks; ``tests/platform/test_celery_policy.py`` checks all of this as the worker
sees it.

Task names: a task's name is what the broker's messages, beat's database rows, ``CELERY_TASK_ROUTES`` and
``send_task`` calls know it by, so it is written in its decorator (``name=``) and never changes with a
refactor. The convention is ``<module>.<function>`` (``games.tasks.sweep_server_moves``: the name Celery
would give it, so a name leads to its code; a trailing ``_`` of the function is left out:
``tournaments.tasks.open``). :data:`OLDER_NAMES` predate it and are kept: renaming one would strand the
messages queued under the old name when a deployment restarts its workers.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task, signals
from django.db import OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

OLDER_NAMES = {
    "ratings.rate_match": "ratings.tasks.rate_match",
    "ratings.rate_pending": "ratings.tasks.rate_pending",
    "ratings.sweep_unrated": "ratings.tasks.sweep_unrated",
    "replays.analyse_match": "replays.tasks.analyse_match",
    "web.platform_probe": "web.tasks.platform_probe",
}
"""Task names kept from before the convention -> the ``<module>.<function>`` they would have now. Queued
with countdowns (ratings), queued by the hundred (analyses), a beat row (``ratings.sweep_unrated``), sent by
name (the probe, by the tests' workers)."""

# --- beat -------------------------------------------------------------------------------------------------
# Every periodic task, in one place: entry name -> task name and period (seconds). Beat runs
# django-celery-beat's DatabaseScheduler (CELERY_BEAT_SCHEDULER): at start it writes each entry into its
# PeriodicTask row *by entry name* (update_or_create), so the entry names are part of a running deployment
# and must not change (a renamed entry would leave its old row running beside the new one). Beat adds one
# entry of its own, ``celery.backend_cleanup`` (daily at 04:00, because CELERY_RESULT_EXPIRES is set).
# Run one beat only (deploy/README.md).
BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # The server's moves and turn deadlines (games.scheduling): the safety net for a lost message or a
    # Daphne that died. 5 s is games.scheduling.SWEEP_SECONDS, the in-process sweep's period too.
    "games-sweep-server-moves": {"task": "games.tasks.sweep_server_moves", "schedule": 5.0},
    # Casual bot matches without a move for a day end as abandoned (games.conf.ABANDON_AFTER).
    "games-abandon-idle-matches": {"task": "games.tasks.abandon_idle_matches", "schedule": 600.0},
    # Matches between people whose players left (docs/lobby.md); games.scheduling.ABSENT_SWEEP_SECONDS.
    "games-end-absent-matches": {"task": "games.tasks.end_absent_matches", "schedule": 30.0},
    # Open seeks and direct challenges expire (lobby.challenge_sweep; Daphne sweeps every 2 s itself).
    "lobby-sweep-challenges": {"task": "lobby.tasks.sweep_challenges", "schedule": 5.0},
    # Finished rated matches still unrated after ratings.services.SWEEP_AFTER (a lost message).
    "ratings-sweep-unrated": {"task": "ratings.sweep_unrated", "schedule": 60.0},
    # The refunds of the last day's fair-play closures, again (a lost message; docs/fairplay.md).
    "ratings-sweep-refunds": {"task": "ratings.tasks.sweep_refunds", "schedule": 600.0},
    # The next 7 days' tournaments exist (docs/tournaments.md).
    "tournaments-ensure-schedule": {"task": "tournaments.tasks.ensure_schedule", "schedule": 600.0},
    # Each tournament's due step (open, start, pair, record, finish): the no-show and round-end check, and
    # the safety net for a lost step message.
    "tournaments-advance": {"task": "tournaments.tasks.advance", "schedule": 5.0},
    # Members' "remind me": a notice REMIND_BEFORE (5 min) before an event starts (tournaments.notices).
    "tournaments-remind": {"task": "tournaments.tasks.remind", "schedule": 30.0},
    # The fair-play pair and player signals (docs/fairplay.md "Strength and the queue"): a batch job on the
    # background queue, every 10 minutes (about a second for 400 players); the queue shows when.
    "fairplay-signals-refresh": {"task": "fairplay.tasks.signals_refresh", "schedule": 600.0},
}

# --- delivery policy ----------------------------------------------------------------------------------
DEFAULT_POLICY: dict[str, Any] = {"ignore_result": True}
"""Every task of the project: its return value is not stored (nothing reads it), it is acknowledged when a
worker takes it (Celery's default: ``acks_late`` off) and never retried. That is safe because every task is
idempotent (a row lock and a status check, or a compare-and-set) and each is re-sent by a beat sweep when
its message or its worker is lost (BEAT_SCHEDULE)."""

RETRY_ON_DATABASE_ERROR: dict[str, Any] = {
    "autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 5,
}
"""A lost database connection or a failover: retried up to 5 times, the n-th after a random wait of up to
2**(n-1) s (Celery's exponential backoff with full jitter: 1, 2, 4, 8, 16 s at most)."""

TASK_POLICY: dict[str, dict[str, Any]] = {
    # A rating is acknowledged after it ran and goes back to the queue when its pool process dies (a
    # SIGKILL, the OOM killer): Celery would otherwise acknowledge it as failed and drop it, and the rating
    # would wait for the sweep (up to two minutes). Running again is harmless: the killed run's transaction
    # was rolled back, and a rated match is never rated twice (docs/faults.md).
    "ratings.rate_match": {"acks_late": True, "reject_on_worker_lost": True, **RETRY_ON_DATABASE_ERROR},
    "ratings.rate_pending": {"acks_late": True, "reject_on_worker_lost": True, **RETRY_ON_DATABASE_ERROR},
    # A closure's refunds (docs/fairplay.md), the same way: a rerun gives nothing twice (row locks, the
    # refunds already made read under them, a unique (player, match) constraint).
    "ratings.tasks.refund_closure": {"acks_late": True, "reject_on_worker_lost": True,
                                     **RETRY_ON_DATABASE_ERROR},
    # An analysis (about a minute of CPU) is acknowledged after it ran, so a worker stopped or restarted
    # mid-run gives it back. It is not given back when its pool process dies (no reject_on_worker_lost,
    # unlike a rating): a run that killed its process would kill the next one too, again and again; its
    # row goes stale and asking again starts a new run (replays.analyses.restartable).
    "replays.analyse_match": {"acks_late": True, **RETRY_ON_DATABASE_ERROR},
    # The assistance signal of one match (about 10 s of CPU; docs/fairplay.md): as an analysis. Given back
    # when a worker stops mid-run, not when its pool process dies; a lost one only leaves a sampled match
    # unanalysed, and a run is idempotent (unique (match, seat), seats already stored are skipped).
    "fairplay.tasks.assistance_match": {"acks_late": True, **RETRY_ON_DATABASE_ERROR},
    # Its caller reads the result (what `import platform` is inside a worker: tests/platform).
    "web.platform_probe": {"ignore_result": False},
}
"""The project's tasks whose delivery differs from :data:`DEFAULT_POLICY`, by name, and why."""


class ProjectTaskPolicy:
    """The ``task_annotations`` entry that applies the policy: a task of the project gets
    :data:`DEFAULT_POLICY` updated by its line of :data:`TASK_POLICY`; Celery's own tasks (``celery.*``)
    keep Celery's defaults. Celery sets these attributes on each task class when it is registered."""

    def annotate(self, task: Task) -> dict[str, Any] | None:
        if task.name.startswith("celery."):
            return None
        return {**DEFAULT_POLICY, **TASK_POLICY.get(task.name, {})}


app = Celery("gin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(beat_schedule=BEAT_SCHEDULE, task_annotations=[ProjectTaskPolicy()])
app.autodiscover_tasks()


@signals.task_prerun.connect
def _bind_task_match(task: object = None, args: object = None, kwargs: object = None, **_: object) -> None:
    """Log records of a task about one match carry its id (``web.log_context.bind_task``)."""
    from web.log_context import bind_task

    bind_task(task, args, kwargs)
