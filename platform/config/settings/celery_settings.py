"""Celery's settings (read by ``config.celery`` under the ``CELERY_`` namespace): broker, results, beat's
scheduler, and the queue of every task. The beat schedule and the tasks' delivery policy (acks, retries)
are in ``config.celery``, next to the app.

Named ``celery_settings``, not ``celery``: ``config.celery`` is the app, and one name for both would
confuse every reader.
"""

from __future__ import annotations

import os

from config.settings.environment import REDIS_URL, VAR_DIR, env_bool

CELERY_BROKER_URL = (
    os.environ.get("CELERY_BROKER_URL")
    or REDIS_URL
    or (f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}")
)
CELERY_RESULT_BACKEND = (
    os.environ.get("CELERY_RESULT_BACKEND")
    or REDIS_URL
    or (f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}")
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_EXPIRES = 3600
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Two queues by urgency, each consumed by its own worker pool (scripts/serve, deploy/systemd): "realtime"
# for what a player is waiting on (level-5 and bot-vs-bot moves, turn timers, ratings, tournament steps and
# the sweeps that recover them), "background" for work nobody waits on at the table (analyses, batch
# jobs). However much background work is queued, a realtime task never waits behind it (issue 20). Every
# task is routed here, in this one table (tests/platform/test_task_routes.py fails for a task without a
# route); an unrouted one would fall to the default queue, realtime.
TASK_QUEUE_REALTIME = "realtime"
TASK_QUEUE_BACKGROUND = "background"
TASK_QUEUES = (TASK_QUEUE_REALTIME, TASK_QUEUE_BACKGROUND)
CELERY_TASK_DEFAULT_QUEUE = TASK_QUEUE_REALTIME
CELERY_TASK_ROUTES = {
    **{name: {"queue": TASK_QUEUE_REALTIME} for name in (
        "games.tasks.play_server_moves", "games.tasks.sweep_server_moves", "games.tasks.expire_due_turns",
        "ratings.rate_match", "ratings.rate_pending", "ratings.sweep_unrated",
        # A fair-play closure's refunds (docs/fairplay.md): rating writes, on the ratings' queue.
        "ratings.tasks.refund_closure", "ratings.tasks.sweep_refunds",
        "tournaments.tasks.open", "tournaments.tasks.start", "tournaments.tasks.pair_round",
        "tournaments.tasks.record_round", "tournaments.tasks.finish", "tournaments.tasks.advance",
        "tournaments.tasks.remind",
        "tournaments.tasks.arena_wave",
        # Light, but people wait on them: the schedule of the coming tournaments (the fresh-clone trial saw
        # an empty /tournaments/ for 17 minutes while it waited behind 8 analyses) and the sweep that ends
        # matches nobody plays any more (their opponents wait for the result).
        "tournaments.tasks.ensure_schedule", "games.tasks.abandon_idle_matches",
        # Open and direct challenges expire (lobby.challenge_sweep): people wait on their list.
        "lobby.tasks.sweep_challenges",
        # the sweep that ends matches between people whose players left (docs/lobby.md)
        "games.tasks.end_absent_matches",
    )},
    **{name: {"queue": TASK_QUEUE_BACKGROUND} for name in (
        "replays.analyse_match", "web.platform_probe",
        # the fair-play signals' hourly recomputation (docs/fairplay.md)
        "fairplay.tasks.signals_refresh",
        # the assistance signal (docs/fairplay.md): engine time nobody waits on
        "fairplay.tasks.assistance_match", "fairplay.tasks.assistance_reported",
    )},
}
