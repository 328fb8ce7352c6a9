"""Replays URLs (namespace ``replays``); see replays/views.py."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from replays import views

app_name = "replays"

urlpatterns: list[URLPattern] = [
    path("watch/", views.live_page, name="live"),
    path("replay/open/", views.replay_open, name="open"),
    re_path(r"^replay/open/(?P<digest>[0-9a-f]{64})/hands/(?P<number>[1-9][0-9]{0,3})\.json$",
            views.replay_open_hand, name="open_hand"),
    path("replay/<int:match_id>/", views.replay_page, name="replay"),
    path("replay/<int:match_id>.json", views.replay_json, name="replay_json"),
    path("replay/<int:match_id>/visibility/", views.replay_visibility, name="visibility"),
    path("replay/<int:match_id>/analyse/", views.replay_analyse, name="analyse"),
    path("replay/<int:match_id>/analysis.json", views.replay_analysis_json, name="analysis_json"),
    path("watch/<int:match_id>/", views.watch_page, name="watch"),
]
