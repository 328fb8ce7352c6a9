"""WebSocket routes of the tournaments app (joined in ``config.routing``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tournaments.consumers import MyTournamentsConsumer, TournamentConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
websocket_urlpatterns: list[URLPattern] = [
    path("ws/tournaments/me/", MyTournamentsConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),  # type: ignore[arg-type]
]
