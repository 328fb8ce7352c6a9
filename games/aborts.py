"""Free aborts of rated matches (docs/ratings.md "Aborts").

A rated match resigned before both players have made a move of their own is aborted (no winner, not
rated). Each member gets ``GAMES_FREE_ABORTS`` (default 3) such aborts per rolling ``ABORT_WINDOW`` (24 h);
past that, resigning before both have moved is an ordinary resignation: the opponent wins and the match
is rated (a loss through the ratings app's exactly-once path). Without the limit a member could start a
rated bot match, look at the first hand and abort until dealt a good one.

The count is derived from existing rows, no table of its own: a player's aborts are the ``abort`` marker
events (``games.models.MatchEvent``, ``type="abort"``) of rated matches stored for that player's seat,
except the tournaments' no-show forfeits, which the server makes (payload ``"forfeit": true``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from games.models import MatchEvent

ABORT_WINDOW = timedelta(hours=24)
"""The rolling period of the free aborts."""


def free_aborts_per_window() -> int:
    """``GAMES_FREE_ABORTS`` (default 3): aborts a member may make per :data:`ABORT_WINDOW` at no cost."""
    return int(getattr(settings, "GAMES_FREE_ABORTS", 3))


def _aborts_of(user_id: int) -> QuerySet[MatchEvent]:
    return (MatchEvent.objects.filter(type="abort", match__rated=True)
            .filter(Q(seat=0, match__player0_id=user_id) | Q(seat=1, match__player1_id=user_id))
            .exclude(payload__has_key="forfeit"))  # has_key: a missing key is false, never NULL


@dataclass(frozen=True, slots=True)
class AbortCounts:
    """A player's aborts of rated matches: ``recent`` within the last :data:`ABORT_WINDOW`, ``total`` ever;
    ``free`` per window (the setting) and ``free_left`` now (``max(0, free - recent)``)."""

    recent: int
    total: int
    free: int

    @property
    def free_left(self) -> int:
        return max(0, self.free - self.recent)


def aborts_recent(*, user_id: int, now: datetime | None = None) -> int:
    """How many rated matches ``user_id`` aborted within the :data:`ABORT_WINDOW` before ``now``."""
    since = (now or timezone.now()) - ABORT_WINDOW
    return _aborts_of(user_id).filter(created_at__gt=since).count()


def abort_counts(*, user_id: int, now: datetime | None = None) -> AbortCounts:
    """The profile's numbers: aborts within the last 24 h and in total, and the free ones per window
    (one query)."""
    since = (now or timezone.now()) - ABORT_WINDOW
    counts = _aborts_of(user_id).aggregate(
        total=Count("pk"), recent=Count("pk", filter=Q(created_at__gt=since)))
    return AbortCounts(recent=counts["recent"], total=counts["total"], free=free_aborts_per_window())
