"""Bot API URLs (namespace ``botapi``), mounted at ``/api/v1/bot/`` (docs/bot-api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from botapi import pool_views

app_name = "botapi"

urlpatterns: list[URLPattern | URLResolver] = [
    path("pool/<slug:slug>/join/", pool_views.PoolJoinView.as_view(), name="pool_join"),
    path("pool/<slug:slug>/leave/", pool_views.PoolLeaveView.as_view(), name="pool_leave"),
]
