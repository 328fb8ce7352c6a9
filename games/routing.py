"""WebSocket routes of the games app: ``ws/match/<id>/`` (docs/protocol.md)."""

from __future__ import annotations

from django.urls import URLPattern, path

from games.consumers import MatchConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/match/<int:match_id>/", MatchConsumer.as_asgi(), name="match_ws"),
]
