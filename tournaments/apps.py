"""The tournaments app: daily Swiss tournaments, scheduled by beat, filled by house bots."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    label = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from games.signals import match_finished, private_match_asked
        from tournaments import (
            receivers,
            tasks,  # noqa: F401  (registers the tasks that services.step_enqueue names with the Celery app)
        )

        match_finished.connect(receivers.record_on_match_end, dispatch_uid="tournaments.record_on_match_end")
        private_match_asked.connect(receivers.private_match_asked,
                                    dispatch_uid="tournaments.private_match_asked")
        post_migrate.connect(receivers.schedule_after_migrate, sender=self,
                             dispatch_uid="tournaments.schedule_after_migrate")
