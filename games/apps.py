"""App config of ``games``."""

from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Matches, live play and the match event log."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Imported here, not at the top: an app's modules may import models only once apps are loaded.
        from games import (
            scheduling,
            tasks,
            user_sockets,  # noqa: F401  (connects the receivers that close sockets on logout)
        )

        scheduling.connect(tasks.DRIVER)  # timers and sweeps run the services; scheduling imports neither
