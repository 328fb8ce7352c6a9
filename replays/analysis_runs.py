"""Running one computer analysis (docs/analysis.md): :func:`analysis_run` claims its row, judges the
match with ``engine.analysis`` and stores the result, reporting progress on the way.

The claim is one compare-and-set ``UPDATE`` (``queued`` or a stale ``running`` -> ``running`` with the
run's own token): of two runs started together one claims it and the other returns at once; a run that
is taken over (presumed dead: no progress for :data:`STALE_AFTER`) stores nothing. Progress is written
to the row (the heartbeat) and pushed to the replay page's socket (``analysis_<id>`` group,
``replays.consumers.AnalysisConsumer``) at most every :func:`push_every` seconds.

Who calls it: ``replays.analysis_driver`` (in the Daphne process) or the Celery task
``replays.analyse_match`` (``replays.tasks``); asking for an analysis is ``replays.analyses``.
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from engine import analysis as engine_analysis
from push.groups import analysis_group
from push.send import send_now
from replays import selectors
from replays.models import AnalysisStatus, MatchAnalysis

log = logging.getLogger(__name__)

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
