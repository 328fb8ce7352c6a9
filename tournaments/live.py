"""Live notices after the commit: a tournament's page (group ``tournament_<id>``) and each player's
site-wide banner (group ``user_<id>_tournaments``). A failing channel layer is logged, never raised:
the write is committed and the pages also poll on reconnect."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def tournament_group(tournament_id: int) -> str:
    return f"tournament_{tournament_id}"


def user_group(user_id: int) -> str:
    return f"user_{user_id}_tournaments"


def _send(groups: list[str], message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group in groups:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:  # a down channel layer must not undo a committed step
            log.warning("tournament notice to %s failed", group, exc_info=True)


def tournament_changed(tournament_id: int) -> None:
    """After the commit, tell the tournament's page to refresh its state."""
    transaction.on_commit(lambda: _send([tournament_group(tournament_id)],
                                        {"type": "tournament.changed", "tournament": tournament_id}))


def round_started(tournament_id: int, user_ids: Iterable[int]) -> None:
    """After the commit, tell the page and every seated player (their banner) that a round began."""
    users = sorted(set(user_ids))
    transaction.on_commit(lambda: _send(
        [tournament_group(tournament_id), *(user_group(u) for u in users)],
        {"type": "tournament.changed", "tournament": tournament_id},
    ))
