from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The public read-only JSON API, ``/api/v1/`` (docs/api.md)."""

    name = "api"
    verbose_name = "API"
