"""Celery tasks of the ratings app (thin: each calls one service).

- ``ratings.rate_match(match_id)``: rate one finished match (idempotent; enqueued after the commit that
  finished it, and again by the sweep).
- ``ratings.sweep_unrated()``: beat, every :data:`SWEEP_SECONDS`: re-enqueue finished rated matches that
  have no rating change :data:`services.SWEEP_AFTER` after they finished (a lost message).
"""

from __future__ import annotations

from celery import current_app, shared_task
from django.db import OperationalError

from ratings import services

SWEEP_SECONDS = 60.0

current_app.conf.beat_schedule = {
    **(current_app.conf.beat_schedule or {}),
    "ratings-sweep-unrated": {"task": "ratings.sweep_unrated", "schedule": SWEEP_SECONDS},
}


@shared_task(name="ratings.rate_match", ignore_result=True, acks_late=True,
             autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rate_match(match_id: int) -> int:
    """Rate match ``match_id``; returns how many rating changes were written (0 when already rated,
    not rated, or not finished)."""
    return len(services.match_rate(match_id=match_id))


@shared_task(name="ratings.sweep_unrated", ignore_result=True)
def sweep_unrated() -> int:
    """Enqueue ``ratings.rate_match`` for every finished rated match left unrated; returns how many."""
    match_ids = services.matches_unrated_ids()
    for match_id in match_ids:
        rate_match.delay(match_id)
    return len(match_ids)
