"""House bots (``/api/v1/bots/``): every level with its fixed Elo (``ratings.selectors.bots_board``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.pagination import PageQuery, envelope, page_of, paged
from engine.bots.base import LEVELS
from ratings.selectors import bots_board


class BotSerializer(serializers.Serializer[Any]):
    level = serializers.IntegerField(min_value=1, max_value=5, help_text="1 (weakest) to 5.")
    username = serializers.CharField()
    name = serializers.CharField()
    strength = serializers.CharField(help_text="The level's name, e.g. Beginner.")
    description = serializers.CharField(help_text="How it plays.")
    rating = serializers.IntegerField(help_text="Calibrated Elo (data/bot_elo.json), fixed.")


class BotsView(ApiView):
    @extend_schema(operation_id="bots", parameters=[PageQuery], responses=paged(BotSerializer), tags=["bots"])
    def get(self, request: Request) -> Response:
        """The house bots, weakest first, with the Elo they play at (their ratings never change); the
        list shape of every list (``page``, ``limit``)."""
        query = parse_query(PageQuery, request)
        page = page_of(bots_board(), page=query["page"], limit=query["limit"])
        rows = [
            {**bot, "strength": LEVELS[bot["level"]].name_en, "description": LEVELS[bot["level"]].summary}
            for bot in page.object_list
        ]
        return Response(envelope(request, page, query["limit"], BotSerializer(rows, many=True).data))
