"""Live messages of open and direct challenges, sent after the write commits (docs/protocol.md "Lobby
socket", "Notices socket").

Groups (``push.groups``):

- ``LOBBY_GROUP`` (``lobby_seeks``): every ``ws/lobby/`` socket; ``{"type": "lobby.changed"}`` after
  any change of the open seeks (each socket then re-reads the list, coalesced: ``seek_consumers``).
- ``lobby_user_group`` (``lobby_user_<id>``): one member's ``ws/lobby/`` sockets; ``{"type": "lobby.go",
  "url"}`` when their seek was accepted.
- ``notice_group`` (``notices_<id>``): one member's ``ws/notices/`` sockets (every page);
  ``{"type": "notice.push", "payload": {...}}``, the payload forwarded to the browser as it is.

They are sent by ``push.send.send_on_commit`` (the one after-commit path: an outage is recorded and
logged; the sockets re-read everything when they reconnect, and the notices socket on each page load).
"""

from __future__ import annotations

from typing import Any

from push.groups import LOBBY_GROUP, lobby_user_group, notice_group

Messages = list[tuple[str, dict[str, Any]]]


def go_messages(user_id: int, url: str) -> Messages:
    """Send ``user_id`` to ``url`` (their new table) on both of their sockets."""
    return [(lobby_user_group(user_id), {"type": "lobby.go", "url": url}),
            (notice_group(user_id), {"type": "notice.push", "payload": {"type": "go", "url": url}})]


def lobby_changed() -> Messages:
    return [(LOBBY_GROUP, {"type": "lobby.changed"})]


def notice(user_id: int, payload: dict[str, Any]) -> Messages:
    return [(notice_group(user_id), {"type": "notice.push", "payload": payload})]
