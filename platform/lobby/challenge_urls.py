"""URL patterns of the lobby's challenges (docs/lobby.md "Direct challenges"); joined by ``lobby.urls``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby import challenge_views

urlpatterns: list[URLPattern] = [
    path("challenges/to/<str:username>/", challenge_views.challenge, name="challenge"),
    path("challenges/<int:challenge_id>/accept/", challenge_views.answer, {"verb": "accept"},
         name="challenge_accept"),
    path("challenges/<int:challenge_id>/decline/", challenge_views.answer, {"verb": "decline"},
         name="challenge_decline"),
    path("challenges/preference/", challenge_views.preference, name="challenge_preference"),
]
