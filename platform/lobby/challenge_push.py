"""Live messages of open and direct challenges, sent after the write commits (docs/protocol.md "Lobby
socket", "Notices socket").

Groups:

- :data:`LOBBY_GROUP` (``lobby_seeks``): every ``ws/lobby/`` socket; ``{"type": "lobby.changed"}`` after
  any change of the open seeks (each socket then re-reads the list, coalesced: ``seek_consumers``).
- :func:`user_group` (``lobby_user_<id>``): one member's ``ws/lobby/`` sockets; ``{"type": "lobby.go",
  "url"}`` when their seek was accepted.
- :func:`notice_group` (``notices_<id>``): one member's ``ws/notices/`` sockets (every page);
  ``{"type": "notice.push", "payload": {...}}``, the payload forwarded to the browser as it is.

Which loop sends: as ``games.services._broadcast_on_commit``: asgiref's (Daphne's own loop) with the
in-process layer, the process's loop of ``ratings.push`` with Redis. An outage of the layer (Redis
unreachable, a send over :data:`PUSH_TIMEOUT`) is one WARNING line (the write is committed; the sockets
re-read everything when they reconnect, and the notices socket on each page load); any other error is
raised to the caller, so a send that cannot be made fails its test.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.exceptions
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

from config import channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby_seeks"
PUSH_TIMEOUT = 5.0
"""Seconds the sends of one commit may take together."""

Messages = list[tuple[str, dict[str, Any]]]


def user_group(user_id: int) -> str:
    """The ``ws/lobby/`` sockets of one user."""
    return f"lobby_user_{user_id}"


def notice_group(user_id: int) -> str:
    """The ``ws/notices/`` sockets of one user (one per open page of the site)."""
    return f"notices_{user_id}"


def go_messages(user_id: int, url: str) -> Messages:
    """Send ``user_id`` to ``url`` (their new table) on both of their sockets."""
    return [(user_group(user_id), {"type": "lobby.go", "url": url}),
            (notice_group(user_id), {"type": "notice.push", "payload": {"type": "go", "url": url}})]


def lobby_changed() -> Messages:
    return [(LOBBY_GROUP, {"type": "lobby.changed"})]


def notice(user_id: int, payload: dict[str, Any]) -> Messages:
    return [(notice_group(user_id), {"type": "notice.push", "payload": payload})]


def send_now(messages: Messages) -> None:
    """Send ``messages`` (in order) now, from synchronous code (see the module docstring for the loop).

    :raises Exception: any error of the layer but an outage (logged as one WARNING line)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def bounded() -> None:
        await asyncio.wait_for(channel_layer.group_send_many(layer, messages), PUSH_TIMEOUT)

    try:
        if isinstance(layer, InMemoryChannelLayer):
            async_to_sync(bounded)()
        else:
            from ratings import push

            push.run_on_process_loop(bounded(), PUSH_TIMEOUT + 1.0)
    except (TimeoutError, ConnectionError, redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError) as exc:
        log.warning("lobby push to %s not sent: %s: %s", sorted({group for group, _ in messages}),
                    type(exc).__name__, exc)


def send_on_commit(messages: Messages) -> None:
    """:func:`send_now` after the current transaction commits (at once outside one)."""
    if messages:
        transaction.on_commit(lambda: send_now(messages))
