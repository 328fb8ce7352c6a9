"""Bot API URLs (namespace ``botapi``), mounted at ``/api/v1/bot/`` (docs/bot-api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

app_name = "botapi"

urlpatterns: list[URLPattern | URLResolver] = []
