"""A match stream's ``view`` (docs/bot-api.md, ``V``) as the engine's :class:`~engine.view.PlayerView`,
so a bot written for the engine (``engine.bots.make_bot(level)``) plays unchanged."""

from __future__ import annotations

from typing import Any

from engine.view import PlayerView


def view_from_dict(data: Any) -> PlayerView:
    """The :class:`PlayerView` of a state line's ``view`` object (``PlayerView.to_dict()``'s shape).

    :raises ValueError: a malformed view, the message naming the key (``PlayerView.from_dict``).
    """
    return PlayerView.from_dict(data)
