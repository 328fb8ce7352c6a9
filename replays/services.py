"""Replay writes: a match's sharing settings (link token, public flag)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from accounts.models import User
from games.models import Match
from replays.models import ReplayAccess


class ReplayPermissionError(Exception):
    """The user may not change this match's sharing (not its owner / not a player)."""


def replay_access_ensure(*, match: Match) -> ReplayAccess:
    """The match's sharing settings, created (private, new token) if missing. Idempotent."""
    access, _ = ReplayAccess.objects.get_or_create(match=match)
    return access


@transaction.atomic
def replay_set_public(*, match: Match, user: User | AnonymousUser, public: bool) -> ReplayAccess:
    """The owner (seat 0, who created the match) makes its replay (and live watching) public or not.

    :raises ReplayPermissionError: ``user`` is not the owner.
    """
    if not user.is_authenticated or match.player0_id != user.pk:
        raise ReplayPermissionError("only the player who created this match can change who may watch it")
    access = replay_access_ensure(match=match)
    if access.public != public:
        access.public = public
        access.save(update_fields=["public", "updated_at"])
    return access
