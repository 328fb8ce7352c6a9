"""WebSocket routes of the lobby's seeks (docs/protocol.md "Lobby socket"); joined by ``lobby.routing``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby.seek_consumers import LobbyConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
routes: list[URLPattern] = [path("ws/lobby/", LobbyConsumer.as_asgi())]  # type: ignore[arg-type]
