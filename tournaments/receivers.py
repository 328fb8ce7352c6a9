"""Signal receivers of the tournaments app (connected in ``TournamentsConfig.ready``)."""

from __future__ import annotations

from typing import Any


def record_on_match_end(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    """``games.signals.match_finished`` (after the commit): a tournament match ended, so record its
    round at once (the beat sweep ``tournaments.tasks.advance`` does it too if this is lost)."""
    from tournaments.models import Pairing
    from tournaments.services import step_enqueue

    tournament_id = (
        Pairing.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True).first()
    )
    if tournament_id is not None:
        step_enqueue("tournaments.tasks.record_round", tournament_id)
