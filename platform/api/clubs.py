"""Clubs (``/api/v1/clubs/``): the public clubs, and one club with its members' count, its ranking (its
members by site rating) and its upcoming public events.

A club by invitation only (``clubs.models.ClubAccess.INVITE``) is not in the API: not listed, 404 by its
slug, as a slug that does not exist (its members asked for a club others find by link only)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.errors import ApiError
from api.fields import QueryInteger
from api.pagination import PageQuery, envelope, page_of, paged
from api.players import PlayerRefSerializer, player_ref
from api.tournaments import TournamentSerializer, public_events, tournament_data
from clubs.models import Club, ClubAccess, ClubMember
from ratings import elo
from ratings.elo import INITIAL_RATING
from tournaments.models import Tournament, TournamentStatus

RANKING_MAX = 50
UPCOMING_MAX = 20


class ClubSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    members = serializers.IntegerField(min_value=0, help_text="Members, the owner included.")
    created_at = serializers.DateTimeField()


class ClubRankingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(min_value=1, help_text="Position among the club's members.")
    player = PlayerRefSerializer()
    rating = serializers.IntegerField(help_text="Site Elo, rounded (1500 when never rated).")
    role = serializers.CharField(help_text="owner, organiser or member.")


class ClubDetailSerializer(ClubSerializer):
    ranking = ClubRankingRowSerializer(many=True, help_text="The top members by site rating.")
    upcoming = TournamentSerializer(many=True, help_text="Its public events still to start, soonest first.")


class ClubQuery(serializers.Serializer[Any]):
    top = QueryInteger(
        min_value=1, max_value=RANKING_MAX, default=10, help_text=f"Ranking rows, 1 to {RANKING_MAX}."
    )


def _clubs() -> QuerySet[Club]:
    return Club.objects.filter(access=ClubAccess.PUBLIC).annotate(members=Count("memberships"))


def _club_data(club: Club) -> dict[str, Any]:
    return {
        "slug": club.slug,
        "name": club.name,
        "description": club.description,
        "members": club.members,  # type: ignore[attr-defined]  # annotated by _clubs
        "created_at": club.created_at,
    }


class ClubsView(ApiView):
    @extend_schema(
        operation_id="clubs", parameters=[PageQuery], responses=paged(ClubSerializer), tags=["clubs"]
    )
    def get(self, request: Request) -> Response:
        """The public clubs by name (clubs by invitation only are not listed)."""
        query = parse_query(PageQuery, request)
        page = page_of(_clubs().order_by("name", "id"), page=query["page"], limit=query["limit"])
        data = ClubSerializer([_club_data(c) for c in page.object_list], many=True).data
        return Response(envelope(request, page, query["limit"], data))


class ClubView(ApiView):
    @extend_schema(
        operation_id="club", parameters=[ClubQuery], responses=ClubDetailSerializer, tags=["clubs"]
    )
    def get(self, request: Request, slug: str) -> Response:
        """One public club: its members' count, its ranking (the `top` members by site rating; house bots
        are never members) and its public events still to start."""
        query = parse_query(ClubQuery, request)
        club = _clubs().filter(slug=slug).first()
        if club is None:
            raise ApiError(404, "no_such_club", "no such club")
        members = (
            ClubMember.objects.filter(club=club)
            .select_related("user", "user__rating")
            .order_by(F("user__rating__rating").desc(nulls_last=True), "user__username")[: query["top"]]
        )
        ranking = []
        for rank, m in enumerate(members, start=1):
            row = getattr(m.user, "rating", None)
            ranking.append({
                "rank": rank,
                "player": player_ref(m.user),
                "rating": elo.shown(row.rating if row is not None else INITIAL_RATING),
                "role": m.role,
            })
        upcoming = (
            public_events(Tournament.objects.filter(club=club, is_simulation=False))
            .filter(
                status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN), starts_at__gte=timezone.now()
            )
            .select_related("winner")
            .annotate(players=Count("registrations"))
            .order_by("starts_at", "id")[:UPCOMING_MAX]
        )
        data = {**_club_data(club), "ranking": ranking, "upcoming": [tournament_data(t) for t in upcoming]}
        return Response(ClubDetailSerializer(data).data)
