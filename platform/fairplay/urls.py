"""Fair-play URLs (namespace ``fairplay``): reporting a player (fairplay/views.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from fairplay import views

app_name = "fairplay"

urlpatterns: list[URLPattern] = [
    path("report/player/<str:username>/", views.report_player, name="report_player"),
    path("report/match/<int:match_id>/", views.report_match, name="report_match"),
    path("report/received/", views.received, name="received"),
]
