"""Every task of the project has an explicit queue (``CELERY_TASK_ROUTES``, the one routing table): a
task added without a route fails here instead of silently joining the realtime pool (or, worse, a batch
job delaying moves). And the urgent ones are on ``realtime``, the batch ones on ``background``."""

from __future__ import annotations

from django.conf import settings

PROJECT_PREFIXES = ("games.", "ratings.", "replays.", "tournaments.", "web.", "accounts.", "api.", "lobby.",
                    "fairplay.")


def project_tasks() -> set[str]:
    from config.celery import app

    app.loader.import_default_modules()  # autodiscovery: every installed app's tasks module
    return {name for name in app.tasks if not name.startswith("celery.")}


def test_every_registered_task_has_an_explicit_queue() -> None:
    from config.celery import app

    names = project_tasks()
    assert names and all(name.startswith(PROJECT_PREFIXES) for name in names), names
    unrouted = sorted(name for name in names if name not in settings.CELERY_TASK_ROUTES)
    assert unrouted == [], f"route these in settings.CELERY_TASK_ROUTES: {unrouted}"
    for name in names:  # the router Celery uses answers the same queue
        assert app.amqp.router.route({}, name)["queue"].name == settings.CELERY_TASK_ROUTES[name]["queue"]
    assert {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} == set(settings.TASK_QUEUES)
    assert sorted(settings.CELERY_TASK_ROUTES) == sorted(names), "a route for a task that no longer exists"


def test_urgent_work_is_realtime_and_batch_work_background() -> None:
    queue = {name: route["queue"] for name, route in settings.CELERY_TASK_ROUTES.items()}
    for name in ("games.tasks.play_server_moves", "games.tasks.sweep_server_moves", "ratings.rate_match",
                 "ratings.rate_pending", "ratings.sweep_unrated", "tournaments.tasks.pair_round",
                 "tournaments.tasks.start", "tournaments.tasks.advance", "tournaments.tasks.record_round",
                 "tournaments.tasks.finish"):
        assert queue[name] == "realtime", name
    assert queue["replays.analyse_match"] == "background"
    assert queue["fairplay.tasks.signals_refresh"] == "background"
    assert queue["fairplay.tasks.assistance_match"] == "background"
    assert queue["fairplay.tasks.assistance_reported"] == "background"
    assert settings.CELERY_TASK_DEFAULT_QUEUE == "realtime"
