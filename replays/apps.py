"""App config of ``replays``."""

from __future__ import annotations

from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    """Replays of finished matches, the replay file (export/import), spectating, computer analysis."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "replays"
    verbose_name = "Replays"

    def ready(self) -> None:
        """Answer the games app's question ``outsider_may_see`` (``replays.receivers``)."""
        from games.signals import outsider_may_see
        from replays import receivers

        outsider_may_see.connect(receivers.outsider_may_see, dispatch_uid="replays.outsider_may_see")
