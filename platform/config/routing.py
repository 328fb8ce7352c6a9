"""WebSocket URL patterns of the whole site: each app's ``routing.websocket_urlpatterns`` joined."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

from games.routing import websocket_urlpatterns as games_websocket_urlpatterns

websocket_urlpatterns: list[URLPattern | URLResolver] = [*games_websocket_urlpatterns]
