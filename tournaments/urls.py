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
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="live"),
    path("tournaments/<int:tournament_id>/join/", views.tournament_join, name="join"),
    path("tournaments/<int:tournament_id>/leave/", views.tournament_leave, name="leave"),
]
