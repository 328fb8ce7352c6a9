"""Celery tasks of the replays app (thin).

- ``replays.analyse_match(analysis_id)``: run one computer analysis (``replays.analysis_runs.analysis_run``:
  idempotent, a re-delivered or raced task computes it once). Enqueued by ``replays.analysis_driver``
  when someone asks for it; no beat entry.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from replays.analysis_runs import analysis_run


@shared_task(name="replays.analyse_match", ignore_result=True, acks_late=True,
             autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def analyse_match(analysis_id: int) -> bool:
    """Analyse: True when this run stored the analysis (False when it was done, failed, or another run
    holds it)."""
    return analysis_run(analysis_id=analysis_id)
