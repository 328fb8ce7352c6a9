"""Tournament reads: listings, a tournament's players, rounds and standings (tie-breaks)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db.models import Count, Q, QuerySet

from accounts.models import User
from tournaments import swiss, tiebreaks
from tournaments.models import Pairing, Registration, Round, Tournament, TournamentStatus

DEFAULT_RATING = 1500.0


@cache
def _bot_elo() -> dict[int, float]:
    path = Path(settings.BASE_DIR) / "data" / "bot_elo.json"
    try:
        table = json.loads(path.read_text())["elo"]
        return {int(level): float(elo) for level, elo in table.items()}
    except (OSError, ValueError, KeyError):
        return {}


def bot_elo(level: int) -> float:
    """A house-bot level's fixed Elo (its calibrated rating, data/bot_elo.json; 1500 if absent)."""
    return _bot_elo().get(level, DEFAULT_RATING)


def rating_of(user: User) -> float:
    """The rating pairing and tie-breaks use: a bot's fixed Elo; a person's current Elo from the
    ratings app when installed, else 1500."""
    if user.is_bot:
        return bot_elo(user.bot_level or 0)
    if apps.is_installed("ratings"):
        from ratings.selectors import rating_get  # the ratings app (issue 10)

        return float(rating_get(user=user).rating)
    return DEFAULT_RATING


def tournaments_upcoming(*, now: datetime, limit: int = 20) -> QuerySet[Tournament]:
    return (
        Tournament.objects.filter(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN),
                                  starts_at__gte=now)
        .annotate(players=Count("registrations"))
        .order_by("starts_at", "id")[:limit]
    )


def tournaments_running() -> QuerySet[Tournament]:
    return Tournament.objects.filter(status=TournamentStatus.RUNNING).annotate(
        players=Count("registrations")).order_by("starts_at", "id")


def tournaments_finished(*, limit: int = 20) -> QuerySet[Tournament]:
    return (
        Tournament.objects.filter(status=TournamentStatus.FINISHED)
        .select_related("winner").annotate(players=Count("registrations"))
        .order_by("-finished_at", "-id")[:limit]
    )


def tournaments_of(*, user: User, limit: int = 20) -> QuerySet[Tournament]:
    return (
        Tournament.objects.filter(registrations__user=user)
        .annotate(players=Count("registrations")).order_by("-starts_at", "-id")[:limit]
    )


def pairings_of(tournament: Tournament) -> QuerySet[Pairing]:
    return (
        Pairing.objects.filter(round__tournament=tournament)
        .select_related("round", "player0", "player1", "match").order_by("round__number", "board")
    )


def results_of(tournament: Tournament) -> list[tiebreaks.Result]:
    """Every recorded result of the tournament, one per player and round (``tiebreaks.Result``)."""
    out: list[tiebreaks.Result] = []
    for pairing in pairings_of(tournament):
        if pairing.points is None:
            continue
        number = pairing.round.number
        if pairing.player1_id is None:
            out.append(tiebreaks.Result(number, str(pairing.player0_id), None, pairing.points[0]))
            continue
        hands = pairing.hand_points or [0, 0]
        out.append(tiebreaks.Result(number, str(pairing.player0_id), str(pairing.player1_id),
                                    pairing.points[0], hands[0], hands[1]))
        out.append(tiebreaks.Result(number, str(pairing.player1_id), str(pairing.player0_id),
                                    pairing.points[1], hands[1], hands[0]))
    return out


@dataclass(frozen=True)
class StandingRow:
    """A line of the standings with its registration (user, withdrawn, rating change)."""

    line: tiebreaks.Standing
    registration: Registration

    @property
    def rating_change(self) -> float | None:
        reg = self.registration
        if reg.rating is None or reg.rating_after is None or reg.user.is_bot:
            return None
        return reg.rating_after - reg.rating


def standings_of(tournament: Tournament) -> list[StandingRow]:
    """The standings so far: score, Buchholz, Sonneborn-Berger, hand-point differential, rating."""
    registrations = {str(r.user_id): r for r in tournament.registrations.select_related("user")}
    ratings = {uid: (r.rating if r.rating is not None else rating_of(r.user))
               for uid, r in registrations.items()}
    lines = tiebreaks.standings(ratings, results_of(tournament))
    return [StandingRow(line, registrations[line.player]) for line in lines]


def swiss_field(tournament: Tournament) -> list[swiss.Player]:
    """The field as the pairing sees it: score, rating at the start, opponents, bye taken, withdrawn."""
    registrations = list(tournament.registrations.select_related("user"))
    score = {r.user_id: 0.0 for r in registrations}
    met: dict[int, set[str]] = {r.user_id: set() for r in registrations}
    byes: set[int] = set()
    for pairing in pairings_of(tournament):
        if pairing.player1_id is None:
            byes.add(pairing.player0_id)
        else:
            met[pairing.player0_id].add(str(pairing.player1_id))
            met[pairing.player1_id].add(str(pairing.player0_id))
        if pairing.points is not None:
            score[pairing.player0_id] += pairing.points[0]
            if pairing.player1_id is not None:
                score[pairing.player1_id] += pairing.points[1]
    return [
        swiss.Player(id=str(r.user_id), score=score[r.user_id], rating=r.rating or DEFAULT_RATING,
                     opponents=frozenset(met[r.user_id]), had_bye=r.user_id in byes, withdrawn=r.withdrawn)
        for r in registrations
    ]


def current_pairing_of(*, user: User) -> Pairing | None:
    """The user's board in a running tournament's current round whose match is still in play (the
    site-wide "your match is ready" banner), or None."""
    if not user.is_authenticated:
        return None
    return (
        Pairing.objects.filter(Q(player0=user) | Q(player1=user), match__status="active",
                               round__tournament__status=TournamentStatus.RUNNING,
                               round__status="playing")
        .select_related("round", "round__tournament", "match").order_by("-round__started_at").first()
    )


def rounds_of(tournament: Tournament) -> QuerySet[Round]:
    return tournament.round_set.order_by("number")
