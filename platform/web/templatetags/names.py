"""``{% load names %}``: a player's name, bounded wherever it is shown.

Usernames may be 150 characters without a space; a name is always drawn inside
``<span class="player-name" title="full name">``, which web/site.css cuts with an ellipsis, so a long
name never pushes a page (or the table) out of shape and the full name stays on hover.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def player_name(name: object) -> SafeString:
    """``<span class="player-name" title="name">name</span>`` (escaped; ``""`` for an empty name)."""
    if name is None or name == "":
        return SafeString("")
    return format_html('<span class="player-name" title="{}">{}</span>', name, name)
