"""Celery tasks of the replays app (thin).

- ``replays.analyse_match(analysis_id)``: run one computer analysis (``replays.analysis_runs.analysis_run``:
  idempotent, a re-delivered or raced task computes it once). Enqueued by ``replays.analysis_driver``
  when someone asks for it; no beat entry. Acknowledged after it ran and retried on a database error
  (``config.celery.TASK_POLICY``, which says why a dead pool process does not give it back).
"""

from __future__ import annotations

from celery import shared_task

from replays.analysis_runs import analysis_run


@shared_task(name="replays.analyse_match")
def analyse_match(analysis_id: int) -> bool:
    """Analyse: True when this run stored the analysis (False when it was done, failed, or another run
    holds it)."""
    return analysis_run(analysis_id=analysis_id)
