"""Template tags of the replays app: ``{% spectators_count match.pk %}`` (how many watch it live)."""

from __future__ import annotations

from django import template

from replays.watch import spectators_count as _count

register = template.Library()


@register.simple_tag
def spectators_count(match_id: int) -> int:
    """The number of open spectator sockets on the match (``replays.watch``)."""
    return _count(match_id=int(match_id))
