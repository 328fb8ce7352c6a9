"""App config for ``botapi``: the bot API (docs/bot-api.md), where outside programs play as BOT accounts:
token authentication, the event and match streams (ndjson), actions, challenges, the BOT pool."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BotApiConfig(AppConfig):
    name = "botapi"
    verbose_name = _("Bot API")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The BotToken security scheme (a drf-spectacular extension registers itself when defined).
        from botapi import pauses, schema  # noqa: F401
        from games.signals import turn_expired

        # inside the timer's transaction: a pause commits with the timeout that caused it (docs/bot-api.md)
        turn_expired.connect(pauses.on_turn_expired, dispatch_uid="botapi.pauses.on_turn_expired")
