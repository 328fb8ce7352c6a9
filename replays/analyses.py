"""Computer analyses of finished matches (docs/analysis.md): asking for one, running it, reading it.

The judging is ``engine.analysis`` (framework-free); this module stores it. One row per (match,
analysis version) (``MatchAnalysis``, a unique constraint), so asking again, a second click, a
re-delivered or a raced task never computes it twice:

- :func:`analysis_request` creates the row (``queued``) and starts the run after the commit; asking
  again only reads it, except to restart a run that failed or was lost (no progress for
  :data:`STALE_AFTER`).
- :func:`analysis_run` claims the row with one compare-and-set ``UPDATE`` (``queued`` or a stale
  ``running`` -> ``running`` with the run's own token): of two runs started together one claims it and
  the other returns at once; a run that is taken over (presumed dead) stores nothing. Progress is
  written to the row (the heartbeat) and pushed to the replay page's socket (``analysis_<id>`` group,
  ``replays.consumers.AnalysisConsumer``) at most every :func:`push_every` seconds.

Where runs happen (a Celery worker, or the Daphne process itself on the embedded default) is
``replays.analysis_driver``.
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from engine import analysis as engine_analysis
from games.models import Match, MatchStatus
from push.groups import analysis_group
from push.send import send_now
from replays import selectors
from replays.models import AnalysisStatus, MatchAnalysis

log = logging.getLogger(__name__)

VERSION = engine_analysis.ANALYSIS_VERSION
STALE_AFTER = timedelta(minutes=2)
"""A run that has reported no progress for this long is presumed dead: asking again restarts it."""
PUSH_EVERY = 0.5
"""Default least seconds between two progress reports of one run (the row's heartbeat and the page's
bar): :func:`push_every`."""


def push_every() -> float:
    """Least seconds between two progress reports of one run: the setting ``REPLAYS_ANALYSIS_PUSH_EVERY``
    when given (0: every decision is reported; tests that must see the progress whatever the machine's
    speed), else :data:`PUSH_EVERY`. The first (0 done) and the last report are always sent."""
    return float(getattr(settings, "REPLAYS_ANALYSIS_PUSH_EVERY", PUSH_EVERY))


def engine_settings() -> engine_analysis.Settings:
    """The evaluator's settings: ``engine.analysis.Settings`` with ``REPLAYS_ANALYSIS_WORLDS`` worlds
    when that setting is given (tests analyse with few)."""
    worlds = getattr(settings, "REPLAYS_ANALYSIS_WORLDS", None)
    base = engine_analysis.Settings()
    if worlds is None:
        return base
    stages = tuple((n, m) for n, m in base.stages if n < int(worlds))
    return engine_analysis.Settings(worlds=int(worlds), stages=stages, seed=base.seed)


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
        from replays import analysis_driver

        analysis_id = analysis.pk
        transaction.on_commit(lambda: analysis_driver.start(analysis_id), robust=True)
    return analysis, created or restart


class _Superseded(Exception):
    """Another run took the row over (this one was presumed dead): stop, store nothing."""


def _push(match_id: int, message: dict[str, Any]) -> None:
    """Send ``message`` to the match's analysis group now (``push.send``: an outage is recorded and
    logged, not raised: the row is the truth, and a socket that missed a push reads it on its next sync
    or reconnect).

    :raises Exception: any other error (a bug: it fails the run and its tests)."""
    send_now([(analysis_group(match_id), message)])


def analysis_run(*, analysis_id: int) -> bool:
    """Compute and store analysis ``analysis_id``; True when this call stored it. Does nothing (False)
    when the row is missing, done, failed, or held by a live run. A match whose record fails
    verification is marked failed with the event, never analysed."""
    token = secrets.token_hex(8)
    now = timezone.now()
    lost = Q(status=AnalysisStatus.RUNNING, updated_at__lt=now - STALE_AFTER)
    claimed = MatchAnalysis.objects.filter(
        Q(pk=analysis_id) & (Q(status=AnalysisStatus.QUEUED) | lost)
    ).update(status=AnalysisStatus.RUNNING, run=token, started_at=now, updated_at=now, error="")
    if claimed != 1:
        return False
    analysis = MatchAnalysis.objects.select_related("match", "match__player0", "match__player1").get(
        pk=analysis_id)
    match = analysis.match
    mine = MatchAnalysis.objects.filter(pk=analysis_id, run=token, status=AnalysisStatus.RUNNING)
    last = [0.0]
    every = push_every()

    def progress(done: int, total: int) -> None:
        clock = time.monotonic()
        if done not in (0, total) and clock - last[0] < every:
            return
        last[0] = clock
        if mine.update(done=done, total=total, updated_at=timezone.now()) != 1:
            raise _Superseded
        _push(match.pk, {"type": "analysis.progress", "status": AnalysisStatus.RUNNING, "done": done,
                         "total": total})

    def fail(reason: str) -> bool:
        if mine.update(status=AnalysisStatus.FAILED, error=reason[:300], finished_at=timezone.now()) == 1:
            _push(match.pk, {"type": "analysis.progress", "status": AnalysisStatus.FAILED,
                             "done": 0, "total": 0})
        return False

    try:
        record = selectors.match_record(match=match)
        result = engine_analysis.analyse(record, engine_settings(), progress=progress)
    except _Superseded:
        return False
    except selectors.ReplayFailed as exc:
        return fail(f"the match's record failed verification at event {exc.event}: {exc.reason}")
    except Exception as exc:  # a bug: the row says so, and asking again retries
        log.exception("match %s: analysis %s failed", match.pk, analysis_id)
        return fail(f"internal error ({type(exc).__name__})")
    total = len(result["decisions"])
    stored = mine.update(status=AnalysisStatus.DONE, result=result, done=total, total=total,
                         finished_at=timezone.now()) == 1
    if stored:
        _push(match.pk, {"type": "analysis.progress", "status": AnalysisStatus.DONE, "done": total,
                         "total": total})
    return stored
