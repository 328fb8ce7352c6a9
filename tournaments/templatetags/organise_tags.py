"""``{% load organise_tags %}``: ``t|organised_by:user``, True when ``user`` organises event ``t``
(``tournaments.access.organises``: its creator, its club's owner and organisers, staff)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import access
from tournaments.models import Tournament

register = template.Library()


@register.filter
def organised_by(tournament: Tournament, user: Any) -> bool:
    return access.organises(tournament, user)
