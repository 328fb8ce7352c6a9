"""Signal receivers of the ratings app (connected in ``RatingsConfig.ready``)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def enqueue_rating(sender: Any, *, match_id: int, rated: bool, **kwargs: Any) -> None:
    """``games.signals.match_finished`` (sent after the commit): enqueue ``ratings.rate_match`` for a
    rated match. A broker that is down must not break the write that finished the match: the failure is
    logged and the beat sweep (``ratings.sweep_unrated``) enqueues it again a minute later."""
    if not rated:
        return
    from ratings.tasks import rate_match

    try:
        rate_match.delay(match_id)
    except Exception:
        log.exception("match %s: could not enqueue its rating; the sweep will retry", match_id)
