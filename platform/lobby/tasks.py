"""Celery tasks of the lobby. Open and direct challenges: ``sweep_challenges`` (beat, every
``challenge_sweep.BEAT_SECONDS``), the safety net of the in-process sweep (``lobby.challenge_sweep``)."""

from __future__ import annotations

from celery import current_app, shared_task

from lobby import challenge_sweep

current_app.conf.beat_schedule = {
    **(current_app.conf.beat_schedule or {}),
    "lobby-sweep-challenges": {"task": "lobby.tasks.sweep_challenges",
                               "schedule": challenge_sweep.BEAT_SECONDS},
}


@shared_task(name="lobby.tasks.sweep_challenges", ignore_result=True)
def sweep_challenges() -> int:
    """Expire open seeks and direct challenges, end the seeks of creators who left the lobby (idempotent:
    ``challenge_sweep.beat_sweep``); returns how many ended."""
    return challenge_sweep.beat_sweep()
