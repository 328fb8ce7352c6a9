"""Playbans: the wait before the next quick pairing that leaving rated matches earns (docs/lobby.md
"Playbans"; lichess's playban, adapted to matches)."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import User
from lobby.models import Playban


def active(*, user: User) -> Playban | None:
    """The playban of ``user`` in force now (the one ending last), or None."""
    return Playban.objects.filter(user=user, ends_at__gt=timezone.now()).order_by("-ends_at").first()
