"""WebSocket URL patterns of the whole site: each app's ``routing.websocket_urlpatterns`` joined, then a
catch-all that refuses unknown paths cleanly (error ``not_found``, close code 4404; docs/protocol.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, re_path

from games.consumers import UnknownPathConsumer
from games.routing import websocket_urlpatterns as games_websocket_urlpatterns
from home.routing import websocket_urlpatterns as home_websocket_urlpatterns
from lobby.routing import websocket_urlpatterns as lobby_websocket_urlpatterns
from replays.routing import websocket_urlpatterns as replays_websocket_urlpatterns
from tournaments.routing import websocket_urlpatterns as tournaments_websocket_urlpatterns

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
websocket_urlpatterns: list[URLPattern | URLResolver] = [
    *games_websocket_urlpatterns,
    *tournaments_websocket_urlpatterns,
    *replays_websocket_urlpatterns,
    *lobby_websocket_urlpatterns,
    *home_websocket_urlpatterns,
    re_path(r"^.*$", UnknownPathConsumer.as_asgi(), name="unknown_ws"),  # type: ignore[arg-type]  # must stay last
]
