"""Whether a player may start looking for an opponent now (docs/lobby.md "Who may join"): the checks a
pool join, an open challenge and its acceptance share, so each refuses the same way."""

from __future__ import annotations

from accounts.models import User
from games.services import active_rated_match_id
from lobby import playbans
from lobby.errors import refuse
from lobby.labels import pool_label_lazy
from lobby.models import EntryStatus, PoolEntry, Seek, SeekStatus


def check_free(*, user: User, rated: bool, playban: bool = True) -> None:
    """Raise the first reason ``user`` may not start looking for a match now, or return.

    :param rated: the match sought is rated (a guest may not).
    :param playban: whether a playban in force refuses (pools and open challenges: yes).
    :raises GameError: ``not_authenticated`` (anonymous, inactive or a bot), ``guest_rated``,
        ``playban`` (the message names the reason, the rated matches left in 24 h and the wait;
        ``params``: :func:`lobby.playbans.refusal_params`), ``match_in_progress``
        (an active rated match),
        ``already_waiting`` (a waiting pool entry; ``params``: ``pool``, its label, and ``pool_slug``),
        ``already_seeking`` (an open seek of theirs).
        Call inside the transaction that then writes, after locking the user's row
        (``User.objects.select_for_update(no_key=True)``) so two tabs racing are serialized.
    """
    if not getattr(user, "is_authenticated", False) or user.is_bot or not user.is_active:
        raise refuse("not_authenticated")
    if rated and user.is_guest:
        raise refuse("guest_rated")
    if playban and (ban := playbans.active(user=user)) is not None:
        # the message says why and how long is left; ``lobby.errors.said`` says it in the reader's language
        raise refuse("playban", **playbans.refusal_params(ban=ban))
    if (match_id := active_rated_match_id(user_id=user.pk)) is not None:
        raise refuse("match_in_progress", match_id=match_id)
    waiting = PoolEntry.objects.filter(user=user, status=EntryStatus.WAITING).select_related("pool").first()
    if waiting is not None:
        raise refuse("already_waiting", pool=pool_label_lazy(waiting.pool), pool_slug=waiting.pool.slug)
    if Seek.objects.filter(creator=user, status=SeekStatus.OPEN).exists():
        raise refuse("already_seeking")
