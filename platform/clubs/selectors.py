"""Club reads (HackSoft selectors): the lists of clubs, a club's members and its own ranking.

The ranking orders a club's members by their site rating (``ratings.PlayerRating``), as the public
rankings do (``ratings.selectors``): only members with at least one rated match; hidden players
(``PlayerRating.hidden``: marked or closed for a fair-play violation) are left out, counted nowhere and
given no rank; provisional players (fewer than 10 rated matches) are ranked and marked as such. Ties:
the earlier account first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, Count, IntegerField, QuerySet, Value, When
from django.db.models.functions import Lower

from accounts.models import User
from clubs.models import Club, ClubAccess, ClubMember, ClubRole
from ratings import elo
from ratings.models import PlayerRating
from web.text import control_characters

SEARCH_MAX = 60
"""A name search longer than a club's longest name finds nothing: it is cut here."""
LIST_LIMIT = 50


def club_get(*, slug: str) -> Club | None:
    """The club of ``slug``, or None."""
    return Club.objects.filter(slug=slug).first()


def club_by_code(*, code: str) -> Club | None:
    """The club whose current invitation code is ``code``, or None (a renewed code finds nothing)."""
    if not code or len(code) > 40:
        return None
    return Club.objects.filter(invite_code=code).first()


def clubs_public(*, search: str = "", limit: int = LIST_LIMIT) -> QuerySet[Club]:
    """Public clubs whose name contains ``search`` (case ignored; "" = all; one with a control character
    finds none), most members first, then by name; each with ``members`` (its member count)."""
    qs = Club.objects.filter(access=ClubAccess.PUBLIC)
    search = search.strip()[:SEARCH_MAX]
    if control_characters(search):  # no name holds one (and PostgreSQL refuses a NUL in a query)
        return qs.none()
    if search:
        qs = qs.filter(name__icontains=search)
    return qs.annotate(members=Count("memberships")).order_by("-members", Lower("name"), "id")[:limit]


def clubs_of(*, user: User) -> list[ClubMember]:
    """``user``'s memberships (each with its ``club`` and the club's ``members`` count on
    ``membership.club_members``), by the club's name."""
    if not user.is_authenticated:
        return []
    rows = list(ClubMember.objects.filter(user_id=user.pk).select_related("club")
                .order_by(Lower("club__name")))
    counts = dict(ClubMember.objects.filter(club_id__in=[r.club_id for r in rows]).values("club_id")
                  .annotate(n=Count("id")).values_list("club_id", "n"))
    for row in rows:
        row.club_members = counts.get(row.club_id, 0)  # type: ignore[attr-defined]
    return rows


def membership_of(*, club: Club, user: User) -> ClubMember | None:
    """``user``'s membership of ``club``, or None (anonymous users included)."""
    if not user.is_authenticated:
        return None
    return ClubMember.objects.filter(club=club, user_id=user.pk).first()


def member_count(*, club: Club) -> int:
    return ClubMember.objects.filter(club=club).count()


ROLE_ORDER = Case(When(role=ClubRole.OWNER, then=Value(0)), When(role=ClubRole.ORGANISER, then=Value(1)),
                  default=Value(2), output_field=IntegerField())


def members_of(*, club: Club) -> QuerySet[ClubMember]:
    """The club's members with their users: the owner, the organisers, then the members, each group by
    joining order."""
    return (ClubMember.objects.filter(club=club).select_related("user")
            .order_by(ROLE_ORDER, "joined_at", "id"))


@dataclass(frozen=True, slots=True)
class RankRow:
    """One line of a club's ranking: ``rank`` (1..), the member, ``rating`` exact and ``shown`` (whole
    points), ``rated_matches``, ``provisional`` (fewer than 10 rated matches)."""

    rank: int
    user: User
    rating: float
    rated_matches: int

    @property
    def shown(self) -> int:
        return elo.shown(self.rating)

    @property
    def provisional(self) -> bool:
        return elo.is_provisional(self.rated_matches)


def club_ranking(*, club: Club) -> list[RankRow]:
    """The club's members by site rating, highest first (ties: the earlier account), hidden players
    left out, members never rated left out (see :func:`unrated_count`). One query."""
    rows = (PlayerRating.objects.filter(user__club_memberships__club=club, rated_matches__gt=0, hidden=False)
            .select_related("user").order_by("-rating", "user_id"))
    return [RankRow(rank=i, user=r.user, rating=r.rating, rated_matches=r.rated_matches)
            for i, r in enumerate(rows, start=1)]


def unrated_count(*, club: Club) -> int:
    """How many of the club's members have no rated match yet (hidden players not counted)."""
    return (ClubMember.objects.filter(club=club)
            .exclude(user__rating__rated_matches__gt=0).count())
