"""WebSocket routes of the lobby's challenges (docs/protocol.md "Notices socket"); joined by
``lobby.routing``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby.notice_consumers import NoticeConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
routes: list[URLPattern] = [path("ws/notices/", NoticeConsumer.as_asgi())]  # type: ignore[arg-type]
