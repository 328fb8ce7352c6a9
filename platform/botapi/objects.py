"""The bot API's match and challenge objects (docs/bot-api.md "The event stream": ``M`` and ``C``), as
the HTTP answers and the event stream give them (one builder each: ``botapi.views``,
``botapi.challenge_views`` and ``botapi.states`` use these)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from botapi.players import player_object
from games.models import Match
from lobby.models import Challenge


def iso(value: datetime | None) -> str | None:
    """A time as the bot API writes it: ISO 8601, UTC, milliseconds, ``Z`` (null for None)."""
    if value is None:
        return None
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def match_object(match: Match, seat: int) -> dict[str, Any]:
    """``M`` for the player at ``seat``: ``{"id", "seat", "opponent" (P), "rated", "target",
    "turn_timer" (seconds or null)}`` (players loaded; one query for the opponent's rating)."""
    return {
        "id": match.pk,
        "seat": seat,
        "opponent": player_object(match.player1 if seat == 0 else match.player0),
        "rated": match.rated,
        "target": match.rules.get("target"),
        "turn_timer": match.turn_timer_seconds,
    }


def match_object_of(match: Match, user_id: int) -> dict[str, Any]:
    """``M`` for the account ``user_id``, one of the match's players.

    :raises ValueError: ``user_id`` is not seated in ``match``."""
    seat = match.seat_of(user_id)
    if seat is None:
        raise ValueError(f"user {user_id} is not a player of match {match.pk}")
    return match_object(match, seat)


def challenge_object(challenge: Challenge, user_id: int) -> dict[str, Any]:
    """``C``, a challenge as the account ``user_id`` (one of its two players) sees it: ``{"id",
    "direction" ("in": made to it, "out": made by it), "challenger" (P), "challenged" (P), "preset",
    "target", "turn_timer", "rated", "expires_at" (ISO 8601 UTC)}`` (players loaded)."""
    return {
        "id": challenge.pk,
        "direction": "out" if challenge.challenger_id == user_id else "in",
        "challenger": player_object(challenge.challenger),
        "challenged": player_object(challenge.challenged),
        "preset": challenge.preset,
        "target": challenge.target,
        "turn_timer": challenge.turn_timer_seconds,
        "rated": challenge.rated,
        "expires_at": iso(challenge.expires_at),
    }
