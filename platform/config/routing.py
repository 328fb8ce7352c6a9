"""WebSocket URL patterns of the whole site: each app's ``routing.websocket_urlpatterns`` joined."""

from __future__ import annotations

from importlib.util import find_spec

from django.apps import apps
from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []

# The games app is being built in parallel: route its sockets as soon as its routing module exists.
if apps.is_installed("games") and find_spec("games.routing") is not None:
    from games.routing import websocket_urlpatterns as games_websocket_urlpatterns

    websocket_urlpatterns += games_websocket_urlpatterns
