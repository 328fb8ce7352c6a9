"""The bot API's match and challenge objects (docs/bot-api.md "The event stream": ``M`` and ``C``), as
the HTTP answers and the event stream give them."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from botapi.players import player_object
from games.models import Match
from lobby.models import Challenge


def match_object(match: Match, user: User) -> dict[str, Any]:
    """``M``: ``{"id", "seat" (``user``'s), "opponent": P, "rated", "target", "turn_timer" (seconds or
    null)}``. One query for the opponent's rating."""
    seat = match.seat_of(user.pk)
    other = None if seat is None else (match.player1 if seat == 0 else match.player0)
    return {
        "id": match.pk, "seat": seat, "opponent": player_object(other), "rated": match.rated,
        "target": match.rules.get("target"), "turn_timer": match.turn_timer_seconds,
    }


def challenge_object(challenge: Challenge, user: User) -> dict[str, Any]:
    """``C``: ``{"id", "direction" ("in": made to ``user``, "out": made by them), "challenger": P,
    "challenged": P, "preset", "target", "turn_timer", "rated", "expires_at" (ISO 8601)}``."""
    return {
        "id": challenge.pk, "direction": "out" if challenge.challenger_id == user.pk else "in",
        "challenger": player_object(challenge.challenger), "challenged": player_object(challenge.challenged),
        "preset": challenge.preset, "target": challenge.target, "turn_timer": challenge.turn_timer_seconds,
        "rated": challenge.rated, "expires_at": challenge.expires_at.isoformat(),
    }
