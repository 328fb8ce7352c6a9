"""Signal receivers of the ratings app (connected in ``RatingsConfig.ready``)."""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.core.cache import cache

from ratings.selectors import match_rating_get
from ratings.tasks import COUNTDOWN_SECONDS, DEBOUNCE_SECONDS, rate_match, rate_pending

log = logging.getLogger(__name__)

PENDING_KEY = "ratings:rate-pending-enqueued"


def enqueue_rating(sender: Any, *, match_id: int, rated: bool, **kwargs: Any) -> None:
    """``games.signals.match_finished`` (sent after the commit): have a rated match rated.

    Normally by ``ratings.rate_pending``, enqueued only when no other finish did in the last
    ``tasks.DEBOUNCE_SECONDS`` (a ``cache.add`` of :data:`PENDING_KEY`), so a burst of finishes is rated
    in batches. When tasks run eagerly (tests, the test servers) or the cache fails, this match's own
    ``ratings.rate_match`` instead. A broker that is down must not break the write that finished the
    match: the failure is logged and the beat sweep (``ratings.sweep_unrated``) enqueues it again a
    minute later.
    """
    if not rated:
        return
    try:
        if current_app.conf.task_always_eager:
            rate_match.delay(match_id)
            return
        try:
            first = cache.add(PENDING_KEY, match_id, timeout=DEBOUNCE_SECONDS)
        except Exception:
            log.warning("match %s: cache error, its rating is enqueued alone", match_id, exc_info=True)
            rate_match.delay(match_id)
            return
        if first:
            rate_pending.apply_async(countdown=COUNTDOWN_SECONDS)
    except Exception:
        log.exception("match %s: could not enqueue its rating; the sweep will retry", match_id)


def seat_rating(sender: Any, *, match_id: int, user_id: int, **kwargs: Any) -> dict[str, Any] | None:
    """``games.signals.seat_rating_asked``: the ``rating`` message of ``user_id`` for ``match_id``, or None
    while the match is not rated (``ratings.selectors.match_rating_get``)."""
    return match_rating_get(match_id=match_id, user_id=user_id)
