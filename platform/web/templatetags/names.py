"""``{% load names %}``: a player's name, bounded wherever it is shown.

Usernames may be 150 characters without a space; a name is always drawn inside
``<span class="player-name" title="full name">``, which web/site.css cuts with an ellipsis, so a long
name never pushes a page (or the table) out of shape and the full name stays on hover.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

register = template.Library()


@register.filter
def player_name(name: object) -> SafeString:
    """``<span class="player-name" title="name">name</span>`` (escaped; ``""`` for an empty name)."""
    if name is None or name == "":
        return SafeString("")
    return format_html('<span class="player-name" title="{}">{}</span>', name, name)


def _is_bot_account(who: object) -> bool:
    """Whether ``who`` (a user, a dict with ``bot_account``, or a bool) is a BOT account."""
    if isinstance(who, bool):
        return who
    if isinstance(who, dict):
        return bool(who.get("bot_account"))
    return bool(getattr(who, "bot_account", False))


@register.filter
def bot_badge(who: object) -> SafeString:
    """`` <span class="bot-badge" title="...">BOT</span>`` after a BOT account's name (docs/bot-api.md:
    a program playing through the bot API is marked BOT wherever its name shows); ``""`` for anyone
    else. ``who``: a user (``bot_account``), a row dict with ``"bot_account"``, or a bool."""
    if not _is_bot_account(who):
        return SafeString("")
    return format_html(' <span class="bot-badge" title="{}">BOT</span>',
                       gettext("BOT account: a program playing through the bot API"))


@register.filter
def user_name(user: object) -> SafeString:
    """A user's public name (:func:`player_name`) followed by its BOT badge (:func:`bot_badge`):
    ``{{ user|user_name }}`` wherever a user object's name shows."""
    return format_html("{}{}", player_name(getattr(user, "public_name", "")), bot_badge(user))
