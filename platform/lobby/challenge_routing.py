"""WebSocket routes of the lobby's challenges (docs/protocol.md "Notices socket"); joined by
``lobby.routing``."""

from __future__ import annotations

from django.urls import URLPattern, path

from lobby.notice_consumers import NoticeConsumer

routes: list[URLPattern] = [path("ws/notices/", NoticeConsumer.as_asgi())]
