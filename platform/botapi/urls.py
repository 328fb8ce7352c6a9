"""Bot API URLs (namespace ``botapi``), mounted at ``/api/v1/bot/`` (docs/bot-api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from botapi import streams

app_name = "botapi"

urlpatterns: list[URLPattern | URLResolver] = [
    path("stream/events/", streams.stream_events, name="stream_events"),
    path("match/<int:match_id>/stream/", streams.match_stream, name="match_stream"),
]
