"""App config for ``fairplay``: reports, fair-play signals, the moderation queue and its consequences."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    """``fairplay`` app (docs/fairplay.md)."""

    name = "fairplay"
    verbose_name = _("Fair play")
    default_auto_field = "django.db.models.BigAutoField"
