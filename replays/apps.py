"""App config of ``replays``."""

from __future__ import annotations

from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    """Replays of finished matches, the replay file (export/import), spectating, computer analysis."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "replays"
    verbose_name = "Replays"
