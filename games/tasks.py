"""Celery tasks of the games app: the turn-timer sweep and the sweep of abandoned casual matches.

A connected table schedules its own deadline check (``games.consumers``); this sweep, run by beat every
``SWEEP_SECONDS``, covers tables nobody is connected to. Both call the idempotent
``services.match_expire_turn``, so overlapping runs are harmless.
"""

from __future__ import annotations

from celery import current_app, shared_task
from django.utils import timezone

from games import services
from games.models import Match, MatchStatus

SWEEP_SECONDS = 5.0
ABANDON_SWEEP_SECONDS = 600.0

current_app.conf.beat_schedule = {
    **(current_app.conf.beat_schedule or {}),
    "games-expire-due-turns": {"task": "games.tasks.expire_due_turns", "schedule": SWEEP_SECONDS},
    "games-abandon-idle-matches": {
        "task": "games.tasks.abandon_idle_matches", "schedule": ABANDON_SWEEP_SECONDS,
    },
}


@shared_task(name="games.tasks.expire_due_turns", ignore_result=True)
def expire_due_turns() -> int:
    """Play the automatic move (or declare the loss on time) of every active match whose turn deadline
    has passed. Returns how many matches were moved."""
    due = Match.objects.filter(status=MatchStatus.ACTIVE, turn_deadline__lte=timezone.now()).values_list(
        "pk", flat=True
    )
    return sum(1 for match_id in list(due) if services.match_expire_turn(match_id=match_id) is not None)


@shared_task(name="games.tasks.abandon_idle_matches", ignore_result=True)
def abandon_idle_matches() -> int:
    """End as abandoned every casual bot match (no turn timer) without a move for
    ``services.ABANDON_AFTER`` (24 h). Idempotent (``services.match_abandon`` locks and re-checks each
    one). Returns how many were ended."""
    stale = Match.objects.filter(
        status=MatchStatus.ACTIVE, bot_level__isnull=False, turn_timer_seconds__isnull=True,
        updated_at__lte=timezone.now() - services.ABANDON_AFTER,
    ).values_list("pk", flat=True)
    return sum(1 for match_id in list(stale) if services.match_abandon(match_id=match_id))
