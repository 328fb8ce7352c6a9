"""Tournaments (``/api/v1/tournaments/``): the list by status (and a calendar window ``from``/``to``),
one tournament with its rounds, its standings (``tournaments.selectors.standings_of``: score and
tie-breaks; an Arena's as on its page, ``tournaments.arena_play.arena_rows``) and a round's pairings.

The API is read-only: a private event (``access`` club or code, ``tournaments.access``) is never
listed, and to anyone its page refuses (``access.viewer_may_see``: the request's user and session) it is
answered 404 on every endpoint, as an id that does not exist."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, parse_query
from api.errors import ApiError
from api.fields import QueryBoolean
from api.pagination import PageQuery, envelope, page_of, paged
from api.players import PlayerRefSerializer, player_ref
from games.models import MatchStatus
from ratings import elo
from tournaments.access import viewer_may_see
from tournaments.arena_play import arena_rows
from tournaments.models import (
    RoundStatus,
    Tournament,
    TournamentAccess,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.selectors import pairings_of, rounds_of, standings_of, tournaments_by_status


class TournamentsQuery(PageQuery):
    status = serializers.ChoiceField(
        choices=TournamentStatus.choices, required=False, help_text="Only tournaments in this state."
    )
    simulations = QueryBoolean(
        required=False,
        help_text="true: include the simulations (manage.py tournament_simulate, is_simulation); "
        "left out by default.",
    )
    kind = serializers.ChoiceField(
        choices=TournamentFormat.choices,
        required=False,
        help_text="Only Swiss or only Arena events (the events' `format`; `?format=` is left alone, as "
        "any unknown parameter).",
    )
    club = serializers.SlugField(
        max_length=60, required=False, help_text="Only the events of this club (its slug)."
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # "from" is a Python keyword: the calendar window's fields are added by name here.
        fields = super().get_fields()
        fields["from"] = serializers.DateTimeField(
            required=False,
            help_text="Calendar: events starting at or after this time (ISO 8601: 2026-12-07T00:00:00Z).",
        )
        fields["to"] = serializers.DateTimeField(
            required=False,
            help_text="Calendar: events starting before this time (a `to` not after `from`: an empty window, "
            "no event).",
        )
        return fields


class ClubRefSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="English name.")
    name_pt = serializers.CharField(help_text="Brazilian Portuguese name.")
    status = serializers.ChoiceField(choices=TournamentStatus.choices)
    starts_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    rules_preset = serializers.CharField()
    match_target = serializers.IntegerField(help_text="Points to win each match.")
    turn_timer_seconds = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True, help_text="Number of rounds; fixed at the start.")
    current_round = serializers.IntegerField(min_value=0, help_text="0 before round 1.")
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    players = serializers.IntegerField(min_value=0, help_text="Registered players (house bots included).")
    winner = PlayerRefSerializer(allow_null=True)
    is_simulation = serializers.BooleanField(
        help_text="Made by manage.py tournament_simulate (house bots only); not a real event."
    )
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    description = serializers.CharField(allow_blank=True)
    club = ClubRefSerializer(allow_null=True, help_text="The club running it; None for a site event.")
    organiser = PlayerRefSerializer(
        allow_null=True, help_text="Its creator; None for a scheduled daily event."
    )
    rated = serializers.BooleanField()
    rating_min = serializers.IntegerField(allow_null=True, help_text="Lowest rating allowed to join.")
    rating_max = serializers.IntegerField(allow_null=True, help_text="Highest rating allowed to join.")
    bots_allowed = serializers.BooleanField(help_text="House bots may fill the field.")
    duration_minutes = serializers.IntegerField(allow_null=True, help_text="Arena: how long pairing goes on.")
    ends_at = serializers.DateTimeField(allow_null=True, help_text="Arena: no new pairing after it.")


class RoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(min_value=1)
    status = serializers.ChoiceField(choices=RoundStatus.choices)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    boards = serializers.IntegerField(min_value=0, help_text="Pairings (byes included).")
    pairings = serializers.URLField()


class TournamentDetailSerializer(TournamentSerializer):
    round_list = RoundSerializer(many=True, help_text="Rounds so far, first to last.")
    standings = serializers.URLField()


class StandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(min_value=1, help_text="Shared by exact ties.")
    player = PlayerRefSerializer()
    score = serializers.FloatField(
        help_text="Swiss: 1 per win (a bye included), 0 per loss. Arena: its points (docs/tournaments.md)."
    )
    buchholz = serializers.FloatField(allow_null=True, help_text="Swiss only; None for Arena.")
    sonneborn_berger = serializers.FloatField(allow_null=True, help_text="Swiss only; None for Arena.")
    hand_point_diff = serializers.IntegerField(
        allow_null=True, help_text="Match points scored minus conceded (Swiss; None for Arena)."
    )
    rating = serializers.IntegerField(
        allow_null=True, help_text="Rating at the start, rounded (None before it)."
    )
    rating_change = serializers.FloatField(
        allow_null=True, help_text="Sum of the Elo changes here; None for a house bot."
    )
    rating_after = serializers.FloatField(
        allow_null=True,
        help_text="Swiss: the rating after the event (the latest Elo change of its matches; the start "
        "rating with none), once it is finished; None before the end, for a house bot and for Arena.",
    )
    withdrawn = serializers.BooleanField()
    arena_streak = serializers.IntegerField(
        allow_null=True, min_value=0, help_text="Arena: the current run of wins; None for Swiss."
    )
    arena_games = serializers.IntegerField(
        allow_null=True, min_value=0, help_text="Arena: finished matches; None for Swiss."
    )
    performance = serializers.IntegerField(
        allow_null=True,
        help_text="Arena: the tie-break after the score, a rating: average opponent rating + 500 x "
        "(2 x win share - 1) over the matches with a result; None with none yet, and for Swiss.",
    )


class StandingsSerializer(serializers.Serializer[Any]):
    tournament_id = serializers.IntegerField()
    current_round = serializers.IntegerField(min_value=0)
    results = StandingSerializer(many=True, help_text="Empty before round 1.")


class PairingSerializer(serializers.Serializer[Any]):
    board = serializers.IntegerField(min_value=1)
    players = PlayerRefSerializer(
        many=True, allow_null=True, help_text="[seat 0, seat 1]; seat 1 None for a bye."
    )
    bye = serializers.BooleanField()
    forfeit = serializers.BooleanField(help_text="Decided by a no-show.")
    match_id = serializers.IntegerField(allow_null=True)
    match_status = serializers.ChoiceField(choices=MatchStatus.choices, allow_null=True)
    points = serializers.ListField(
        child=serializers.FloatField(),
        allow_null=True,
        help_text="[seat 0, seat 1] tournament points once decided.",
    )
    hand_points = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="The match's final score once decided."
    )
    replay = serializers.URLField(allow_null=True, help_text="Its replay file once the match finished.")


class PairingsSerializer(serializers.Serializer[Any]):
    tournament_id = serializers.IntegerField()
    round = serializers.IntegerField(min_value=1)
    status = serializers.ChoiceField(choices=RoundStatus.choices)
    results = PairingSerializer(many=True)


def tournament_data(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.pk,
        "name": t.name_en,
        "name_pt": t.name_pt,
        "status": t.status,
        "starts_at": t.starts_at,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "rules_preset": t.rules_preset,
        "match_target": t.match_target,
        "turn_timer_seconds": t.turn_timer_seconds,
        "rounds": t.rounds,
        "current_round": t.current_round,
        "min_players": t.min_players,
        "max_players": t.max_players,
        "players": t.players,  # type: ignore[attr-defined]  # annotated by tournaments_by_status
        "winner": player_ref(t.winner),
        "is_simulation": t.is_simulation,
        "format": t.format,
        "description": t.description,
        "club": {"slug": t.club.slug, "name": t.club.name} if t.club is not None else None,
        "organiser": player_ref(t.created_by),
        "rated": t.rated,
        "rating_min": t.rating_min,
        "rating_max": t.rating_max,
        "bots_allowed": t.bots_allowed,
        "duration_minutes": t.duration_minutes,
        "ends_at": t.ends_at,
    }


def public_events(qs: QuerySet[Tournament]) -> QuerySet[Tournament]:
    """``qs`` without the private events (never in the API) and with what :func:`tournament_data` reads."""
    return qs.filter(access=TournamentAccess.PUBLIC).select_related("club", "created_by")


def _tournament(request: Request, tournament_id: int) -> Tournament:
    # By id a simulation is found too (its page works by direct link); only the list leaves it out. A
    # private event the reader may not see (tournaments.access) is answered as one that does not exist.
    tournament = (Tournament.objects.filter(pk=tournament_id).select_related("winner", "club", "created_by")
                  .annotate(players=Count("registrations")).first())
    if tournament is None or not viewer_may_see(tournament, request.user, getattr(request, "session", None)):
        raise ApiError(404, "no_such_tournament", "no such tournament")
    return tournament


class TournamentsView(ApiView):
    @extend_schema(
        operation_id="tournaments",
        parameters=[TournamentsQuery],
        responses=paged(TournamentSerializer),
        tags=["tournaments"],
    )
    def get(self, request: Request) -> Response:
        """Tournaments in the order a visitor reads them: first the running ones (latest start first),
        then the upcoming ones (`open` and `scheduled`, soonest start first), then the finished and
        cancelled ones (latest start first); equal starts by id in the same direction. With `status`, that
        status's order. Simulations only with `simulations=true` (or `1`). The calendar: `from` and `to`
        keep the events starting in that window; `kind` (swiss or arena) and `club` filter further.
        Private events (club members or an entry code only) are never listed."""
        query = parse_query(TournamentsQuery, request)
        tournaments = public_events(tournaments_by_status(
            status=query.get("status"), simulations=query.get("simulations", False)
        ))
        if "from" in query:
            tournaments = tournaments.filter(starts_at__gte=query["from"])
        if "to" in query:
            tournaments = tournaments.filter(starts_at__lt=query["to"])
        if "kind" in query:
            tournaments = tournaments.filter(format=query["kind"])
        if "club" in query:
            tournaments = tournaments.filter(club__slug=query["club"])
        page = page_of(tournaments, page=query["page"], limit=query["limit"])
        rows = [tournament_data(t) for t in page.object_list]
        data = TournamentSerializer(rows, many=True).data
        return Response(envelope(request, page, query["limit"], data, TournamentsQuery))


class TournamentView(ApiView):
    @extend_schema(operation_id="tournament", responses=TournamentDetailSerializer, tags=["tournaments"])
    def get(self, request: Request, tournament_id: int) -> Response:
        """One tournament with its rounds so far."""
        tournament = _tournament(request, tournament_id)
        rounds = rounds_of(tournament).annotate(boards=Count("pairings"))
        data = {
            **tournament_data(tournament),
            "round_list": [
                {
                    "number": r.number,
                    "status": r.status,
                    "started_at": r.started_at,
                    "finished_at": r.finished_at,
                    "boards": r.boards,
                    "pairings": request.build_absolute_uri(
                        reverse("api:tournament_pairings", args=[tournament.pk, r.number])
                    ),
                }
                for r in rounds
            ],
            "standings": request.build_absolute_uri(
                reverse("api:tournament_standings", args=[tournament.pk])
            ),
        }
        return Response(TournamentDetailSerializer(data).data)


class StandingsView(ApiView):
    @extend_schema(operation_id="tournament_standings", responses=StandingsSerializer, tags=["tournaments"])
    def get(self, request: Request, tournament_id: int) -> Response:
        """The standings so far: score, then Buchholz, Sonneborn-Berger, hand points, rating
        (docs/tournaments.md). An Arena event: as on its page, by its score (match points and streak
        bonuses), then `performance`, then rating, then username (equal score and performance share a
        rank), with `arena_streak` and `arena_games`; the Swiss tie-break fields are None."""
        tournament = _tournament(request, tournament_id)
        rows = []
        if tournament.format == TournamentFormat.ARENA:
            rows = _arena_rows(tournament)
        elif tournament.current_round:  # before round 1 nobody has a rating fixed or a result
            for row in standings_of(tournament):
                line, registration = row.line, row.registration
                rows.append(
                    {
                        "rank": line.rank,
                        "player": player_ref(registration.user),
                        "score": line.score,
                        "buchholz": line.buchholz,
                        "sonneborn_berger": line.sonneborn_berger,
                        "hand_point_diff": line.hand_point_diff,
                        "rating": elo.shown(line.rating),
                        "rating_change": None if row.rating_change is None else round(row.rating_change, 2),
                        "rating_after": None if row.rating_after is None else round(row.rating_after, 2),
                        "withdrawn": registration.withdrawn,
                        "arena_streak": None,
                        "arena_games": None,
                        "performance": None,
                    }
                )
        data = {"tournament_id": tournament.pk, "current_round": tournament.current_round, "results": rows}
        return Response(StandingsSerializer(data).data)


def _arena_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """An Arena's standings rows in the page's order and ranks (``tournaments.arena_play.arena_rows``:
    score, then performance, then rating, then username; equal score and performance share a rank)."""
    rows = []
    for row in arena_rows(tournament):
        line, r = row.line, row.registration
        rows.append(
            {
                "rank": line.rank,
                "player": player_ref(r.user),
                "score": float(line.score),
                "buchholz": None,
                "sonneborn_berger": None,
                "hand_point_diff": None,
                "rating": elo.shown(r.rating) if r.rating is not None else None,
                "rating_change": None,
                "rating_after": None,
                "withdrawn": r.withdrawn,
                "arena_streak": r.arena_streak,
                "arena_games": row.games,
                "performance": None if line.performance is None else round(line.performance),
            }
        )
    return rows


class PairingsView(ApiView):
    @extend_schema(operation_id="tournament_pairings", responses=PairingsSerializer, tags=["tournaments"])
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        """The boards of round ``number``: who plays whom, the match, the result once decided."""
        tournament = _tournament(request, tournament_id)
        round_ = rounds_of(tournament).filter(number=number).first()
        if round_ is None:
            raise ApiError(404, "no_such_round", f"this tournament has no round {number}")
        rows = []
        for p in pairings_of(tournament).filter(round=round_):
            finished = p.match is not None and p.match.status == MatchStatus.FINISHED
            rows.append(
                {
                    "board": p.board,
                    "players": [player_ref(p.player0), player_ref(p.player1)],
                    "bye": p.is_bye,
                    "forfeit": p.forfeit,
                    "match_id": p.match_id,
                    "match_status": p.match.status if p.match is not None else None,
                    "points": p.points,
                    "hand_points": p.hand_points,
                    "replay": request.build_absolute_uri(reverse("api:match_replay", args=[p.match_id]))
                    if finished
                    else None,
                }
            )
        data = {
            "tournament_id": tournament.pk,
            "round": round_.number,
            "status": round_.status,
            "results": rows,
        }
        return Response(PairingsSerializer(data).data)
