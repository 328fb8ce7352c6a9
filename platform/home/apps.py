"""App config for ``home``: the site's front door, the page and socket that compose many apps."""

from django.apps import AppConfig


class HomeConfig(AppConfig):
    """``home`` app: the home page (``/``) and its live numbers' socket (``ws/home/``)."""

    name = "home"
    default_auto_field = "django.db.models.BigAutoField"
