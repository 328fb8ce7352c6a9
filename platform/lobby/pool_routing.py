"""WebSocket routes of the lobby's pools (docs/protocol.md "Lobby"); joined by ``lobby.routing``."""

from __future__ import annotations

from django.urls import URLPattern

routes: list[URLPattern] = []
