"""``{% load bot_odds %}``: ratings' part of games' new-match page, the house bots' calibrated Elo and a
member's rating and expected score against each level.

games sits below ratings (docs/architecture.md "Layers"), so its view never imports ratings; its page
asks for ratings' numbers through these tags instead, as the profile shows lobby's boxes through
lobby's tags.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language

from games.forms import bot_level_choices
from ratings.bot_elo import calibrated_elo
from ratings.elo import expected_score, shown
from ratings.selectors import rating_get

register = template.Library()


def _member_rating(user: Any) -> float | None:
    """A signed-in member's rating (established or not), None for anonymous visitors, guests and bots."""
    if user is None or not user.is_authenticated or user.is_guest or user.is_bot:
        return None
    return rating_get(user=user).rating


@register.simple_tag
def bot_levels_with_elo(user: Any) -> list[tuple[int, str, int | None, int | None]]:
    """``[(level, localized name, calibrated Elo or None, expected score % or None), ...]`` for the
    level picker, in the active language. The Elo comes from the bots' round robin
    (``python -m engine.tools.roundrobin`` -> data/bot_elo.json, read once per process by
    ``ratings.bot_elo``); the expected score (whole percent) is ``user``'s against that Elo
    (``ratings.elo.expected_score``, docs/ratings.md), None for a guest or a level with no Elo."""
    elo = calibrated_elo()
    mine = _member_rating(user)
    return [
        (level, name, elo.get(level),
         None if mine is None or elo.get(level) is None else round(100 * expected_score(mine, elo[level])))
        for level, name in bot_level_choices(get_language() or "en")
    ]


@register.simple_tag
def member_rating(user: Any) -> int | None:
    """``user``'s rating as the site shows it (``ratings.elo.shown``: a whole number), None when
    ``user`` has none (anonymous, guest, bot)."""
    mine = _member_rating(user)
    return None if mine is None else shown(mine)
