"""WebSocket routes of the lobby (docs/protocol.md "Lobby"): each part's own list, joined here."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
# The parts append their routes in their own modules (pool_routing, seek_routing, notice_routing),
# imported below so each stays in its own file.
from lobby import challenge_routing, pool_routing, seek_routing  # noqa: E402

websocket_urlpatterns += [*pool_routing.routes, *seek_routing.routes, *challenge_routing.routes]
