"""Tournament URLs (namespace ``tournaments``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tournaments import organise_views, views

app_name = "tournaments"

urlpatterns: list[URLPattern] = [
    path("tournaments/", views.tournament_list, name="list"),
    path("tournaments/new/", organise_views.event_create, name="create"),
    path("tournaments/<int:tournament_id>/edit/", organise_views.event_edit, name="edit"),
    path("tournaments/<int:tournament_id>/cancel/", organise_views.event_cancel, name="cancel"),
    path("tournaments/<int:tournament_id>/organise/", organise_views.event_organise, name="organise"),
    path("tournaments/banner.json", views.banner, name="banner"),
    path("tournaments/code/", views.tournament_code, name="code"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="live"),
    path("tournaments/<int:tournament_id>/join/", views.tournament_join, name="join"),
    path("tournaments/<int:tournament_id>/leave/", views.tournament_leave, name="leave"),
    path("tournaments/<int:tournament_id>/results.csv", views.results_csv, name="results_csv"),
    path("tournaments/<int:tournament_id>/games.csv", views.games_csv, name="games_csv"),
    path("tournaments/<int:tournament_id>/results.trf", views.results_trf, name="results_trf"),
    path("tournaments/<int:tournament_id>/remind/", views.tournament_remind, name="remind"),
    path("tournaments/<int:tournament_id>/event.ics", views.tournament_ics, name="ics"),
    path("tournaments/notices.json", views.notices_json, name="notices"),
    path("tournaments/notices/<int:notice_id>/dismiss/", views.notice_dismiss, name="notice_dismiss"),
    path("tournaments/<int:tournament_id>/arena/pause/", views.arena_pause, name="arena_pause"),
    path("tournaments/<int:tournament_id>/arena/resume/", views.arena_resume, name="arena_resume"),
]
