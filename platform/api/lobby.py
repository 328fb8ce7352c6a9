"""The lobby's public reads (issue 21): ``/api/v1/pools/`` (quick-pairing pools with their waiting counts)
and ``/api/v1/lobby/seeks/`` (the open challenges of the lobby). Nothing private: no account data beyond
a player's public name and username, no rating range of a person (only the seek's own bounds), nothing
about who accepted what."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.pagination import PageQuery, envelope, page_of, paged
from api.players import PlayerRefSerializer, player_ref
from lobby.labels import pool_label
from lobby.models import EntryStatus, Pool, Seek, SeekStatus
from ratings import elo


class PoolSerializer(serializers.Serializer[Any]):
    slug = serializers.SlugField(help_text="Its address: /play/pool/<slug>/ joins it.")
    name = serializers.CharField(help_text="Its label, in English: what it plays, e.g. \"50 points · 20 s a"
                                 " move · Rated\" (the pages show the same label in the reader's language).")
    target = serializers.IntegerField(help_text="Points to win the match (50 or 100).")
    turn_timer_seconds = serializers.IntegerField(min_value=1, help_text="Seconds per move.")
    rated = serializers.BooleanField(help_text="Rated pools move Elo; guests join casual pools only.")
    rules_preset = serializers.CharField(help_text="Always classic.")
    waiting = serializers.IntegerField(min_value=0, help_text="Players waiting in it now.")


class PoolsView(ApiView):
    @extend_schema(operation_id="pools", parameters=[PageQuery], responses=paged(PoolSerializer),
                   tags=["lobby"])
    def get(self, request: Request) -> Response:
        """The quick-pairing pools open now, in the site's order, each with how many players wait in it
        (docs/lobby.md "Pools"). The BOT pool is not listed (docs/bot-api.md: BOT accounts find it
        there). Two queries."""
        query = parse_query(PageQuery, request)
        waiting = Count("entries", filter=Q(entries__status=EntryStatus.WAITING))
        pools = (Pool.objects.filter(active=True, bots_only=False).annotate(waiting=waiting)
                 .order_by("position", "pk"))
        page = page_of(pools, page=query["page"], limit=query["limit"])
        rows = [{"slug": p.slug, "name": pool_label(p, "en"), "target": p.target,
                 "turn_timer_seconds": p.turn_timer_seconds, "rated": p.rated, "rules_preset": "classic",
                 "waiting": p.waiting} for p in page.object_list]
        return Response(envelope(request, page, query["limit"], PoolSerializer(rows, many=True).data))


class SeekSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    creator = PlayerRefSerializer()
    creator_rating = serializers.IntegerField(help_text="The creator's rating when they opened it, rounded.")
    preset = serializers.CharField(help_text="Rule preset (docs/rules.md).")
    target = serializers.IntegerField(help_text="Points to win the match.")
    turn_timer_seconds = serializers.IntegerField(allow_null=True,
                                                  help_text="Seconds per move; None: no timer.")
    rated = serializers.BooleanField()
    rating_min = serializers.IntegerField(allow_null=True,
                                          help_text="Lowest rating that may accept; None: any.")
    rating_max = serializers.IntegerField(allow_null=True,
                                          help_text="Highest rating that may accept; None: any.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="It closes by itself then if nobody accepted it.")


class SeeksView(ApiView):
    @extend_schema(operation_id="lobby_seeks", parameters=[PageQuery], responses=paged(SeekSerializer),
                   tags=["lobby"])
    def get(self, request: Request) -> Response:
        """The lobby's open challenges (``/lobby/``), newest first: open and not yet expired. Two queries."""
        query = parse_query(PageQuery, request)
        seeks = (Seek.objects.filter(status=SeekStatus.OPEN, expires_at__gt=timezone.now())
                 .select_related("creator").order_by("-created_at", "-id"))
        page = page_of(seeks, page=query["page"], limit=query["limit"])
        rows = [{
            "id": s.pk, "creator": player_ref(s.creator), "creator_rating": elo.shown(s.creator_rating),
            "preset": s.preset, "target": s.target, "turn_timer_seconds": s.turn_timer_seconds,
            "rated": s.rated,
            "rating_min": s.rating_min, "rating_max": s.rating_max, "created_at": s.created_at,
            "expires_at": s.expires_at,
        } for s in page.object_list]
        return Response(envelope(request, page, query["limit"], SeekSerializer(rows, many=True).data))
