"""The end of a match: what a write that ends one sends, inside its transaction and after its commit."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from games import presence
from games.models import Match
from games.signals import match_finished, match_left


def finished_on_commit(match: Match) -> None:
    """After the commit that finishes ``match``, send ``games.signals.match_finished`` (the rating task
    is enqueued from there)."""
    match_id, rated = match.pk, match.rated

    def send() -> None:
        match_finished.send(sender=Match, match_id=match_id, rated=rated)

    transaction.on_commit(send)



def send_left(match: Match, seats: list[int], why: str, *, now: Any = None) -> None:
    """Inside the transaction ending ``match``: when it is between people, tell ``match_left``'s
    receivers (playbans) that ``seats`` left it (``why``: ``abandoned`` or ``timeouts``) at ``now``
    (default ``timezone.now()``)."""
    if presence.between_people(match):
        match_left.send(sender=Match, match=match, seats=seats, why=why, now=now or timezone.now())

