"""The player object of the bot API (docs/bot-api.md "The event stream", ``P``)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from ratings.selectors import rating_get


def player_object(user: User | None) -> dict[str, Any] | None:
    """``P``: ``{"username" (null for a guest), "name" (the public name), "bot_account" (a BOT account),
    "house_bot_level" (1..5 for a house bot, else null), "rating" (whole rating points: a house bot's
    calibrated Elo, a member's current rating, 1500 when never rated; null for a guest)}``; None for an
    empty seat. One query for a member's rating."""
    if user is None:
        return None
    rating = None if user.is_guest else rating_get(user=user).shown
    return {
        "username": None if user.is_guest else user.username,
        "name": user.public_name,
        "bot_account": bool(user.bot_account),
        "house_bot_level": user.bot_level if user.is_bot else None,
        "rating": rating,
    }
