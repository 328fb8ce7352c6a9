"""App config for ``lobby``: meeting people to play now (quick-pairing pools, open challenges, direct
challenges) and the waits a player earns by leaving rated matches (playbans). docs/lobby.md."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = _("Lobby")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import match_left
        from lobby import playbans

        # inside the transaction that ends the match: the playban commits with the end (docs/lobby.md)
        match_left.connect(playbans.on_match_left, dispatch_uid="lobby.playbans.on_match_left")
