"""Computer analyses of finished matches (docs/analysis.md): asking for one and reading it.

The judging is ``engine.analysis`` (framework-free); running it and storing its result is
``replays.analysis_runs``. One row per (match, analysis version) (``MatchAnalysis``, a unique
constraint), so asking again, a second click, a re-delivered or a raced task never computes it twice:
:func:`analysis_request` creates the row (``queued``) and starts the run after the commit; asking again
only reads it, except to restart a run that failed or was lost (no progress for
``analysis_runs.STALE_AFTER``).

Where runs happen (a Celery worker, or the Daphne process itself on the embedded default) is
``replays.analysis_driver``.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import analysis as engine_analysis
from games.models import Match, MatchStatus
from replays import analysis_driver
from replays.analysis_runs import STALE_AFTER
from replays.models import AnalysisStatus, MatchAnalysis

VERSION = engine_analysis.ANALYSIS_VERSION


# --------------------------------------------------------------------------------------------- reads


def analysis_get(*, match: Match) -> MatchAnalysis | None:
    """The match's analysis at the current version, or None when nobody asked for it."""
    return MatchAnalysis.objects.filter(match_id=match.pk, version=VERSION).first()


def analysis_payload(analysis: MatchAnalysis | None, *, result: bool = True) -> dict[str, Any]:
    """What the replay page shows: ``{"type": "analysis", "status": "none" | queued | running | done |
    failed, "done", "total", "error", "result": engine.analysis.analyse(...) | null}`` (``result``
    only when done and asked for)."""
    if analysis is None:
        return {"type": "analysis", "status": "none", "done": 0, "total": 0, "error": "", "result": None}
    return {
        "type": "analysis", "status": analysis.status, "done": analysis.done, "total": analysis.total,
        "error": analysis.error,
        "result": analysis.result if result and analysis.status == AnalysisStatus.DONE else None,
    }


# --------------------------------------------------------------------------------------------- writes


def _stale(analysis: MatchAnalysis) -> bool:
    return analysis.updated_at is not None and analysis.updated_at < timezone.now() - STALE_AFTER


def restartable(analysis: MatchAnalysis) -> bool:
    """Whether asking again starts a new run: the analysis failed, or its run was lost (queued or running
    without progress for :data:`STALE_AFTER`). Otherwise asking again only reads it (and spends no limit:
    ``replays.analysis_limits``)."""
    return analysis.status == AnalysisStatus.FAILED or (
        analysis.status in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING) and _stale(analysis))


def analysis_request(*, match: Match, user: Any) -> tuple[MatchAnalysis, bool]:
    """Ask for the analysis of the finished ``match`` (the caller checked that ``user`` may see its
    replay); returns the row and whether a run was started by this call.

    A new row is queued and its run starts after the commit; an existing one is returned as it is,
    unless it failed or its run was lost (:data:`STALE_AFTER`): then it is queued again.

    :raises ValueError: the match is not finished.
    """
    if match.status != MatchStatus.FINISHED:
        raise ValueError("only a finished match can be analysed")
    who = user if user is not None and user.is_authenticated else None
    try:
        with transaction.atomic():
            analysis, created = MatchAnalysis.objects.get_or_create(
                match=match, version=VERSION, defaults={"requested_by": who})
    except IntegrityError:  # another request created it in between
        analysis, created = MatchAnalysis.objects.get(match=match, version=VERSION), False
    restart = not created and restartable(analysis)
    if restart:
        # compare-and-set: of two clicks on a failed analysis one restarts it
        restart = MatchAnalysis.objects.filter(
            pk=analysis.pk, status=analysis.status, updated_at=analysis.updated_at,
        ).update(status=AnalysisStatus.QUEUED, error="", updated_at=timezone.now()) == 1
        analysis.refresh_from_db()
    if created or restart:
        analysis_id = analysis.pk
        transaction.on_commit(lambda: analysis_driver.start(analysis_id), robust=True)
    return analysis, created or restart
