"""``{% load bot_upgrade_tags %}{% bot_upgrade_box user %}``: the tokens page's "Upgrade to a BOT account"
box (the accounts app, below this one, cannot ask whether an account is fresh: ``botapi.upgrade``)."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from botapi.upgrade import is_fresh

register = template.Library()


@register.inclusion_tag("botapi/_upgrade_box.html")
def bot_upgrade_box(user: Any) -> dict[str, Any]:
    """``state``: ``"bot"`` (already a BOT account), ``"fresh"`` (the button), ``"not_fresh"`` (why not),
    or ``None`` (nothing shown: a guest, a house bot, nobody signed in)."""
    if not isinstance(user, User) or user.is_guest or user.is_bot:
        return {"state": None}
    if user.bot_account:
        return {"state": "bot"}
    return {"state": "fresh" if is_fresh(user) else "not_fresh"}
