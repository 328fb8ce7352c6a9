"""WebSocket routes of the replays app: ``ws/watch/<id>/`` (spectators)."""

from __future__ import annotations

from django.urls import URLPattern, path

from replays.consumers import WatchConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/watch/<int:match_id>/", WatchConsumer.as_asgi(), name="watch_ws"),
]
