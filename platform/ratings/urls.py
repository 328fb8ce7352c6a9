"""Ratings URLs (namespace ``ratings``): the rankings (people's, BOT accounts'), the profiles, a match's
rating change."""

from __future__ import annotations

from django.urls import URLPattern, path

from ratings import views

app_name = "ratings"

urlpatterns: list[URLPattern] = [
    path("rankings/", views.rankings, name="rankings"),
    path("rankings/bots/", views.bot_rankings, name="bot_rankings"),
    path("u/<str:username>/", views.profile, name="profile"),
    path("ratings/match/<int:match_id>.json", views.match_rating, name="match_rating"),
]
