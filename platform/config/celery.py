"""The Celery app (``celery -A config worker`` / ``celery -A config beat``).

Configuration comes from Django settings under the ``CELERY_`` namespace (see ``config.settings``);
tasks are discovered in each installed app's ``tasks`` module.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
