"""Rankings (``/api/v1/rankings/``): the boards of ``ratings.selectors.board_page``, paginated."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.fields import QueryBoolean
from api.pagination import PageQuery, envelope, no_such_page, paged
from ratings.selectors import TABS, board_page
from web.paging import NoSuchPage

SEARCH_MAX = 50


class RankingsQuery(PageQuery):
    tab = serializers.ChoiceField(
        choices=TABS, default="all", help_text="all (all time) or 30d (players rated in the last 30 days)."
    )
    provisional = QueryBoolean(
        default=False, help_text="Include players with fewer than 10 rated matches."
    )
    q = serializers.CharField(
        max_length=SEARCH_MAX,
        required=False,
        allow_blank=True,
        help_text="Username or display name prefix (ranks stay those of the whole board).",
    )


class RankingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(min_value=1, help_text="Position on this board.")
    username = serializers.CharField()
    name = serializers.CharField()
    rating = serializers.IntegerField(help_text="Current Elo, rounded.")
    rated_matches = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    provisional = serializers.BooleanField()
    change_30d = serializers.IntegerField(
        allow_null=True, help_text="30d tab: rating change in 30 days; null on tab=all."
    )
    wins_30d = serializers.IntegerField(allow_null=True, min_value=0, help_text="30d tab; null on tab=all.")
    losses_30d = serializers.IntegerField(allow_null=True, min_value=0, help_text="30d tab; null on tab=all.")


class RankingsView(ApiView):
    @extend_schema(
        operation_id="rankings",
        parameters=[RankingsQuery],
        responses=paged(RankingRowSerializer),
        tags=["rankings"],
    )
    def get(self, request: Request) -> Response:
        """The rankings of members by Elo: all time, or the last 30 days (house bots: /api/v1/bots/)."""
        query = parse_query(RankingsQuery, request)
        try:
            board = board_page(
                tab=query["tab"],
                provisional=query["provisional"],
                search=query.get("q", ""),
                page=query["page"],
                per_page=query["limit"],
            )
        except NoSuchPage:
            raise no_such_page(query["page"]) from None
        rows = [
            {
                "rank": r["rank"],
                "username": r["username"],
                "name": r["name"],
                "rating": r["rating"],
                "rated_matches": r["rated_matches"],
                "wins": r["wins"],
                "losses": r["losses"],
                "provisional": r["provisional"],
                "change_30d": r.get("change"),
                "wins_30d": r.get("wins_30d"),
                "losses_30d": r.get("losses_30d"),
            }
            for r in board.rows
        ]
        return Response(
            envelope(
                request, board.page, query["limit"], RankingRowSerializer(rows, many=True).data, RankingsQuery
            )
        )
