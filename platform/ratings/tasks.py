"""Celery tasks of the ratings app (thin: each calls services).

- ``ratings.rate_pending()``: rate every finished rated match of the last :data:`services.PENDING_WINDOW`
  still unrated, :data:`services.RATE_BATCH` per transaction, in the order they finished. A finished
  match enqueues it (``ratings.receivers``) at most once per :data:`DEBOUNCE_SECONDS` per cache, with a
  countdown of :data:`COUNTDOWN_SECONDS`: a burst of finishes costs one task and a few transactions
  instead of one task and one transaction each (10,000 ratings in a few seconds of worker time).
- ``ratings.rate_match(match_id)``: rate one finished match (idempotent); the sweep's message, and the
  finish's when tasks run eagerly or the cache is down.
- ``ratings.tasks.refund_closure(closed_id)``: a fair-play closure's refunds (docs/fairplay.md), sent on
  the closure's commit; ``ratings.tasks.sweep_refunds()``: beat, every 10 minutes, sends it again for
  the closures of the last day (idempotent).
- ``ratings.sweep_unrated()``: beat, every 60 s: re-enqueue finished rated matches that have no rating
  change :data:`services.SWEEP_AFTER` after they finished (a lost message).

The two rating tasks are acknowledged after they ran and given back to the queue when the pool process
running them dies, and retried on a database error: their delivery policy, and beat's entry, are in
``config.celery`` (``TASK_POLICY``, ``BEAT_SCHEDULE``; docs/faults.md "Worker killed during a rating
task").
"""

from __future__ import annotations

from celery import shared_task

from ratings import services

DEBOUNCE_SECONDS = 1
"""A finish enqueues ``rate_pending`` only if no other did in the last this many seconds (a cache key;
whole seconds: Django's Redis cache truncates a timeout to an int)."""
COUNTDOWN_SECONDS = 1.5
"""``rate_pending`` runs this long after it is enqueued: after the key has expired, so every finish that
found the key set had committed before the task starts and reads the pending matches (clocks of the
hosts within half a second of each other)."""
MAX_BATCHES = 50
"""Batches one ``rate_pending`` rates before it enqueues itself again (a long backlog never holds one
worker process for long)."""


@shared_task(name="ratings.rate_match")
def rate_match(match_id: int) -> int:
    """Rate match ``match_id``; returns how many rating changes were written (0 when already rated,
    not rated, or not finished)."""
    return len(services.match_rate(match_id=match_id))


@shared_task(name="ratings.rate_pending")
def rate_pending() -> int:
    """Rate the recent finished rated matches still unrated (see the module docstring); returns how many
    rating changes were written. Idempotent: a second run, or one racing another, finds nothing to do
    (the batches lock the players' rows and skip rated matches)."""
    written = 0
    for _ in range(MAX_BATCHES):
        match_ids = services.matches_pending_ids()
        if not match_ids:
            return written
        written += len(services.matches_rate(match_ids=match_ids))
    if services.matches_pending_ids():
        rate_pending.delay()
    return written


@shared_task(name="ratings.sweep_unrated")
def sweep_unrated() -> int:
    """Enqueue ``ratings.rate_match`` for every finished rated match left unrated; returns how many."""
    match_ids = services.matches_unrated_ids()
    for match_id in match_ids:
        rate_match.delay(match_id)
    return len(match_ids)


@shared_task(name="ratings.tasks.refund_closure")
def refund_closure(closed_id: int) -> int:
    """Give back the points member ``closed_id``'s opponents lost to it (``services.closure_refund``);
    returns how many refunds were written. Idempotent: a rerun, a redelivery or a concurrent run writes
    nothing twice (locks, a status check and a unique constraint). Enqueued on the commit of a closure
    (``fairplay.services.account_close``)."""
    return len(services.closure_refund(closed_id=closed_id))


@shared_task(name="ratings.tasks.sweep_refunds")
def sweep_refunds() -> int:
    """Beat, every 10 minutes: send ``refund_closure`` again for every account closed in the last
    ``services.REFUND_SWEEP_WINDOW`` (a lost message heals; a refund already made is not made again);
    returns how many were sent."""
    closed_ids = services.closures_recent_ids()
    for closed_id in closed_ids:
        refund_closure.delay(closed_id)
    return len(closed_ids)
