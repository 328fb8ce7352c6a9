"""App config for ``web``: base layout, home page, static assets, site-wide Celery probe."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    """``web`` app."""

    name = "web"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Close each HTTP request's database connections at its end (``web.request_connections``)."""
        from django.core.signals import request_finished

        from web.request_connections import close_request_connections

        request_finished.connect(close_request_connections, dispatch_uid="web.close_request_connections")
