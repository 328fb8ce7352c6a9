"""``{% load organise_tags %}``: ``t|organised_by:user``, True when ``user`` organises event ``t``
(``tournaments.access.organises``: its creator, its club's owner and organisers, staff);
``t|share_link:request``, the address to send (``tournaments.access.share_link``: with ``?code=`` for a
code event)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import access
from tournaments.models import Tournament

register = template.Library()


@register.filter
def organised_by(tournament: Tournament, user: Any) -> bool:
    return access.organises(tournament, user)


@register.filter
def share_link(tournament: Tournament, request: Any) -> str:
    return access.share_link(request, tournament)
