"""WebSocket routes of the lobby's pools (docs/protocol.md "Pool socket"); joined by ``lobby.routing``."""

from __future__ import annotations

from django.urls import URLPattern, re_path

from lobby.pool_consumers import PoolConsumer

# The arg-type ignores: Django's stubs type path() for views only; Channels routes ASGI apps with it.
routes: list[URLPattern] = [
    re_path(r"^ws/pool/(?P<slug>[-a-zA-Z0-9_]{1,40})/$", PoolConsumer.as_asgi(), name="pool_ws"),  # type: ignore[arg-type]
]
