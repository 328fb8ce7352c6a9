"""Who may see and who may run an event (issue 26, docs/tournaments.md "Events people make").

- A **public** event (``access`` public, every scheduled daily event) is seen by everyone.
- A **private** event (``access`` club or code) is seen, with its pairings, standings, exports and its
  matches' replays, only by its players (registered), its organisers (its creator, the organisers and
  owner of its club), staff, and: for a club event, the club's members; for a code event, whoever has
  entered the right code in this session (``unlocked``: the event ids of ``request.session[CODES_KEY]``).
  Everyone else is answered as if the event did not exist (404), as a live match's table is.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse

from accounts.models import User
from clubs.models import ClubMember, ClubRole
from tournaments.models import ArenaGame, Pairing, Tournament, TournamentAccess, TournamentStatus

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


def viewer_may_see(tournament: Tournament, user: User | AnonymousUser, session: Any) -> bool:
    """:func:`may_view` for a request's or socket's ``user`` and ``session`` (its unlocked codes)."""
    return may_view(tournament, user, unlocked(session))


def share_link(request: HttpRequest, tournament: Tournament) -> str:
    """The address an organiser sends, absolute: ``https://host/tournaments/<id>/``, and for a code event
    ``...?code=<code>`` (URL-encoded), which unlocks the event for whoever opens it
    (``views.tournament_detail``) and then drops the code from the address."""
    url = request.build_absolute_uri(reverse("tournaments:detail", args=[tournament.pk]))
    if tournament.access == TournamentAccess.CODE and tournament.entry_code:
        url += "?" + urlencode({"code": tournament.entry_code})
    return url


MAX_CODE_LENGTH = 40
"""``Tournament.entry_code``'s length: a longer code given is never anyone's."""
CODE_SEARCH_STATUSES = (TournamentStatus.SCHEDULED, TournamentStatus.OPEN, TournamentStatus.RUNNING)
"""The code form (``/tournaments/code/``) finds the code events still to come or running only."""


def code_matches(given: object, tournament: Tournament) -> bool:
    """Whether ``given`` (from a request: maybe None, not a string, empty, with a NUL) is ``tournament``'s
    entry code: a code event's only (``access`` code), compared exactly (case and spaces count) in
    constant time (``hmac.compare_digest``), so an answer's time tells nothing of how much was right."""
    stored = tournament.entry_code
    if tournament.access != TournamentAccess.CODE or not stored:
        return False
    if not isinstance(given, str) or not given or len(given) > MAX_CODE_LENGTH or "\x00" in given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), stored.encode("utf-8"))


def events_with_code(given: str) -> list[Tournament]:
    """The code events still to come or running (:data:`CODE_SEARCH_STATUSES`) whose entry code is
    ``given`` (:func:`code_matches`): none, one, or (two events sharing a code) several.

    Every candidate is compared in constant time rather than filtered by the code in SQL, so the time
    the answer takes does not depend on whether some code starts like ``given``. The candidates are the
    few events open or running at once (a handful to some hundreds)."""
    candidates = Tournament.objects.filter(access=TournamentAccess.CODE, status__in=CODE_SEARCH_STATUSES)
    return [t for t in candidates.order_by("starts_at", "id") if code_matches(given, t)]


def event_of_match(match_id: int) -> Tournament | None:
    """The event whose Swiss pairing or Arena game played match ``match_id``, or None."""
    tournament_id = (Pairing.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True)
                     .first())
    if tournament_id is None:
        tournament_id = (ArenaGame.objects.filter(match_id=match_id).values_list("tournament_id", flat=True)
                         .first())
    return None if tournament_id is None else Tournament.objects.filter(pk=tournament_id).first()
