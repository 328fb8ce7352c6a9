"""Players: a profile with its rating, its rating history, its finished matches (``/api/v1/players/``).

Guests have no public profile (404, as on the site). Reads reuse ``ratings.selectors`` (rating, rank,
record, history) and ``games.selectors.matches_finished_of``; a match is listed when the reader may open
its replay without a token (``replays.selectors.watchable_q``: public matches, and the reader's own).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.selectors import player_get
from api.base import ApiView, parse_query
from api.errors import ApiError
from api.fields import QueryBoolean
from api.pagination import PageQuery, envelope, page_of, paged
from games.selectors import MATCH_RESULTS, OPPONENT_KINDS, matches_finished_of
from ratings import elo
from ratings.selectors import (
    bot_record_get,
    history_of,
    public_name_of,
    rank_get,
    rating_get,
    record_get,
)
from replays.selectors import watchable_q

# ------------------------------------------------------------------------------------------ shapes


class PlayerRefSerializer(serializers.Serializer[Any]):
    """A player as other resources name them."""

    username = serializers.CharField(allow_null=True, help_text="None for a guest (guests have no profile).")
    name = serializers.CharField(help_text="Display name (a house bot's level name).")
    is_bot = serializers.BooleanField()
    bot_level = serializers.IntegerField(allow_null=True, min_value=1, max_value=5)
    bot_account = serializers.BooleanField(
        help_text="A BOT account: a program playing through the bot API (docs/bot-api.md); never a house bot."
    )


def player_ref(user: User | None) -> dict[str, Any] | None:
    """:class:`PlayerRefSerializer` data of ``user`` (None stays None)."""
    if user is None:
        return None
    return {
        "username": None if user.is_guest else user.username,
        "name": user.public_name,
        "is_bot": user.is_bot,
        "bot_level": user.bot_level,
        "bot_account": bool(user.bot_account),
    }


class WinsLossesSerializer(serializers.Serializer[Any]):
    wins = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)


class RecordSerializer(serializers.Serializer[Any]):
    """Rated results by opponent type."""

    members = WinsLossesSerializer()
    bots = WinsLossesSerializer()


class PlayerSerializer(serializers.Serializer[Any]):
    """A player's profile (docs/ratings.md): ratings in whole Elo points as shown on the site."""

    username = serializers.CharField()
    name = serializers.CharField()
    is_bot = serializers.BooleanField()
    bot_level = serializers.IntegerField(allow_null=True, min_value=1, max_value=5)
    bot_account = serializers.BooleanField(
        help_text="A BOT account (docs/bot-api.md): ranked on rankings/bots/, not on the people's."
    )
    rating = serializers.IntegerField(help_text="Current Elo, rounded (a house bot's is fixed).")
    rating_exact = serializers.FloatField(help_text="Current Elo, exact: the stored value, never rounded.")
    peak = serializers.IntegerField(help_text="Highest rating so far, rounded.")
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated matches (a house bot: never).")
    rated_matches = serializers.IntegerField(
        min_value=0, help_text="Rated matches played (a house bot: its rated matches against members)."
    )
    wins = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    rank = serializers.IntegerField(
        allow_null=True, min_value=1,
        help_text="Position on the all-time board; None while provisional, and for a BOT account.",
    )
    record = RecordSerializer(help_text="A house bot's bots count is always 0-0 (bot matches are not rated).")
    joined = serializers.DateTimeField(allow_null=True, help_text="None for a house bot.")


class RatingChangeSerializer(serializers.Serializer[Any]):
    """One rated match of the player (their side of it)."""

    match_id = serializers.IntegerField()
    at = serializers.DateTimeField(help_text="When the match was rated.")
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    change = serializers.IntegerField(help_text="after - before as shown (rounded values).")
    delta = serializers.FloatField(help_text="Exact change in Elo points: the stored value, never rounded.")
    k = serializers.IntegerField(help_text="K-factor used.")
    won = serializers.BooleanField()
    opponent = PlayerRefSerializer()
    opponent_rating = serializers.IntegerField(help_text="The opponent's rating before the match, rounded.")


class MatchSummarySerializer(serializers.Serializer[Any]):
    """A finished match from one player's side."""

    id = serializers.IntegerField()
    preset = serializers.CharField(help_text="Rule preset (docs/rules.md).")
    target = serializers.IntegerField(allow_null=True, help_text="Points to win the match.")
    rated = serializers.BooleanField()
    tournament_id = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    players = PlayerRefSerializer(many=True, help_text="Seat 0 then seat 1.")
    scores = serializers.ListField(
        child=serializers.IntegerField(), help_text="Final points, [seat 0, seat 1]."
    )
    winner = serializers.IntegerField(allow_null=True, min_value=0, max_value=1, help_text="Winning seat.")
    seat = serializers.IntegerField(min_value=0, max_value=1, help_text="This player's seat.")
    result = serializers.ChoiceField(choices=MATCH_RESULTS, help_text="This player's result.")
    result_reason = serializers.CharField(allow_null=True, help_text="target, resign, timeout or left.")
    replay = serializers.URLField(help_text="Its replay file (GET /api/v1/matches/{id}/replay/).")


class MatchesQuery(PageQuery):
    result = serializers.ChoiceField(choices=MATCH_RESULTS, required=False, help_text="This player's result.")
    opponent = serializers.ChoiceField(
        choices=OPPONENT_KINDS, required=False, help_text="member (a person) or bot (a house bot)."
    )
    rated = QueryBoolean(required=False)
    tournament = QueryBoolean(required=False, help_text="Played for a tournament.")


# ------------------------------------------------------------------------------------------ views


def _player(username: str) -> User:
    user = player_get(username=username)
    if user is None:
        raise ApiError(404, "no_such_player", "no such player")
    return user


class PlayerView(ApiView):
    @extend_schema(operation_id="player", responses=PlayerSerializer, tags=["players"])
    def get(self, request: Request, username: str) -> Response:
        """A member's or a house bot's profile: rating, rank, record. Username ignoring case."""
        user = _player(username)
        info = rating_get(user=user)
        data = {
            "username": user.username,
            "name": user.public_name,
            "is_bot": user.is_bot,
            "bot_level": user.bot_level,
            "bot_account": bool(user.bot_account),
            "rating": info.shown,
            "rating_exact": float(info.rating),
            "peak": elo.shown(info.peak),
            "provisional": info.provisional,
            "rated_matches": info.rated_matches,
            "wins": info.wins,
            "losses": info.losses,
            "rank": None,
            "record": None,
            "joined": None,
        }
        if user.is_bot:
            # A bot's RatingInfo has no counts of its own (its rating is fixed): its real record comes from
            # its opponents' rating changes. Never provisional, never ranked.
            record = bot_record_get(user_id=user.pk)
            (wins, losses) = record["members"]
            data.update(rated_matches=wins + losses, wins=wins, losses=losses, provisional=False)
        else:
            record = record_get(user_id=user.pk)
            data["rank"] = rank_get(user_id=user.pk) if not info.provisional else None
            data["joined"] = user.date_joined
        data["record"] = {kind: {"wins": w, "losses": lost} for kind, (w, lost) in record.items()}
        return Response(PlayerSerializer(data).data)


class PlayerRatingsView(ApiView):
    @extend_schema(
        operation_id="player_ratings",
        parameters=[PageQuery],
        responses=paged(RatingChangeSerializer),
        tags=["players"],
    )
    def get(self, request: Request, username: str) -> Response:
        """A member's rating history, newest first (a house bot's is empty: its rating is fixed; its
        rated matches are in its match list). The matches of a private event are listed to the member
        only."""
        query = parse_query(PageQuery, request)
        user = _player(username)
        changes = history_of(user_id=user.pk)
        if not (request.user.is_authenticated and request.user.pk == user.pk):
            changes = changes.exclude(match__private_event=True)  # a private event's: its players' own
        page = page_of(changes, page=query["page"], limit=query["limit"])
        rows = [
            {
                "match_id": c["match_id"],
                "at": c["created_at"],
                "before": elo.shown(c["before"]),
                "after": elo.shown(c["after"]),
                "change": elo.shown_change(c["before"], c["after"]),
                "delta": float(c["delta"]),
                "k": c["k"],
                "won": c["won"],
                "opponent": {
                    "username": None if c["opponent__is_guest"] else c["opponent__username"],
                    "name": public_name_of(c),
                    "is_bot": bool(c["opponent__is_bot"]),
                    "bot_level": c["opponent__bot_level"],
                    "bot_account": bool(c["opponent__bot_account"]),
                },
                "opponent_rating": elo.shown(c["opponent_rating"]),
            }
            for c in page.object_list
        ]
        return Response(envelope(request, page, query["limit"], RatingChangeSerializer(rows, many=True).data))


class PlayerMatchesView(ApiView):
    @extend_schema(
        operation_id="player_matches",
        parameters=[MatchesQuery],
        responses=paged(MatchSummarySerializer),
        tags=["players"],
    )
    def get(self, request: Request, username: str) -> Response:
        """A player's finished matches, newest first: the public ones (tournament, rated, a member's bot
        matches, made public), and all of your own when you are logged in as one of the players."""
        query = parse_query(MatchesQuery, request)
        user = _player(username)
        viewer = request.user.pk if request.user.is_authenticated else None
        matches = matches_finished_of(
            user_id=user.pk,
            result=query.get("result"),
            opponent=query.get("opponent"),
            rated=query.get("rated"),
            tournament=query.get("tournament"),
        ).filter(watchable_q(viewer_id=viewer))
        page = page_of(matches, page=query["page"], limit=query["limit"])
        rows = []
        for m in page.object_list:
            seat = m.seat_of(user.pk)
            rows.append(
                {
                    "id": m.pk,
                    "preset": m.preset,
                    "target": m.rules.get("target"),
                    "rated": m.rated,
                    "tournament_id": m.tournament_id,
                    "started_at": m.started_at,
                    "finished_at": m.finished_at,
                    "players": [player_ref(m.player0), player_ref(m.player1)],
                    "scores": list(m.scores or [0, 0]),
                    "winner": m.winner,
                    "seat": seat,
                    "result": "won" if m.winner == seat else "lost",
                    "result_reason": m.result_reason or None,
                    "replay": request.build_absolute_uri(reverse("api:match_replay", args=[m.pk])),
                }
            )
        data = MatchSummarySerializer(rows, many=True).data
        return Response(envelope(request, page, query["limit"], data, MatchesQuery))
