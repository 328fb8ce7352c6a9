"""Games URLs (namespace ``games``); see docs/protocol.md "HTTP endpoints"."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "games"

urlpatterns: list[URLPattern] = []
