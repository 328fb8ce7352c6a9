"""App config for ``fairplay``: reports, fair-play signals, the moderation queue and its consequences."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    """``fairplay`` app (docs/fairplay.md). ``ready`` connects the assistance signal's sampling hook to
    ``games.signals.match_finished``."""

    name = "fairplay"
    verbose_name = _("Fair play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from fairplay import receivers
        from games.signals import match_finished

        match_finished.connect(receivers.sample_finished, dispatch_uid="fairplay.sample_finished")
