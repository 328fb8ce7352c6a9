"""Sending a lifecycle step's task (``tournaments.tasks``) by name: the services and the Arena's waves
(``arena_play``) name the tasks, and only the tasks call the services."""

from __future__ import annotations

import logging

from celery import current_app

log = logging.getLogger("tournaments.services")


def step_enqueue(task_name: str, *args: int) -> None:
    """Send the lifecycle task named ``task_name`` (``tournaments.tasks``, registered with the Celery app
    by ``TournamentsConfig.ready``: the tasks call these services, these services name them only); a
    broker failure is logged (the beat sweep retries the step)."""
    try:
        if current_app.conf.task_always_eager:
            current_app.tasks[task_name].apply(args=args)
        else:
            current_app.send_task(task_name, args=args)
    except Exception:  # the beat sweep (tournaments.tasks.advance) recovers a lost step
        log.exception("could not run %s%r; the sweep will retry", task_name, args)
