"""URL patterns of the lobby's seeks (docs/lobby.md "Open challenges"); joined by ``lobby.urls``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby import seek_views

urlpatterns: list[URLPattern] = [
    path("lobby/", seek_views.lobby, name="lobby"),
    path("lobby/<int:seek_id>/accept/", seek_views.accept, name="seek_accept"),
    path("lobby/<int:seek_id>/cancel/", seek_views.cancel, name="seek_cancel"),
]
