"""Tournament URLs (namespace ``tournaments``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tournaments import views

app_name = "tournaments"

urlpatterns: list[URLPattern] = [
    path("tournaments/", views.tournament_list, name="list"),
    path("tournaments/banner.json", views.banner, name="banner"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="live"),
    path("tournaments/<int:tournament_id>/join/", views.tournament_join, name="join"),
    path("tournaments/<int:tournament_id>/leave/", views.tournament_leave, name="leave"),
    path("tournaments/<int:tournament_id>/arena/pause/", views.arena_pause, name="arena_pause"),
    path("tournaments/<int:tournament_id>/arena/resume/", views.arena_resume, name="arena_resume"),
]
