"""House bots (``/api/v1/bots/``): every level with its fixed Elo (``ratings.selectors.bots_board``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView
from engine.bots.base import LEVELS
from ratings.selectors import bots_board


class BotSerializer(serializers.Serializer[Any]):
    level = serializers.IntegerField(min_value=1, max_value=5, help_text="1 (weakest) to 5.")
    username = serializers.CharField()
    name = serializers.CharField()
    strength = serializers.CharField(help_text="The level's name, e.g. Beginner.")
    description = serializers.CharField(help_text="How it plays.")
    rating = serializers.IntegerField(help_text="Calibrated Elo (data/bot_elo.json), fixed.")


class BotsSerializer(serializers.Serializer[Any]):
    results = BotSerializer(many=True)


class BotsView(ApiView):
    @extend_schema(operation_id="bots", responses=BotsSerializer, tags=["bots"])
    def get(self, request: Request) -> Response:
        """The house bots, weakest first, with the Elo they play at (their ratings never change)."""
        rows = [
            {**bot, "strength": LEVELS[bot["level"]].name_en, "description": LEVELS[bot["level"]].summary}
            for bot in bots_board()
        ]
        return Response(BotsSerializer({"results": rows}).data)
