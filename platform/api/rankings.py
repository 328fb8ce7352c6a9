"""Rankings: the people's boards of ``ratings.selectors.board_page`` (``/api/v1/rankings/``) and the BOT
ranking of ``ratings.selectors.bot_board`` (``/api/v1/rankings/bots/``), paginated.

Two endpoints rather than one with a ``board`` switch: the BOT ranking has no 30-day tab and no name
search, and a query schema cannot say "tab only with board=people", so a schema-valid request would
have met a 400 (schemathesis found it)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.fields import QueryBoolean
from api.pagination import PageQuery, envelope, no_such_page, page_of, paged
from ratings.selectors import TABS, board_page, bot_board
from web.paging import NoSuchPage

SEARCH_MAX = 50
BOT_ROW_KEYS = ("rank", "username", "name", "rating", "rated_matches", "wins", "losses", "provisional",
                "bot_account", "anchor", "house_bot_level")


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
    rank = serializers.IntegerField(
        min_value=1, allow_null=True,
        help_text="Position on this board (the BOT ranking: among the BOT accounts; null for an anchor).",
    )
    username = serializers.CharField()
    name = serializers.CharField()
    rating = serializers.IntegerField(help_text="Current Elo, rounded (an anchor's fixed Elo).")
    rated_matches = serializers.IntegerField(min_value=0, allow_null=True, help_text="Null for an anchor.")
    wins = serializers.IntegerField(min_value=0, allow_null=True, help_text="Null for an anchor.")
    losses = serializers.IntegerField(min_value=0, allow_null=True, help_text="Null for an anchor.")
    provisional = serializers.BooleanField()
    bot_account = serializers.BooleanField(help_text="A BOT account (a program playing through the bot API).")
    anchor = serializers.BooleanField(help_text="The BOT ranking: a house bot standing at its fixed Elo.")
    house_bot_level = serializers.IntegerField(
        allow_null=True, min_value=1, max_value=5, help_text="An anchor's level (1-5); else null."
    )
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
        """The rankings of members by Elo: all time, or the last 30 days (house bots: /api/v1/bots/;
        BOT accounts: /api/v1/rankings/bots/)."""
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
                "bot_account": False,
                "anchor": False,
                "house_bot_level": None,
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


class BotRankingsView(ApiView):
    @extend_schema(
        operation_id="bot_rankings",
        parameters=[PageQuery],
        responses=paged(RankingRowSerializer),
        tags=["rankings"],
    )
    def get(self, request: Request) -> Response:
        """The BOT ranking (docs/bot-api.md): the BOT accounts by Elo, provisional ones included and
        marked, with the house bots interleaved as anchors at their fixed Elo (``anchor`` true,
        ``house_bot_level``; ``rank`` and the counts null). All time only; the 30-day fields are null."""
        query = parse_query(PageQuery, request)
        page = page_of(bot_board(), page=query["page"], limit=query["limit"])
        bots = [
            {key: r[key] for key in BOT_ROW_KEYS} | {"change_30d": None, "wins_30d": None, "losses_30d": None}
            for r in page.object_list
        ]
        return Response(envelope(request, page, query["limit"], RankingRowSerializer(bots, many=True).data,
                                 PageQuery))
