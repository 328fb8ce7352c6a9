"""App config for ``clubs``: clubs of members, their organisers and their own ranking."""

from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class ClubsConfig(AppConfig):
    """``clubs`` app (docs/tournaments.md "Clubs"). Sits between ``tournaments`` (whose events may
    belong to a club) and ``replays`` in the import layers."""

    name = "clubs"
    verbose_name = pgettext_lazy("clubs of members (not the card suit)", "Clubs")
    default_auto_field = "django.db.models.BigAutoField"
