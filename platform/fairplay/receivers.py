"""Signal receivers of the fairplay app (connected in ``FairplayConfig.ready``)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from fairplay.assistance_runs import why_analyse
from fairplay.tasks import assistance_match
from games.models import Match

log = logging.getLogger(__name__)


def sample_finished(sender: Any, *, match_id: int, rated: bool, **kwargs: Any) -> None:
    """``games.signals.match_finished`` (sent after the commit): the sampling hook. A finished rated
    match with a person in a seat is analysed (``fairplay.tasks.assistance_match``, background queue) when
    either person has an open report, or when it falls in the sample (``FAIRPLAY_SAMPLE_RATE``);
    ``fairplay.assistance_runs.why_analyse`` decides. Never raises: a broker or database error is logged
    and the match simply goes unanalysed (the signal is a sample; a report analyses the backlog)."""
    if not rated:
        return
    try:
        match = Match.objects.select_related("player0", "player1").filter(pk=match_id).first()
        why = None if match is None else why_analyse(match)
        if why is not None:
            transaction.on_commit(lambda: assistance_match.delay(match_id, why))
    except Exception:
        log.exception("match %s: could not enqueue its fair-play analysis", match_id)
