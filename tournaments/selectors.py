"""Tournament reads: listings, a tournament's players, rounds and standings (tie-breaks)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Sum, Value, When

from accounts.models import Standing, User
from ratings import elo
from ratings.models import RatingChange
from ratings.selectors import bot_rating, rating_get
from tournaments import swiss, tiebreaks
from tournaments.models import (
    ArenaGame,
    Pairing,
    Registration,
    Round,
    Tournament,
    TournamentAccess,
    TournamentStatus,
)

DEFAULT_RATING = 1500.0


ROUND_MINUTES_PER_50_POINTS = 15
"""Expected length of one round per 50 points of match target at a 30 s turn timer (a longer timer
stretches it in proportion): a match to 50 is about three hands of about 20 actions a seat. Chosen so the
shipped schedules never overlap each other: Hourly Quick (3 rounds to 50) takes 45 minutes, an evening
event (to 100, at most 7 rounds) 3 h 30 min, and they start 4 hours apart (docs/tournaments.md)."""
BUSY_STATUSES = (TournamentStatus.SCHEDULED, TournamentStatus.OPEN, TournamentStatus.RUNNING)
"""A registration in a tournament of these statuses can still seat its player in a match."""


def expected_window(tournament: Tournament) -> tuple[datetime, datetime]:
    """``(start, end)`` of the time ``tournament`` may seat its players, UTC: from ``starts_at`` for
    ``rounds`` (fixed at the start; before it the most it can have: ``fixed_rounds`` or ``max_rounds``)
    rounds of :data:`ROUND_MINUTES_PER_50_POINTS` x ``match_target / 50`` x ``max(1, timer / 30 s)``
    minutes each."""
    if tournament.ends_at is not None:  # an Arena: its fixed duration
        return tournament.starts_at, tournament.ends_at
    rounds = tournament.rounds or tournament.fixed_rounds or tournament.max_rounds
    per_round = ROUND_MINUTES_PER_50_POINTS * (tournament.match_target / 50) * max(
        1.0, tournament.turn_timer_seconds / 30)
    return tournament.starts_at, tournament.starts_at + timedelta(minutes=rounds * per_round)


def overlapping_tournament(*, user: User, tournament: Tournament) -> Tournament | None:
    """The first (by start) other tournament ``user`` is registered for (not withdrawn), still to come or
    running, whose :func:`expected_window` overlaps ``tournament``'s; None when there is none. Windows
    are half-open: an event may start the minute the other's window ends."""
    start, end = expected_window(tournament)
    others = (Tournament.objects.filter(registrations__user=user, registrations__withdrawn=False,
                                        status__in=BUSY_STATUSES)
              .exclude(pk=tournament.pk).order_by("starts_at", "id"))
    for other in others:
        other_start, other_end = expected_window(other)
        if other_start < end and start < other_end:
            return other
    return None


def bot_elo(level: int) -> float:
    """A house-bot level's fixed Elo (``ratings.selectors.bot_rating``: its calibrated rating)."""
    return float(bot_rating(level))


def rating_of(user: User) -> float:
    """The rating pairing and tie-breaks use: a person's current Elo, a bot's fixed one (ratings app)."""
    return float(rating_get(user=user).rating)


def public_tournaments() -> QuerySet[Tournament]:
    """Every public tournament but the simulations (``Tournament.is_simulation``, ``manage.py
    tournament_simulate``): what the public lists, the home page and the API's list show. Private events
    (``access`` club or code: ``tournaments.access``) are never in it."""
    return Tournament.objects.filter(is_simulation=False, access=TournamentAccess.PUBLIC)


def tournaments_upcoming(*, now: datetime, limit: int = 20) -> QuerySet[Tournament]:
    return (
        public_tournaments().filter(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN),
                                    starts_at__gte=now)
        .annotate(players=Count("registrations"))
        .order_by("starts_at", "id")[:limit]
    )


def tournaments_running() -> QuerySet[Tournament]:
    return public_tournaments().filter(status=TournamentStatus.RUNNING).annotate(
        players=Count("registrations")).order_by("starts_at", "id")


def tournaments_finished(*, limit: int = 20) -> QuerySet[Tournament]:
    return (
        public_tournaments().filter(status=TournamentStatus.FINISHED)
        .select_related("winner").annotate(players=Count("registrations"))
        .order_by("-finished_at", "-id")[:limit]
    )


def tournaments_of(*, user: User, limit: int = 20) -> QuerySet[Tournament]:
    return (
        Tournament.objects.filter(registrations__user=user)
        .annotate(players=Count("registrations")).order_by("-starts_at", "-id")[:limit]
    )


def tournaments_by_status(*, status: str | None = None, simulations: bool = False) -> QuerySet[Tournament]:
    """Tournaments of one ``status`` (``TournamentStatus``; None: all) with ``players`` (registrations)
    annotated and the winner loaded; simulations (``is_simulation``) only when ``simulations``.

    Order, as a visitor reads a tournament list (issue 22 item 7: the furthest future event came first):
    what is on now, then what comes next, then what is over. 1. ``running``, latest start first;
    2. ``open`` and ``scheduled`` (upcoming), soonest start first; 3. ``finished`` and ``cancelled``,
    latest start first. Equal starts: by id, in the same direction. A ``status`` filter keeps its
    group's order (``scheduled``/``open`` soonest first, the others latest first).
    """
    base = (Tournament.objects.filter(access=TournamentAccess.PUBLIC) if simulations  # never a private event
            else public_tournaments())
    qs = base.select_related("winner").annotate(players=Count("registrations"))
    if status is not None:
        qs = qs.filter(status=status)
    upcoming = Q(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN))
    qs = qs.annotate(
        list_group=Case(When(status=TournamentStatus.RUNNING, then=Value(0)), When(upcoming, then=Value(1)),
                        default=Value(2), output_field=IntegerField()),
        soonest_start=Case(When(upcoming, then=F("starts_at"))),
        soonest_id=Case(When(upcoming, then=F("id"))),
        latest_start=Case(When(~upcoming, then=F("starts_at"))),
        latest_id=Case(When(~upcoming, then=F("id"))),
    )
    return qs.order_by(
        "list_group",
        F("soonest_start").asc(nulls_last=True), F("soonest_id").asc(nulls_last=True),
        F("latest_start").desc(nulls_last=True), F("latest_id").desc(nulls_last=True),
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


def pairing_numbers(registrations: Iterable[Registration], ratings: Mapping[str, float]) -> dict[str, int]:
    """Each player's pairing number (``swiss.Player.number``: 1 = first of the starting rank), keyed by
    user id as text: ``ratings`` (at the start) descending, then username. It orders players equal on
    score and rating in the pairing and exact ties in the standings by name, never by row id, so a
    seeded simulation pairs alike on every database (house bots of one level share their rating)."""
    order = sorted(registrations, key=lambda r: (-ratings[str(r.user_id)], r.user.username))
    return {str(r.user_id): number for number, r in enumerate(order, start=1)}


@dataclass(frozen=True)
class StandingRow:
    """A line of the standings with its registration (user, withdrawn) and, for a person, the sum of
    the Elo changes of their rated matches in this tournament (``None`` for a bot)."""

    line: tiebreaks.Standing
    registration: Registration
    rating_change: float | None
    rating_after: float | None = None
    """Elo points after the event (:func:`ratings_after`); None for a bot or before the end."""

    @property
    def rating_after_shown(self) -> int | None:
        """The rating after the event as every page shows one (``ratings.elo.shown``), None for a bot."""
        return None if self.rating_after is None else elo.shown(self.rating_after)

    @property
    def rating_change_shown(self) -> str | None:
        """The change as every other page shows one (``ratings.elo.shown_change``): whole points, signed
        (``+26``, ``-7``, ``0``), the difference of the shown ratings at the start and at the start plus
        the change, so it adds up with the rating column; None for a bot."""
        if self.rating_change is None:
            return None
        return elo.shown_change(self.line.rating, self.line.rating + self.rating_change)


def ratings_after(tournament: Tournament, start: Mapping[int, float]) -> dict[int, float]:
    """Each person's rating after ``tournament``, Elo points, keyed by user id, for the user ids of
    ``start`` (their ratings at the start): the ``after`` of their latest ``RatingChange`` of one of the
    event's matches (its Swiss boards and Arena games), else their start rating (no rated match). Read
    from the ratings app's rows, never stored at the end: the Elo task of the last match may run after
    the event closed (docs/tournaments.md), and the page, the CSV and the API all read this one place."""
    latest: dict[int, float] = {}
    # Oldest first, so each player's last row wins; no DISTINCT ON (PostgreSQL only: the embedded
    # default is SQLite). A player has a handful of rows per event.
    for player_id, after in (
        RatingChange.objects.filter(Q(match__tournament_pairing__round__tournament=tournament)
                                    | Q(match__arena_game__tournament=tournament), player_id__in=start)
        .order_by("created_at", "id").values_list("player_id", "after")
    ):
        latest[player_id] = after
    return {uid: float(latest.get(uid, rating)) for uid, rating in start.items()}


def standings_of(tournament: Tournament) -> list[StandingRow]:
    """The standings so far: score, Buchholz, Sonneborn-Berger, hand-point differential, rating.
    Accounts closed for a fair-play violation are left out, their results kept (``tiebreaks``: removed
    players; ``Tournament.recomputed_at`` says when that changed the standings: docs/fairplay.md)."""
    registrations = {str(r.user_id): r for r in tournament.registrations.select_related("user")}
    ratings = {uid: (r.rating if r.rating is not None else rating_of(r.user))
               for uid, r in registrations.items()}
    numbers = pairing_numbers(registrations.values(), ratings)
    removed = {uid for uid, r in registrations.items() if r.user.standing == Standing.CLOSED}
    lines = tiebreaks.standings(ratings, results_of(tournament), numbers, removed)
    changes = dict(
        RatingChange.objects.filter(match__tournament_pairing__round__tournament=tournament)
        .values("player_id").annotate(total=Sum("delta")).values_list("player_id", "total")
    )
    afters: dict[int, float] = {}
    if tournament.status == TournamentStatus.FINISHED:
        afters = ratings_after(tournament, {r.user_id: ratings[uid] for uid, r in registrations.items()
                                            if not r.user.is_bot})
    return [
        StandingRow(line, registrations[line.player],
                    None if registrations[line.player].user.is_bot
                    else float(changes.get(registrations[line.player].user_id, 0.0)),
                    afters.get(registrations[line.player].user_id))
        for line in lines
    ]


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
    ratings = {str(r.user_id): r.rating or DEFAULT_RATING for r in registrations}
    numbers = pairing_numbers(registrations, ratings)
    return [
        swiss.Player(id=str(r.user_id), score=score[r.user_id], rating=ratings[str(r.user_id)],
                     opponents=frozenset(met[r.user_id]), had_bye=r.user_id in byes, withdrawn=r.withdrawn,
                     number=numbers[str(r.user_id)])
        for r in registrations
    ]


def current_pairing_of(*, user: User | AnonymousUser) -> Pairing | None:
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


def current_arena_game_of(*, user: User | AnonymousUser) -> ArenaGame | None:
    """The user's Arena match still in play in a running Arena event (the banner's "your Arena match is
    ready": an Arena has no rounds), or None."""
    if not user.is_authenticated:
        return None
    return (
        ArenaGame.objects.filter(Q(player0=user) | Q(player1=user), match__status="active",
                                 finished_at__isnull=True, tournament__status=TournamentStatus.RUNNING)
        .select_related("tournament").order_by("-started_at", "-id").first()
    )


def rounds_of(tournament: Tournament) -> QuerySet[Round]:
    return tournament.round_set.order_by("number")
