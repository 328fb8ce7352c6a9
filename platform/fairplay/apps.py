"""App config for ``fairplay``: reports, fair-play signals, the moderation queue and its consequences."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    """``fairplay`` app (docs/fairplay.md). ``ready`` connects its receivers: log-ins (sightings, waiting
    warnings) and ``games.signals.match_finished`` (the assistance signal's sampling hook)."""

    name = "fairplay"
    verbose_name = _("Fair play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from fairplay import notices, receivers, sighting_receivers
        from games.signals import match_finished

        # A member's log-in is a sighting (fairplay.sightings); dispatch_uid: connected once.
        user_logged_in.connect(sighting_receivers.on_logged_in, dispatch_uid="fairplay.sightings.login")
        # A warning whose cache key was lost is found again at the next log-in (fairplay.notices).
        user_logged_in.connect(notices.flag_on_login, dispatch_uid="fairplay.flag_on_login")
        # A finished rated match may be sampled for the assistance signal (fairplay.receivers).
        match_finished.connect(receivers.sample_finished, dispatch_uid="fairplay.sample_finished")
