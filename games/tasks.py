"""Celery tasks of the games app: the server's moves (bot moves, automatic moves at a turn deadline)
and the sweep of abandoned casual matches.

``play_server_moves`` is enqueued by ``games.scheduling`` after each commit that leaves a server move
pending, with a countdown until it is due; ``sweep_server_moves`` (beat, every ``scheduling.SWEEP_SECONDS``)
is the safety net for lost messages. Both call the idempotent ``services.match_play_server_moves``, so
duplicated, late or concurrent deliveries apply each move once. Beat's entries and every task's delivery
policy: ``config.celery``.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from games import conf, scheduling, services
from games.models import Match, MatchStatus

SWEEP_GRACE_SECONDS = 1.0
"""A move due longer ago than this was lost (its task normally runs on time)."""
IN_PROCESS_SWEEP_GRACE_SECONDS = 30.0
"""With the in-process driver and the in-memory channel layer (embedded default) Daphne sweeps its own
matches and broadcasts the moves; the worker only steps in for a match Daphne has left alone this long
(Daphne down: the worker's move is stored, and the table sees it when it reconnects)."""
DAPHNE_TAKEOVER_GRACE_SECONDS = 3.0
"""With the in-process driver on Redis (production default) every Daphne process sweeps every 5 s (1 s
grace), so a move this overdue was left by a Daphne that died: a worker plays it (its broadcast reaches
the tables through Redis). Racing a live Daphne is harmless (the seq compare-and-set)."""

@shared_task(name="games.tasks.play_server_moves")
def play_server_moves(match_id: int, expected_seq: int | None = None) -> int:
    """Play the due server moves of one match (``services.match_play_server_moves``); returns how many."""
    return services.match_play_server_moves(match_id=match_id, expected_seq=expected_seq)


def _enqueue(match_id: int, seq: int | None, delay: float) -> None:
    play_server_moves.apply_async(kwargs={"match_id": match_id, "expected_seq": seq}, countdown=delay,
                                  retry=False)


DRIVER = scheduling.Driver(
    play=lambda match_id, seq: services.match_play_server_moves(match_id=match_id, expected_seq=seq),
    enqueue=_enqueue,
    sweep=lambda grace, heavy: services.match_sweep_server_moves(grace_seconds=grace, heavy=heavy),
    sweep_absent=lambda: services.match_sweep_absent(),
)
"""What ``games.scheduling`` runs (connected by ``GamesConfig.ready``): the services' driver and sweeps
in process, this module's task for a worker. Each reads the service when called, so a test that
replaces ``services.match_play_server_moves`` replaces it here too."""


@shared_task(name="games.tasks.sweep_server_moves")
def sweep_server_moves() -> int:
    """Drive every active match whose server move or turn deadline is overdue; returns the moves made.

    On Redis each overdue match gets its own ``play_server_moves`` task (spread over the workers) and
    the return value is the number of matches enqueued; with the in-process driver there only matches
    overdue by ``DAPHNE_TAKEOVER_GRACE_SECONDS`` (left by a Daphne that died), and the heavy ones
    (``scheduling.heavy``, the workers' own) overdue by ``SWEEP_GRACE_SECONDS``.
    """
    if scheduling.in_process() and scheduling.local_layer():
        with scheduling.no_timers():  # no timers in a worker: its broadcasts would reach no socket
            return services.match_sweep_server_moves(grace_seconds=IN_PROCESS_SWEEP_GRACE_SECONDS)
    if scheduling.by_daphne(is_heavy=False):  # production default: Daphne drives all but heavy moves
        due = services.match_overdue_ids(grace_seconds=DAPHNE_TAKEOVER_GRACE_SECONDS, heavy=False)
        if not scheduling.by_daphne(is_heavy=True):
            due += services.match_overdue_ids(grace_seconds=SWEEP_GRACE_SECONDS, heavy=True)
    else:
        due = services.match_overdue_ids(grace_seconds=SWEEP_GRACE_SECONDS)
    for match_id in due:
        play_server_moves.apply_async(kwargs={"match_id": match_id})
    return len(due)


@shared_task(name="games.tasks.expire_due_turns")
def expire_due_turns() -> int:
    """Former name of the sweep, kept for beat entries stored in the database by earlier versions."""
    return int(sweep_server_moves())


@shared_task(name="games.tasks.abandon_idle_matches")
def abandon_idle_matches() -> int:
    """End as abandoned every casual bot match (no turn timer) without a move for
    ``conf.ABANDON_AFTER`` (24 h). Idempotent (``services.match_abandon`` locks and re-checks each
    one). Returns how many were ended."""
    stale = Match.objects.filter(
        status=MatchStatus.ACTIVE, bot_level__isnull=False, turn_timer_seconds__isnull=True,
        updated_at__lte=timezone.now() - conf.ABANDON_AFTER,
    ).values_list("pk", flat=True)
    return sum(1 for match_id in list(stale) if services.match_abandon(match_id=match_id))


@shared_task(name="games.tasks.end_absent_matches")
def end_absent_matches() -> int:
    """End without a result every match between people whose players are gone (docs/lobby.md "Leaving a
    match between people": both seats gone ``GAMES_GONE_END_AFTER`` s, or one ``GAMES_ONE_GONE_END_AFTER``
    s); idempotent (``services.match_end_absent`` locks and re-checks each). Beat runs it every
    ``scheduling.ABSENT_SWEEP_SECONDS``. With the in-memory layer (embedded default) Daphne's own sweep
    ends them and broadcasts the end; this worker's sweep waits ``IN_PROCESS_SWEEP_GRACE_SECONDS`` longer
    (for a Daphne that is down). Returns how many were ended."""
    grace = timedelta(seconds=IN_PROCESS_SWEEP_GRACE_SECONDS if scheduling.local_layer() else 0)
    with scheduling.no_timers():
        return services.match_sweep_absent(grace=grace)
