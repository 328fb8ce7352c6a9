"""Rating writes (HackSoft services): rate a finished match exactly once; find matches left unrated.

The public API for other apps (tournaments rate their matches through it; docs/ratings.md "Service API"):

- create the match with ``Match.rated = True``; when it finishes, ``games`` sends
  ``games.signals.match_finished`` after the commit and this app enqueues the Celery task
  ``ratings.rate_match`` (``ratings.tasks.rate_match``), which calls :func:`match_rate`;
- :func:`match_rate` may also be called directly (idempotent);
- reads: ``ratings.selectors.rating_get(user=...)``, ``bot_rating(level)``, ``expected_score``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchStatus
from games.services import group_name
from ratings import elo, push
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import bot_rating, rating_message

SWEEP_AFTER = timedelta(minutes=1)
"""A finished rated match with no rating change this long after it finished is enqueued again."""
SWEEP_BATCH = 1000
"""Most matches one sweep enqueues (the rest wait for the next one)."""


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
    """Rate finished match ``match_id`` exactly once: one :class:`RatingChange` per human player and
    their new :class:`PlayerRating`, in one transaction.

    The human players' rating rows are locked in user-id order (two tasks never deadlock) and the update
    is computed from their CURRENT ratings, so two overlapping matches of one player both count. The
    unique (match, player) constraint makes a repeat a no-op. After the commit each human seat gets a
    ``rating`` message on the table's WebSocket (docs/protocol.md).

    :returns: the changes written; ``[]`` when the match is unknown, not rated, not finished (aborted,
        in play), has no winner, has a guest, or was already rated.
    """
    try:
        with transaction.atomic():
            return _rate(match_id)
    except IntegrityError:
        # A concurrent task wrote this match's changes first (the unique constraint): nothing to do.
        return []


def _rate(match_id: int) -> list[RatingChange]:
    match = Match.objects.select_related("player0", "player1").filter(pk=match_id).first()
    if match is None or not match.rated or match.status != MatchStatus.FINISHED or match.winner is None:
        return []
    players = (match.player0, match.player1)
    if any(p is None or p.is_guest for p in players) or all(p.is_bot for p in players if p is not None):
        return []
    humans = sorted(p.pk for p in players if p is not None and not p.is_bot)
    PlayerRating.objects.bulk_create([PlayerRating(user_id=pk) for pk in humans], ignore_conflicts=True)
    rows = {r.user_id: r for r in PlayerRating.objects.select_for_update().filter(user_id__in=humans)
            .order_by("user_id")}
    # Checked under the locks: a task that held them may have just rated this match.
    if RatingChange.objects.filter(match_id=match_id).exists():
        return []
    sides = [_Side(seat, p, rows.get(p.pk)) for seat, p in enumerate(players) if p is not None]
    now = timezone.now()
    changes = []
    for side in sides:
        if side.row is None:
            continue
        other = sides[1 - side.seat]
        won = match.winner == side.seat
        row = side.row
        k = elo.k_factor(rated_matches=row.rated_matches, peak_rating=row.peak)
        update = elo.rate(rating=row.rating, opponent=other.rating, score=1 if won else 0, k=k)
        changes.append(RatingChange(
            match_id=match_id, player_id=side.user.pk, opponent_id=other.user.pk,
            opponent_is_bot=other.user.is_bot, before=update.before, after=update.after,
            delta=update.delta, k=k, expected=update.expected, opponent_rating=other.rating, won=won,
        ))
    RatingChange.objects.bulk_create(changes)
    for change in changes:
        row = rows[change.player_id]
        row.rating = change.after
        row.peak = max(row.peak, change.after)
        row.rated_matches += 1
        row.wins += int(change.won)
        row.losses += int(not change.won)
        row.last_rated_at = now
    for change in changes:  # one plain UPDATE per row: cheaper than bulk_update's CASE for 1-2 rows
        row = rows[change.player_id]
        PlayerRating.objects.filter(user_id=row.user_id).update(
            rating=row.rating, peak=row.peak, rated_matches=row.rated_matches, wins=row.wins,
            losses=row.losses, last_rated_at=row.last_rated_at,
        )
    seat_of = {p.pk: seat for seat, p in enumerate(players) if p is not None}
    _push_on_commit(match_id, {seat_of[c.player_id]: rating_message(c) for c in changes})
    return changes


def _push_on_commit(match_id: int, seats: dict[int, dict[str, object]]) -> None:
    def send() -> None:
        push.group_send(group_name(match_id),
                        {"type": "rating.update", "seats": {str(k): v for k, v in seats.items()}})

    transaction.on_commit(send)


def matches_unrated_ids(*, limit: int = SWEEP_BATCH) -> list[int]:
    """Ids of finished rated matches (with a winner) that finished more than :data:`SWEEP_AFTER` ago and
    have no rating change, oldest first, at most ``limit``."""
    cutoff = timezone.now() - SWEEP_AFTER
    rated = RatingChange.objects.filter(match_id=OuterRef("pk"))
    return list(
        Match.objects.filter(rated=True, status=MatchStatus.FINISHED, winner__isnull=False,
                             finished_at__lte=cutoff)
        .exclude(player0__is_guest=True).exclude(player1__is_guest=True)
        .filter(~Exists(rated)).order_by("finished_at", "pk").values_list("pk", flat=True)[:limit]
    )
