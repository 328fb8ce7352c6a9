"""A Playwright route on the table's match socket, shared by the browser tests.

It passes every server message through to the page, remembers the latest ``state`` message, and can
inject messages as if the server had sent them (to show real engine values the test built itself).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

MATCH_SOCKET = re.compile(r".*/ws/match/\d+/$")


class SocketSpy:
    """Route ``page``'s match sockets: ``latest`` is the last ``state`` the server sent, whole (its frames
    merged as the page merges them, docs/protocol.md "state" protocol 2), ``routes``
    every routed socket (the newest last). Install before the page opens the table."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.latest: dict[str, Any] | None = None
        self.routes: list[Any] = []
        page.route_web_socket(MATCH_SOCKET, self._route)

    def _route(self, ws: Any) -> None:
        from tests.games.wsclient import Held

        server = ws.connect_to_server()
        self.routes.append(ws)
        held = Held()  # per socket, as the page's frames.js: a socket's first state is whole

        def from_server(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and held.merge(msg):
                self.latest = held.state
            ws.send(message)

        server.on_message(from_server)

    def synced_state(self, shown_seq: Callable[[], int]) -> dict[str, Any]:
        """The latest server ``state`` once it is the one the page shows (``shown_seq()``).

        The page may draw from the state embedded in its HTML before the socket's first state reaches
        the route, and Playwright dispatches the route's callbacks only while it waits: so wait.
        """
        for _ in range(100):
            if self.latest is not None and self.latest["seq"] == shown_seq():
                break
            self.page.wait_for_timeout(100)
        assert self.latest is not None and self.latest["seq"] == shown_seq()
        return self.latest

    def inject(self, message: dict[str, Any]) -> None:
        """Send ``message`` to the page on the newest socket, as if from the server."""
        self.routes[-1].send(json.dumps(message))
