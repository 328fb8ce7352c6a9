"""Whether a player may start looking for an opponent now (docs/lobby.md "Who may join"): the checks a
pool join, an open challenge and its acceptance share, so each refuses the same way."""

from __future__ import annotations

from accounts.models import Standing, User
from games.services import active_rated_match_id, pair_rated_cap, pair_rated_full
from lobby import playbans
from lobby.errors import refuse
from lobby.labels import pool_label_lazy
from lobby.models import EntryStatus, PoolEntry, Seek, SeekStatus


def check_free(*, user: User, rated: bool, playban: bool = True) -> None:
    """Raise the first reason ``user`` may not start looking for a match now, or return.

    :param rated: the match sought is rated (a guest may not).
    :param playban: whether a playban in force refuses (pools and open challenges: yes).
    :raises GameError: ``not_authenticated`` (anonymous, inactive or a bot), ``guest_rated``,
        ``account_marked`` (rated, and the account is not in good standing: docs/fairplay.md),
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
    if rated and not _in_good_standing(user.pk):
        raise refuse("account_marked")
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


def _in_good_standing(user_id: int) -> bool:
    """Whether ``user_id``'s account is in good standing as stored now (a moderator's mark made after the
    request loaded the user counts)."""
    return User.objects.filter(pk=user_id, standing=Standing.GOOD).exists()


def check_pair(*, user: User, other: User, rated: bool) -> None:
    """Raise the first reason ``user`` may not start a rated match against ``other`` (the seek's creator,
    the challenger) now, or return; a casual match: always return. Call after :func:`check_free` of
    ``user``, with both rows locked (``lobby.seeks.lock_users``).

    :raises GameError: ``opponent_marked`` (``other`` is not in good standing; ``params``: ``name``),
        ``pair_rated_limit`` (the two started their daily cap, ``games.services.pair_rated_cap``, of
        rated matches against each other in the last 24 hours; ``params``: ``name``, ``limit``).
    """
    if not rated:
        return
    if not _in_good_standing(other.pk):
        raise refuse("opponent_marked", name=other.public_name)
    if pair_rated_full(user_id=user.pk, other_id=other.pk):
        raise refuse("pair_rated_limit", name=other.public_name,
                     limit=pair_rated_cap(user_id=user.pk, other_id=other.pk))
