"""Whether a player may start looking for an opponent now (docs/lobby.md "Who may join"): the checks a
pool join, an open challenge and its acceptance share, so each refuses the same way."""

from __future__ import annotations

import math

from django.utils import timezone

from accounts.models import User
from games.services import GameError, active_rated_match_id
from lobby import playbans
from lobby.errors import MESSAGES, refuse
from lobby.models import EntryStatus, PoolEntry, Seek, SeekStatus


def check_free(*, user: User, rated: bool, playban: bool = True) -> None:
    """Raise the first reason ``user`` may not start looking for a match now, or return.

    :param rated: the match sought is rated (a guest may not).
    :param playban: whether a playban in force refuses (pools and open challenges: yes).
    :raises GameError: ``not_authenticated`` (anonymous, inactive or a bot), ``guest_rated``,
        ``playban`` (minutes left, rounded up; the message names the reason), ``match_in_progress``
        (an active rated match),
        ``already_waiting`` (a waiting pool entry), ``already_seeking`` (an open seek of theirs).
        Call inside the transaction that then writes, after locking the user's row
        (``User.objects.select_for_update(no_key=True)``) so two tabs racing are serialized.
    """
    if not getattr(user, "is_authenticated", False) or user.is_bot or not user.is_active:
        raise refuse("not_authenticated")
    if rated and user.is_guest:
        raise refuse("guest_rated")
    if playban and (ban := playbans.active(user=user)) is not None:
        minutes = max(1, math.ceil((ban.ends_at - timezone.now()).total_seconds() / 60))
        # code ``playban``; the message says why (``playban_<reason>``; people see it translated through
        # ``lobby.playbans.notice`` and ``errors.text("playban_" + reason, minutes=...)``)
        why = MESSAGES.get(f"playban_{ban.reason}", MESSAGES["playban"])
        raise GameError("playban", why.format(minutes=minutes))
    if (match_id := active_rated_match_id(user_id=user.pk)) is not None:
        raise refuse("match_in_progress", match_id=match_id)
    if PoolEntry.objects.filter(user=user, status=EntryStatus.WAITING).exists():
        raise refuse("already_waiting")
    if Seek.objects.filter(creator=user, status=SeekStatus.OPEN).exists():
        raise refuse("already_seeking")
