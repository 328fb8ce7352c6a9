"""Rating writes (HackSoft services): rate a finished match exactly once; find matches left unrated.

The public API for other apps (tournaments rate their matches through it; docs/ratings.md "Service API"):

- create the match with ``Match.rated = True``; when it finishes, ``games`` sends
  ``games.signals.match_finished`` after the commit and this app enqueues the Celery task
  ``ratings.rate_match`` (``ratings.tasks.rate_match``), which calls :func:`match_rate`;
- :func:`match_rate` may also be called directly (idempotent);
- reads: ``ratings.selectors.rating_get(user=...)``, ``bot_rating(level)``, ``expected_score``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from accounts.models import Standing, User
from games.models import Match, MatchStatus
from infra import fault_points
from push.groups import match_group
from push.send import send_on_commit
from ratings import elo, refunds
from ratings.models import PlayerRating, RatingChange, RatingRefund
from ratings.selectors import bot_rating, rating_message

SWEEP_AFTER = timedelta(minutes=1)
"""A finished rated match with no rating change this long after it finished is enqueued again."""
SWEEP_BATCH = 1000
"""Most matches one sweep enqueues (the rest wait for the next one)."""
RATE_BATCH = 200
"""Most matches ``ratings.rate_pending`` rates in one transaction."""
PENDING_WINDOW = timedelta(minutes=10)
"""How far back ``ratings.rate_pending`` looks for unrated matches."""


@dataclass(frozen=True, slots=True)
class _Side:
    seat: int
    user: User
    row: PlayerRating | None  # None for a house bot

    @property
    def rating(self) -> float:
        if self.row is None:
            return float(bot_rating(self.user.bot_level or 0))
        return self.row.rating


def match_rate(*, match_id: int) -> list[RatingChange]:
    """Rate finished match ``match_id`` exactly once (:func:`matches_rate` of that one match).

    :returns: its changes; ``[]`` when the match is unknown, not rated, not finished (aborted, in play),
        has no winner, has a guest, or was already rated.
    """
    return matches_rate(match_ids=[match_id])


def matches_rate(*, match_ids: Iterable[int]) -> list[RatingChange]:
    """Rate each finished match of ``match_ids`` exactly once, all in one transaction: one
    :class:`RatingChange` per human player of each, and the players' new :class:`PlayerRating`.

    The matches are rated in the order they finished (``finished_at``, then id), each from the ratings
    left by the ones before it, so a player's matches in one batch chain like separate tasks would. The
    human players' rating rows are locked in user-id order (two batches never deadlock) and read under
    the lock (never a stale number). Matches that already have changes are skipped, under the locks;
    the unique (match, player) constraint backs that up (a concurrent writer's :class:`IntegrityError`
    rolls this batch back and it is retried one match at a time). After the commit each human seat of
    each match gets a ``rating`` message on the table's WebSocket (docs/protocol.md).

    Statements: 6 per batch whatever its size (the matches, the missing rating rows, the locks, the
    existing changes, the insert, the update), which is what makes 10,000 updates cheap.

    :returns: the changes written (skipped matches write none).
    """
    ids = sorted(set(match_ids))
    if not ids:
        return []
    try:
        with transaction.atomic():
            return _rate_many(ids)
    except IntegrityError:
        if len(ids) == 1:  # a concurrent task wrote this match's changes first: nothing to do
            return []
        return [change for match_id in ids for change in match_rate(match_id=match_id)]


def _rateable(match: Match) -> bool:
    if not match.rated or match.status != MatchStatus.FINISHED or match.winner is None:
        return False
    players = (match.player0, match.player1)
    if any(p is None or p.is_guest for p in players):
        return False
    if any(p is not None and p.is_bot for p in players) and any(
        p is not None and p.standing == Standing.CLOSED for p in players
    ):
        return False  # the only member is closed: its history is frozen
    return not all(p.is_bot for p in players if p is not None)


def _rate_many(ids: list[int]) -> list[RatingChange]:
    matches = [m for m in Match.objects.select_related("player0", "player1").filter(pk__in=ids)
               if _rateable(m)]
    if not matches:
        return []
    humans = sorted({p.pk for m in matches for p in (m.player0, m.player1) if p is not None and not p.is_bot})
    PlayerRating.objects.bulk_create([PlayerRating(user_id=pk) for pk in humans], ignore_conflicts=True)
    rows = {r.user_id: r for r in PlayerRating.objects.select_for_update().filter(user_id__in=humans)
            .order_by("user_id")}
    # Checked under the locks: a task that held them may have just rated some of these matches.
    done = set(RatingChange.objects.filter(match_id__in=[m.pk for m in matches])
               .values_list("match_id", flat=True))
    never = datetime.min.replace(tzinfo=UTC)  # (a finished match always has finished_at; rows made by hand)
    matches = sorted((m for m in matches if m.pk not in done), key=lambda m: (m.finished_at or never, m.pk))
    now = timezone.now()
    changes: list[RatingChange] = []
    pushes: list[tuple[int, dict[int, dict[str, object]]]] = []
    for match in matches:
        written = _rate_one(match, rows, now)
        changes.extend(written)
        seat_of = {p.pk: seat for seat, p in enumerate((match.player0, match.player1)) if p is not None}
        pushes.append((match.pk, {seat_of[c.player_id]: rating_message(c) for c in written}))
    RatingChange.objects.bulk_create(changes, batch_size=1000)
    fault_points.reached("ratings.rate")  # the fault runs' SIGKILL lands here (docs/faults.md)
    _ratings_write([rows[pk] for pk in sorted({c.player_id for c in changes})])
    _push_on_commit(pushes)
    return changes


_WRITE_COLUMNS = ("rating", "peak", "rated_matches", "wins", "losses", "last_rated_at")


def _ratings_write(rows: list[PlayerRating]) -> None:
    """Store ``rows``' new ratings and counts: one ``UPDATE ... FROM`` a ``VALUES`` list for all of them.

    One statement, because on PostgreSQL the rating buckets' trigger (migration 0003) then locks its
    bucket rows once, in ascending order, so two rating transactions cannot deadlock on them (an UPDATE
    per row would lock each row's buckets in user order). Hand-written, because ``bulk_update`` built
    a ``CASE WHEN`` expression per row and column through the ORM: 0.7 s of CPU for a batch of 200
    matches (400 players), three quarters of the rating task's time.
    """
    if not rows:
        return
    adapt = connection.ops.adapt_datetimefield_value
    # SQLite caps the bound variables of one statement; it has one writer at a time, so chunks are safe.
    chunk = len(rows) if connection.vendor == "postgresql" else 1000
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        # CAST: a float bound client-side is a numeric literal on PostgreSQL (stored as float8 anyway,
        # but a VALUES column's type comes from its first row).
        one = "(%s, CAST(%s AS DOUBLE PRECISION), CAST(%s AS DOUBLE PRECISION), %s, %s, %s, %s)"
        values = ", ".join([one] * len(part))
        sets = ", ".join(f"{column} = v.{column}" for column in _WRITE_COLUMNS)
        params: list[int | float | str | None] = []
        for row in part:
            params += [row.user_id, row.rating, row.peak, row.rated_matches, row.wins, row.losses,
                       adapt(row.last_rated_at)]
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH v(user_id, {', '.join(_WRITE_COLUMNS)}) AS (VALUES {values}) "
                f"UPDATE ratings_playerrating SET {sets} FROM v "
                f"WHERE ratings_playerrating.user_id = v.user_id",
                params,
            )


def _rate_one(match: Match, rows: dict[int, PlayerRating], now: datetime) -> list[RatingChange]:
    """The changes of ``match`` from the current ``rows`` (updated in place for the next match)."""
    players = (match.player0, match.player1)
    sides = [_Side(seat, p, rows.get(p.pk) if not p.is_bot else None)
             for seat, p in enumerate(players) if p is not None]
    ratings_before = [side.rating for side in sides]  # both sides' ratings before this match
    changes = []
    for side in sides:
        # A bot's rating is fixed; a closed account's history is frozen (docs/fairplay.md): a match it
        # left in play when closed rates only its opponent.
        if side.row is None or side.user.standing == Standing.CLOSED:
            continue
        other = 1 - side.seat
        won = match.winner == side.seat
        row = side.row
        k = elo.k_factor(rated_matches=row.rated_matches, peak_rating=row.peak)
        update = elo.rate(rating=row.rating, opponent=ratings_before[other], score=1 if won else 0, k=k)
        changes.append(RatingChange(
            match_id=match.pk, player_id=side.user.pk, opponent_id=sides[other].user.pk,
            opponent_is_bot=sides[other].user.is_bot, before=update.before, after=update.after,
            delta=update.delta, k=k, expected=update.expected, opponent_rating=ratings_before[other], won=won,
        ))
    for change in changes:
        row = rows[change.player_id]
        row.rating = change.after
        row.peak = max(row.peak, change.after)
        row.rated_matches += 1
        row.wins += int(change.won)
        row.losses += int(not change.won)
        row.last_rated_at = now
    return changes


def _push_on_commit(pushes: list[tuple[int, dict[int, dict[str, object]]]]) -> None:
    messages = [
        (match_group(match_id), {"type": "rating.update", "seats": {str(k): v for k, v in seats.items()}})
        for match_id, seats in pushes if seats
    ]
    if messages:
        send_on_commit(messages)


def _unrated(**since: object) -> QuerySet[Match]:
    rated = RatingChange.objects.filter(match_id=OuterRef("pk"))
    return (
        Match.objects.filter(rated=True, status=MatchStatus.FINISHED, winner__isnull=False, **since)
        .exclude(player0__is_guest=True).exclude(player1__is_guest=True)
        # A closed account against a house bot: nobody is rated (its history is frozen), never pending.
        .exclude(player0__standing=Standing.CLOSED, player1__is_bot=True)
        .exclude(player1__standing=Standing.CLOSED, player0__is_bot=True)
        .filter(~Exists(rated)).order_by("finished_at", "pk")
    )


def matches_unrated_ids(*, limit: int = SWEEP_BATCH) -> list[int]:
    """Ids of finished rated matches (with a winner) that finished more than :data:`SWEEP_AFTER` ago and
    have no rating change, oldest first, at most ``limit``."""
    return list(_unrated(finished_at__lte=timezone.now() - SWEEP_AFTER).values_list("pk", flat=True)[:limit])


def matches_pending_ids(*, limit: int | None = None) -> list[int]:
    """Ids of finished rated matches (with a winner) that finished in the last :data:`PENDING_WINDOW`
    and have no rating change, oldest first, at most ``limit`` (default :data:`RATE_BATCH`): what
    ``ratings.rate_pending`` rates.
    (The window keeps it on the recent end of the finished-matches index; older ones are the sweep's.)"""
    since = timezone.now() - PENDING_WINDOW
    return list(_unrated(finished_at__gte=since).values_list("pk", flat=True)[:limit or RATE_BATCH])


# --------------------------------------------------------------------------------------------- fair play


def rating_hide(*, user_id: int, hidden: bool) -> None:
    """Take member ``user_id`` off the rankings (``hidden``) or put it back: ``PlayerRating.hidden``,
    whose UPDATE the buckets' triggers (migration 0006) turn into the counts' change in the same
    transaction, so every rank stays exact. A member never rated gets a row (1500, no matches, on no
    board) so that a first rated match later finds it hidden. Called by ``fairplay.services`` when a
    moderator marks, clears or closes an account (docs/fairplay.md)."""
    PlayerRating.objects.bulk_create([PlayerRating(user_id=user_id)], ignore_conflicts=True)
    PlayerRating.objects.filter(user_id=user_id).exclude(hidden=hidden).update(hidden=hidden)


REFUND_SWEEP_WINDOW = timedelta(days=1)
"""How far back ``ratings.tasks.sweep_refunds`` looks for closures whose refund message may be lost."""


def closures_recent_ids(*, now: datetime | None = None) -> list[int]:
    """Ids of the accounts closed in the last :data:`REFUND_SWEEP_WINDOW` (a handful: closures are rare),
    oldest closure first."""
    since = (now or timezone.now()) - REFUND_SWEEP_WINDOW
    return list(User.objects.filter(standing=Standing.CLOSED, standing_since__gte=since)
                .order_by("standing_since", "pk").values_list("pk", flat=True))


def closure_refund(*, closed_id: int) -> list[RatingRefund]:
    """Give back the Elo points member ``closed_id``'s opponents lost to it (``ratings.refunds``: the
    rule and its numbers), if it is closed; exactly once per (opponent, match).

    The matches: the closed account's latest ``REFUND_MATCHES`` rated matches rated within
    ``REFUND_WINDOW_DAYS`` days before its closure (``User.standing_since``), newest first. Each
    opponent's rating row is locked (user-id order, as :func:`matches_rate`; a concurrent rating of that
    opponent waits) and the refunds already made are read under the locks, so a retried or concurrent
    run gives nothing twice; the unique (player, match) constraint backs it up. Each refund adds its
    points to the rating (and the peak, if passed), in one statement (the buckets stay exact).

    :returns: the refunds written by this call (``[]``: not closed, nothing lost, or already done).
    """
    closed = User.objects.filter(pk=closed_id).only("standing", "standing_since").first()
    if closed is None or closed.standing != Standing.CLOSED or closed.standing_since is None:
        return []
    since = closed.standing_since - timedelta(days=refunds.REFUND_WINDOW_DAYS)
    match_ids = list(
        RatingChange.objects.filter(player_id=closed_id, created_at__gte=since,
                                    created_at__lte=closed.standing_since)
        .order_by("-created_at", "-id").values_list("match_id", flat=True)[:refunds.REFUND_MATCHES]
    )
    lost = list(
        RatingChange.objects.filter(match_id__in=match_ids, opponent_id=closed_id, delta__lt=0)
        .exclude(player_id=closed_id).only("id", "match_id", "player_id", "delta")
    )
    if not lost:
        return []
    try:
        with transaction.atomic():
            return _refund(closed_id, match_ids, lost)
    except IntegrityError:  # a concurrent run wrote these refunds first: nothing left to do
        return []


def _refund(closed_id: int, match_ids: list[int], lost: list[RatingChange]) -> list[RatingRefund]:
    players = sorted({change.player_id for change in lost})
    rows = {r.user_id: r for r in PlayerRating.objects.select_for_update().filter(user_id__in=players)
            .order_by("user_id")}
    already = {(r.player_id, r.match_id): r.points
               for r in RatingRefund.objects.filter(player_id__in=players, match_id__in=match_ids)}
    order = {match_id: i for i, match_id in enumerate(match_ids)}  # newest first
    losses = []
    for change in sorted(lost, key=lambda c: (order[c.match_id], c.player_id)):
        # Provisional when rated: fewer than PROVISIONAL_MATCHES of the player's changes came before.
        before = RatingChange.objects.filter(player_id=change.player_id, id__lt=change.id).count()
        refunded = already.get((change.player_id, change.match_id), 0.0)
        losses.append(refunds.Loss(change.match_id, change.player_id, change.delta,
                                   elo.is_provisional(before), refunded))
    made = []
    for refund in refunds.plan(losses):
        row = rows[refund.player_id]
        before_rating = row.rating
        row.rating += refund.points
        row.peak = max(row.peak, row.rating)
        made.append(RatingRefund(player_id=refund.player_id, match_id=refund.match_id, closed_id=closed_id,
                                 points=refund.points, before=before_rating, after=row.rating))
    RatingRefund.objects.bulk_create(made)
    _refunds_write([rows[pk] for pk in sorted({r.player_id for r in made})])
    return made


def _refunds_write(rows: list[PlayerRating]) -> None:
    """Store ``rows``' new ratings and peaks in one ``UPDATE ... FROM (VALUES ...)`` (one statement: the
    buckets' trigger locks its rows once, in order, as :func:`_ratings_write` explains); the counts and
    ``last_rated_at`` are not a refund's to change."""
    if not rows:
        return
    one = "(%s, CAST(%s AS DOUBLE PRECISION), CAST(%s AS DOUBLE PRECISION))"
    params: list[int | float] = []
    for row in rows:
        params += [row.user_id, row.rating, row.peak]
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH v(user_id, rating, peak) AS (VALUES {', '.join([one] * len(rows))}) "
            f"UPDATE ratings_playerrating SET rating = v.rating, peak = v.peak FROM v "
            f"WHERE ratings_playerrating.user_id = v.user_id",
            params,
        )
