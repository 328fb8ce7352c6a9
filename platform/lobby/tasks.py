"""Celery tasks of the lobby. Open and direct challenges: ``sweep_challenges`` (beat, every 5 s:
``config.celery.BEAT_SCHEDULE``), the safety net of the in-process sweep (``lobby.challenge_sweep``)."""

from __future__ import annotations

from celery import shared_task

from lobby import challenge_sweep


@shared_task(name="lobby.tasks.sweep_challenges")
def sweep_challenges() -> int:
    """Expire open seeks and direct challenges, end the seeks of creators who left the lobby (idempotent:
    ``challenge_sweep.beat_sweep``); returns how many ended."""
    return challenge_sweep.beat_sweep()
