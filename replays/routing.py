"""WebSocket routes of the replays app: ``ws/watch/<id>/`` (spectators), ``ws/analysis/<id>/`` (the replay
page's computer analysis)."""

from __future__ import annotations

from django.urls import URLPattern, path

from replays.consumers import AnalysisConsumer, WatchConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
websocket_urlpatterns: list[URLPattern] = [
    path("ws/watch/<int:match_id>/", WatchConsumer.as_asgi(), name="watch_ws"),  # type: ignore[arg-type]
    path("ws/analysis/<int:match_id>/", AnalysisConsumer.as_asgi(), name="analysis_ws"),  # type: ignore[arg-type]
]
