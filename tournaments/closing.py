"""The last write of every event, Swiss or Arena: its winner, status, end time and each person's rating
at the end (the page shows the change over the event), then the live pages are told."""

from __future__ import annotations

from datetime import datetime

from tournaments import live, selectors
from tournaments.models import Tournament, TournamentStatus


def event_close(tournament: Tournament, *, winner_id: int | None, now: datetime) -> None:
    """Finish ``tournament`` (locked by the caller, running) with ``winner_id`` first in its standings
    (None: an empty field); in the caller's transaction."""
    tournament.winner_id = winner_id
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["winner", "status", "finished_at"])
    for registration in tournament.registrations.select_related("user"):
        if not registration.user.is_bot:
            registration.rating_after = selectors.rating_of(registration.user)
            registration.save(update_fields=["rating_after"])
    live.tournament_changed(tournament.pk)
