"""App config for ``clubs``: clubs of members, their organisers and their own ranking."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubsConfig(AppConfig):
    """``clubs`` app (docs/tournaments.md "Clubs"). Sits between ``tournaments`` (whose events may
    belong to a club) and ``replays`` in the import layers."""

    name = "clubs"
    verbose_name = _("Clubs")
    default_auto_field = "django.db.models.BigAutoField"
