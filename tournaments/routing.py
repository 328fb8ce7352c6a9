"""WebSocket routes of the tournaments app (joined in ``config.routing``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tournaments.consumers import MyTournamentsConsumer, TournamentConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/tournaments/me/", MyTournamentsConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
]
