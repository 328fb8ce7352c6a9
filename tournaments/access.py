"""Who may see and who may run an event (issue 26, docs/tournaments.md "Events people make").

- A **public** event (``access`` public, every scheduled daily event) is seen by everyone.
- A **private** event (``access`` club or code) is seen, with its pairings, standings, exports and its
  matches' replays, only by its players (registered), its organisers (its creator, the organisers and
  owner of its club), staff, and: for a club event, the club's members; for a code event, whoever has
  entered the right code in this session (``unlocked``: the event ids of ``request.session[CODES_KEY]``).
  Everyone else is answered as if the event did not exist (404), as a live match's table is.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from accounts.models import User
from clubs.models import ClubMember, ClubRole
from tournaments.models import Tournament, TournamentAccess

CODES_KEY = "tournament_codes"
"""Session key: the ids of the code events whose entry code this session has given (a list of ints)."""


def unlocked(session: Any) -> set[int]:
    """The code events this session unlocked (``session[CODES_KEY]``; anything malformed counts as none)."""
    raw = session.get(CODES_KEY) if session is not None else None
    if not isinstance(raw, list):
        return set()
    return {x for x in raw if isinstance(x, int) and not isinstance(x, bool)}


def unlock(session: Any, tournament_id: int) -> None:
    """Remember that this session gave ``tournament_id``'s entry code."""
    ids = unlocked(session)
    ids.add(tournament_id)
    session[CODES_KEY] = sorted(ids)


def is_private(tournament: Tournament) -> bool:
    return tournament.access != TournamentAccess.PUBLIC


def organises(tournament: Tournament, user: User | AnonymousUser) -> bool:
    """True for the event's creator, its club's owner and organisers, and staff."""
    if not user.is_authenticated:
        return False
    if user.is_staff or (tournament.created_by_id is not None and tournament.created_by_id == user.pk):
        return True
    return tournament.club_id is not None and ClubMember.objects.filter(
        club_id=tournament.club_id, user_id=user.pk, role__in=(ClubRole.OWNER, ClubRole.ORGANISER)).exists()


def may_view(tournament: Tournament, user: User | AnonymousUser, codes: Collection[int] = ()) -> bool:
    """May ``user`` (with the code events ``codes`` unlocked in this session) see ``tournament``?"""
    if not is_private(tournament) or tournament.pk in codes:
        return True
    if not user.is_authenticated:
        return False
    if organises(tournament, user) or tournament.registrations.filter(user_id=user.pk).exists():
        return True
    return tournament.access == TournamentAccess.CLUB and tournament.club_id is not None and (
        ClubMember.objects.filter(club_id=tournament.club_id, user_id=user.pk).exists())


def visible_q(user: User | AnonymousUser, codes: Collection[int] = ()) -> Q:
    """A ``Tournament`` filter: the events :func:`may_view` allows (use ``.distinct()`` after it)."""
    q = Q(access=TournamentAccess.PUBLIC) | Q(pk__in=list(codes))
    if user.is_authenticated:
        if user.is_staff:
            return Q()
        q |= Q(created_by_id=user.pk) | Q(registrations__user_id=user.pk)
        q |= Q(club__memberships__user_id=user.pk,
               club__memberships__role__in=(ClubRole.OWNER, ClubRole.ORGANISER))
        q |= Q(access=TournamentAccess.CLUB, club__memberships__user_id=user.pk)
    return q
