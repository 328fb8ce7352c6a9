"""Games URLs (namespace ``games``); see docs/protocol.md "HTTP endpoints"."""

from __future__ import annotations

from django.urls import URLPattern, path

from games import views

app_name = "games"

urlpatterns: list[URLPattern] = [
    path("play/bot/", views.new_bot_match, name="new_bot_match"),
    path("play/friend/", views.new_friend_table, name="new_friend_table"),
    path("t/<str:token>/", views.join, name="join"),
    path("match/<int:match_id>/", views.table, name="table"),
    path("match/<int:match_id>/hands/<int:hand_number>/verify.json", views.hand_verify, name="hand_verify"),
    path("matches/", views.my_matches, name="my_matches"),
    path("rules/", views.rules, name="rules"),
    path("match/<int:match_id>/end/", views.match_end_casual, name="match_end_casual"),
]
