"""``{% load club_events %}``: a club's events on the club's page (docs/tournaments.md "Clubs").

``{% club_events club organises %}``: the tournaments of ``club`` the viewer may see
(``tournaments.access.visible_q``: a club-only event to the club's members, a code event to its players
and organisers and whoever gave its code), in three groups: running, upcoming (scheduled or open),
finished (the latest :data:`FINISHED_SHOWN`); and, for the club's organisers (``organises``), a "Create
an event" link to ``tournaments:create?club=<slug>``. The club page belongs to ``clubs``, below
``tournaments`` in the layers (docs/architecture.md): its template shows tournaments' part through this tag.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import template
from django.urls import NoReverseMatch, reverse

from tournaments.access import unlocked, visible_q
from tournaments.models import Tournament, TournamentStatus

register = template.Library()

UPCOMING_SHOWN = 20
FINISHED_SHOWN = 10


def create_url(slug: str) -> str:
    """The page creating an event for club ``slug`` (``tournaments:create``, or its path while that URL
    name is not routed yet)."""
    try:
        base = reverse("tournaments:create")
    except NoReverseMatch:
        base = "/tournaments/new/"
    return f"{base}?{urlencode({'club': slug})}"


@register.inclusion_tag("tournaments/_club_events.html", takes_context=True)
def club_events(context: Any, club: Any, organises: bool = False) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    events = Tournament.objects.filter(club=club)
    if user is not None:
        events = events.filter(visible_q(user, unlocked(session))).distinct()
    else:
        events = events.none()
    return {
        "running": list(events.filter(status=TournamentStatus.RUNNING).order_by("starts_at", "id")),
        "upcoming": list(events.filter(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN))
                         .order_by("starts_at", "id")[:UPCOMING_SHOWN]),
        "finished": list(events.filter(status=TournamentStatus.FINISHED).order_by("-starts_at", "-id")
                         [:FINISHED_SHOWN]),
        "create_url": create_url(club.slug) if organises else None,
    }
