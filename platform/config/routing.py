"""WebSocket URL patterns of the whole site: each app's ``routing.websocket_urlpatterns`` joined."""

from __future__ import annotations

from django.apps import apps
from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []

if apps.is_installed("games"):
    from games.routing import websocket_urlpatterns as games_websocket_urlpatterns

    websocket_urlpatterns += games_websocket_urlpatterns
