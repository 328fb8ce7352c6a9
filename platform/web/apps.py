"""App config for ``web``, the site kit: base layout, error pages, static assets, strict readers, the
sockets' common ends, logging, the site-wide Celery probe."""

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
