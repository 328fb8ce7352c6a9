"""``{% load playban_tags %}``: the profile's "Left matches" stat (docs/lobby.md "Playbans").

``{% left_box player %}``: "left N of M rated matches" of a member ``player`` (``lobby.playbans.left_count``:
one query). The profile page belongs to ``ratings``, below ``lobby`` in the layers (docs/architecture.md):
its template shows lobby's part through this tag, as it shows the challenge box (``challenge_tags``).
"""

from __future__ import annotations

from typing import Any

from django import template

from lobby.playbans import left_count

register = template.Library()


@register.inclusion_tag("lobby/_left_box.html")
def left_box(player: Any) -> dict[str, Any]:
    return {"left": left_count(user_id=player.pk)}
