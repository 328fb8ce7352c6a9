"""App config for ``web``: base layout, home page, static assets, site-wide Celery probe."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    """``web`` app."""

    name = "web"
    default_auto_field = "django.db.models.BigAutoField"
