"""Celery tasks of the fair-play app (thin: each calls its module).

- ``fairplay.tasks.signals_refresh()``: beat, hourly (``config.celery.BEAT_SCHEDULE``
  ``fairplay-signals-refresh``), on the background queue: recompute the pair and player signals of the
  players active in the window (``fairplay.signals.signals_refresh``). Idempotent (upserts of the same
  rows), so the default delivery (acknowledged on receipt, never retried) is enough: a lost run is the
  next hour's.
"""

from __future__ import annotations

from celery import shared_task

from fairplay import signals


@shared_task(name="fairplay.tasks.signals_refresh")
def signals_refresh() -> dict[str, int]:
    """Recompute the fair-play signals; returns ``{"players": n, "pairs": m}``, the rows written."""
    return signals.signals_refresh()
