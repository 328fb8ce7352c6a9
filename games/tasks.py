"""Celery tasks of the games app: the turn-timer sweep.

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

current_app.conf.beat_schedule = {
    **(current_app.conf.beat_schedule or {}),
    "games-expire-due-turns": {"task": "games.tasks.expire_due_turns", "schedule": SWEEP_SECONDS},
}


@shared_task(name="games.tasks.expire_due_turns", ignore_result=True)
def expire_due_turns() -> int:
    """Play the automatic move (or declare the loss on time) of every active match whose turn deadline
    has passed. Returns how many matches were moved."""
    due = Match.objects.filter(status=MatchStatus.ACTIVE, turn_deadline__lte=timezone.now()).values_list(
        "pk", flat=True
    )
    return sum(1 for match_id in list(due) if services.match_expire_turn(match_id=match_id) is not None)
