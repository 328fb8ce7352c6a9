"""URL patterns of the lobby's pools (docs/lobby.md "Pools"); joined by ``lobby.urls``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby import pool_views

urlpatterns: list[URLPattern] = [
    path("play/", pool_views.play, name="play"),
    path("play/pool/<slug:slug>/", pool_views.pool_wait, name="pool_wait"),
]
