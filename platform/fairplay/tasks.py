"""Celery tasks of the fair-play app (thin: each calls its module).

- ``fairplay.tasks.signals_refresh()``: beat, every 10 minutes (``config.celery.BEAT_SCHEDULE``
  ``fairplay-signals-refresh``), on the background queue: recompute the pair and player signals of the
  players active in the window (``fairplay.signals.signals_refresh``). Idempotent (upserts of the same
  rows), so the default delivery (acknowledged on receipt, never retried) is enough: a lost run is the
  next one's. A moderator may ask for one now (the queue's "Recompute the signals now").
- ``fairplay.tasks.assistance_match(match_id, why)``: the assistance signal of one finished rated match
  (``fairplay.assistance_runs.assistance_match``: idempotent, a re-delivered task judges nothing twice).
  Enqueued by ``fairplay.receivers.sample_finished`` after a match finishes (the sampling hook), and by
  ``fairplay.tasks.assistance_reported``. Background queue (about 10 s of engine time).
- ``fairplay.tasks.assistance_reported(user_id)``: every recent rated match of a reported player not analysed
  yet, one ``fairplay.tasks.assistance_match`` each (call it when a report is made).
"""

from __future__ import annotations

from celery import shared_task

from fairplay import signals
from fairplay.assistance_runs import REPORTED, SAMPLE, reported_backlog
from fairplay.assistance_runs import assistance_match as run_match
from fairplay.models import Report, ReportStatus


@shared_task(name="fairplay.tasks.signals_refresh")
def signals_refresh() -> dict[str, int]:
    """Recompute the fair-play signals; returns ``{"players": n, "pairs": m, "backlogs": b}``: the rows
    written, and the reported players whose unanalysed rated matches were enqueued (the sweep behind a
    report's own enqueue, ``fairplay.reporting.backlog_enqueue``: a lost message is sent again within
    the hour; ``assistance_match`` skips what is done, so a second send costs nothing)."""
    written = signals.signals_refresh()
    backlogs = 0
    for user_id in Report.objects.filter(status=ReportStatus.OPEN).values_list("reported_id", flat=True) \
            .distinct().order_by("reported_id"):
        if reported_backlog(user_id=user_id):
            assistance_reported.delay(user_id)
            backlogs += 1
    return {**written, "backlogs": backlogs}


@shared_task(name="fairplay.tasks.assistance_match")
def assistance_match(match_id: int, why: str = SAMPLE) -> int:
    """Analyse match ``match_id``'s person seats; returns how many seat signals it has (0: not
    eligible, or its record fails verification)."""
    return len(run_match(match_id=match_id, why=why))


@shared_task(name="fairplay.tasks.assistance_reported")
def assistance_reported(user_id: int) -> int:
    """Enqueue the analysis of ``user_id``'s recent unanalysed rated matches; returns how many."""
    backlog = reported_backlog(user_id=user_id)
    for match_id in backlog:
        assistance_match.delay(match_id, REPORTED)
    return len(backlog)
