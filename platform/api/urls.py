"""API URLs (namespace ``api``), mounted at ``/api/`` (docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path, re_path, register_converter

from api import bots, clubs, docs, errors, lobby, matches, players, rankings, tournaments
from api.schema import IdConverter

register_converter(IdConverter, "id")

app_name = "api"

v1: list[URLPattern | URLResolver] = [
    path("players/<str:username>/", players.PlayerView.as_view(), name="player"),
    path("players/<str:username>/ratings/", players.PlayerRatingsView.as_view(), name="player_ratings"),
    path("players/<str:username>/matches/", players.PlayerMatchesView.as_view(), name="player_matches"),
    path("rankings/", rankings.RankingsView.as_view(), name="rankings"),
    path("rankings/bots/", rankings.BotRankingsView.as_view(), name="bot_rankings"),
    path("bots/", bots.BotsView.as_view(), name="bots"),
    path("tournaments/", tournaments.TournamentsView.as_view(), name="tournaments"),
    path("tournaments/<id:tournament_id>/", tournaments.TournamentView.as_view(), name="tournament"),
    path(
        "tournaments/<id:tournament_id>/standings/",
        tournaments.StandingsView.as_view(),
        name="tournament_standings",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>/pairings/",
        tournaments.PairingsView.as_view(),
        name="tournament_pairings",
    ),
    path("clubs/", clubs.ClubsView.as_view(), name="clubs"),
    path("clubs/<slug:slug>/", clubs.ClubView.as_view(), name="club"),
    path("matches/<id:match_id>/replay/", matches.ReplayView.as_view(), name="match_replay"),
    path("pools/", lobby.PoolsView.as_view(), name="pools"),
    path("lobby/seeks/", lobby.SeeksView.as_view(), name="lobby_seeks"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("schema/", docs.SchemaView.as_view(), name="schema"),
    path("docs/", docs.DocsView.as_view(), name="docs"),
    path("v1/", include(v1)),
    re_path(r"^.*$", errors.not_found, name="not_found"),  # anything else under /api/: a JSON 404
]
