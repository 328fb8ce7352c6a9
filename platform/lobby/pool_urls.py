"""URL patterns of the lobby's pools (docs/lobby.md); joined by ``lobby.urls``."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
