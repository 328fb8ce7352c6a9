"""Django project configuration, imported as ``config`` (``platform/`` is on sys.path, not a package).

Importing this package loads the Celery app so ``@shared_task`` binds to it in every process.
"""

from config.celery import app as celery_app

__all__ = ["celery_app"]
