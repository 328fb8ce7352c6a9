"""WebSocket routes of the games app: ``ws/match/<id>/`` (docs/protocol.md); ``ws/echo/`` (the load
test's baseline, :mod:`games.echo`) only when the setting ``GAMES_ECHO_WS`` is true."""

from __future__ import annotations

from django.conf import settings
from django.urls import URLPattern, path

from games.consumers import MatchConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
websocket_urlpatterns: list[URLPattern] = [
    path("ws/match/<int:match_id>/", MatchConsumer.as_asgi(), name="match_ws"),  # type: ignore[arg-type]
]

if getattr(settings, "GAMES_ECHO_WS", False):
    from games.echo import EchoConsumer

    websocket_urlpatterns.append(path("ws/echo/", EchoConsumer.as_asgi(), name="echo_ws"))  # type: ignore[arg-type]
