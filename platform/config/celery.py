"""The Celery app (``celery -A config worker`` / ``celery -A config beat``).

Configuration comes from Django settings under the ``CELERY_`` namespace (see ``config.settings``);
tasks are discovered in each installed app's ``tasks`` module.
"""

from __future__ import annotations

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
def _bind_task_match(task: object = None, args: object = None, kwargs: object = None, **_: object) -> None:
    """Log records of a task about one match carry its id (``web.log_context.bind_task``)."""
    from web.log_context import bind_task

    bind_task(task, args, kwargs)
