"""Celery tasks of the tournaments app: thin wrappers of the lifecycle services (each step its own
task, idempotent by row lock + status check) and the beat jobs.

- ``tournaments.tasks.ensure_schedule`` (beat, every 10 min): create the next 7 days' tournaments.
- ``tournaments.tasks.advance`` (beat, every 5 s): open the scheduled tournaments (all in one update),
  then enqueue the due steps (the safety net for a lost message, the no-show / round-end check, and a
  wave of every running Arena).
- ``tournaments.tasks.remind`` (beat, every 30 s): send the reminders due (``notices.reminders_send``).
- ``tournaments.tasks.arena_wave``: one Arena wave (after a match ends, a join, a resume, the sweep).

Beat's entries and every task's delivery policy: ``config.celery``.
"""

from __future__ import annotations

from celery import shared_task

from tournaments import arena_play, notices, services
from tournaments.models import Tournament


@shared_task(name="tournaments.tasks.ensure_schedule")
def ensure_schedule() -> int:
    return services.tournaments_ensure()


@shared_task(name="tournaments.tasks.open")
def open_(tournament_id: int) -> bool:
    return services.tournament_open(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.start")
def start(tournament_id: int) -> bool:
    return services.tournament_start(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.pair_round")
def pair_round(tournament_id: int, number: int | None = None) -> bool:
    """Pair round ``number`` (default: the next one)."""
    if number is None:
        current = Tournament.objects.filter(pk=tournament_id).values_list("current_round", flat=True).first()
        if current is None:
            return False
        number = current + 1
    return services.round_pair(tournament_id=tournament_id, number=number)


@shared_task(name="tournaments.tasks.record_round")
def record_round(tournament_id: int) -> bool:
    return services.round_record(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.finish")
def finish(tournament_id: int) -> bool:
    return services.tournament_finish(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.arena_wave")
def arena_wave(tournament_id: int) -> int:
    """One Arena wave (``arena_play.arena_wave``): record, pair, or finish; returns the pairs made."""
    return arena_play.arena_wave(tournament_id=tournament_id).paired


@shared_task(name="tournaments.tasks.advance")
def advance() -> int:
    """Open every scheduled tournament here, at once (``services.tournaments_open_scheduled``), then
    enqueue every other lifecycle step due now (``services.tournaments_due``). Returns how many
    tournaments it opened plus how many steps it enqueued."""
    opened = services.tournaments_open_scheduled()
    steps = services.tournaments_due()
    for name, tournament_id in steps:
        services.step_enqueue(name, tournament_id)
    return len(opened) + len(steps)


@shared_task(name="tournaments.tasks.remind")
def remind() -> int:
    """Send the "remind me" notices due now (``notices.reminders_send``: idempotent under row locks)."""
    return notices.reminders_send()
