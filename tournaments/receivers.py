"""Signal receivers of the tournaments app (connected in ``TournamentsConfig.ready``)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.loader import MigrationLoader

from tournaments.access import event_of_match, viewer_may_see
from tournaments.models import ArenaGame, Pairing
from tournaments.services import step_enqueue, tournaments_ensure

log = logging.getLogger(__name__)


def record_on_match_end(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    """``games.signals.match_finished`` (after the commit): a tournament match ended, so record its
    round at once, or run an Arena's wave (the beat sweep ``tournaments.tasks.advance`` does it too if
    this is lost)."""
    tournament_id = (
        Pairing.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True).first()
    )
    if tournament_id is not None:
        step_enqueue("tournaments.tasks.record_round", tournament_id)
        return
    arena_id = ArenaGame.objects.filter(match_id=match_id).values_list("tournament_id", flat=True).first()
    if arena_id is not None:  # an Arena match: a wave records it and pairs its players again at once
        step_enqueue("tournaments.tasks.arena_wave", arena_id)


def private_match_asked(sender: Any, *, match: Any, user: Any, session: Any = None, **kwargs: Any) -> bool:
    """``games.signals.private_match_asked``: whether ``user`` (not a player of ``match``, a private
    event's match) may see it: whoever may see its event (``access.may_view``: the event's players,
    organisers, staff, a club event's members, a code event's holders in ``session``). A match no event
    played (a leftover of a deleted event) is seen by its players only."""
    tournament = event_of_match(match.pk)
    return tournament is not None and viewer_may_see(tournament, user, session)


def schedule_after_migrate(sender: Any, *, using: str = "default", **kwargs: Any) -> None:
    """``post_migrate`` of this app: create the enabled schedules' tournaments of the next 7 days at once
    (``services.tournaments_ensure``, the beat task's own service), so a site just migrated lists the
    next events instead of waiting up to 10 minutes for beat. Idempotent like the beat: a second
    ``migrate`` (or a flush, which also sends ``post_migrate``) creates nothing more.

    Skipped when ``settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE`` is false (the test suite's database),
    for another database than the default, and while any migration of this app is still unapplied
    (``migrate <app> <older>``: the model's columns may not all exist yet)."""
    if not getattr(settings, "TOURNAMENTS_SCHEDULE_ON_MIGRATE", True) or using != DEFAULT_DB_ALIAS:
        return
    loader = MigrationLoader(connections[using], ignore_no_migrations=True)
    pending = [node for node in loader.graph.nodes
               if node[0] == "tournaments" and node not in loader.applied_migrations]
    if pending:
        log.info("tournaments: %d migrations unapplied, schedule not ensured", len(pending))
        return
    created = tournaments_ensure()
    log.info("tournaments: %d scheduled tournaments created after migrate", created)
