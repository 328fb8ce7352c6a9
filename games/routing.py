"""WebSocket routes of the games app: ``ws/match/<id>/`` (docs/protocol.md)."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
