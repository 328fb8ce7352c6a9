"""WebSocket routes of the home app: the home page's live numbers (docs/protocol.md "Home socket")."""

from __future__ import annotations

from django.urls import URLPattern, path

from home.consumers import HomeConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
websocket_urlpatterns: list[URLPattern] = [
    path("ws/home/", HomeConsumer.as_asgi(), name="ws_home"),  # type: ignore[arg-type]
]
