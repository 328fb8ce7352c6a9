"""URL patterns of the lobby's challenges (docs/lobby.md); joined by ``lobby.urls``."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
