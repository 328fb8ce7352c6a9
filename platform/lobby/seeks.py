"""Open challenges of the lobby (``/lobby/``; docs/lobby.md "Open challenges"): create, cancel, accept,
expire, and the list each viewer sees.

Every write locks what it decides on and re-checks it inside one transaction; live updates go out after
the commit (``lobby.challenge_push``). Refusals raise :class:`games.services.GameError` with a code of
``lobby.errors`` and change nothing.

Settings (read at each call; defaults here):

- ``LOBBY_SEEK_MINUTES`` (:data:`SEEK_MINUTES`): an open challenge expires this long after it was made.
- ``LOBBY_SEEK_LEAVE_SECONDS`` (:data:`LEAVE_SECONDS`): the creator's last ``ws/lobby/`` socket gone this
  long cancels their open challenge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from engine.rules import PRESETS
from games import services as game_services
from games.models import Match
from lobby import busy, challenge_push
from lobby.errors import refuse, text
from lobby.models import Seek, SeekStatus
from push.send import send_on_commit
from ratings.elo import shown
from ratings.selectors import rating_get

SEEK_MINUTES = 20.0
LEAVE_SECONDS = 10.0
TIMER_CHOICES: tuple[int | None, ...] = (None, 20, 30, 60, 120, 300)
"""Turn timers offered (seconds per move; None: no timer, casual only: a rated match always has one, the
friend table's :data:`games.conf.RATED_TURN_TIMER`). All inside the friend table's 15..600 s."""
LIST_LIMIT = 200
"""The list shows at most this many open seeks (the oldest first: they expire first)."""
RATING_BOUNDS = (0, 4000)
"""A rating range's ends must lie here."""
RATING_STEP = 50
"""A rating range's ends are multiples of this (the form's ``step``; the server refuses others with
``bad_settings``): ranges read "1450–1600", not "1437–1612"."""


def seek_minutes() -> float:
    return float(getattr(settings, "LOBBY_SEEK_MINUTES", SEEK_MINUTES))


def leave_seconds() -> float:
    return float(getattr(settings, "LOBBY_SEEK_LEAVE_SECONDS", LEAVE_SECONDS))


@dataclass(frozen=True, slots=True)
class Settings:
    """A match's settings as a seek or a direct challenge states them (checked by :func:`check_settings`)."""

    preset: str = "classic"
    target: int = 100
    turn_timer: int | None = None
    rated: bool = False


def check_settings(choice: Settings) -> Settings:
    """``choice`` with a rated match's missing timer filled in (``RATED_TURN_TIMER``).

    :raises GameError: ``bad_settings``: unknown preset, target not 50/100, a timer not offered."""
    if choice.preset not in PRESETS:
        raise refuse("bad_settings", detail=f"unknown rules preset {choice.preset!r}")
    if choice.target not in game_services.TARGETS:
        raise refuse("bad_settings", detail=f"target must be 50 or 100, got {choice.target!r}")
    if choice.turn_timer not in TIMER_CHOICES:
        raise refuse("bad_settings", detail=f"turn timer must be one of {TIMER_CHOICES[1:]} or none")
    if choice.rated and choice.turn_timer is None:
        return Settings(choice.preset, choice.target, game_services.RATED_TURN_TIMER, True)
    return choice


def lock_users(*users: User) -> None:
    """Lock the rows of ``users`` (FOR NO KEY UPDATE, in id order: no deadlock between two writes that
    lock the same two players), as ``busy.check_free`` asks: a player's pool join, seek, challenge and
    bot match are serialized, so two of them never both pass the check."""
    ids = sorted({user.pk for user in users})
    list(User.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk").values_list("pk"))


def seek_create(*, user: User, choice: Settings, rating_min: int | None = None,
                rating_max: int | None = None, now: datetime | None = None) -> Seek:
    """Open a challenge in the lobby for anyone to accept (a rating range: only players whose shown
    rating lies in ``rating_min..rating_max``, either end optional; each a multiple of
    :data:`RATING_STEP` in :data:`RATING_BOUNDS`).

    :raises GameError: ``people_only`` (a BOT account: open challenges are for people, docs/bot-api.md),
        ``busy.check_free``'s codes (``already_seeking`` for a second open seek, also
        when two requests race: the one-open-seek constraint), ``bad_settings`` (also a bound out of
        range or not a multiple of :data:`RATING_STEP`, or the lowest above the highest).
    """
    if getattr(user, "bot_account", False):
        raise refuse("people_only")
    choice = check_settings(choice)
    for bound in (rating_min, rating_max):
        low, high = RATING_BOUNDS
        if bound is not None and (type(bound) is not int or not low <= bound <= high):
            raise refuse("bad_settings", detail=f"a rating bound must be {low}..{high}")
        if bound is not None and bound % RATING_STEP:
            raise refuse("bad_settings", detail=f"a rating bound must be a multiple of {RATING_STEP}")
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise refuse("bad_settings", detail="the lowest rating is above the highest")
    now = now or timezone.now()
    with transaction.atomic():
        lock_users(user)
        busy.check_free(user=user, rated=choice.rated)
        try:
            with transaction.atomic():
                seek = Seek.objects.create(
                    creator=user, preset=choice.preset, target=choice.target,
                    turn_timer_seconds=choice.turn_timer, rated=choice.rated, rating_min=rating_min,
                    rating_max=rating_max, creator_rating=rating_get(user=user).rating,
                    expires_at=now + timedelta(minutes=seek_minutes()),
                )
        except IntegrityError:  # lobby_one_open_seek: a second tab's request won
            raise refuse("already_seeking") from None
        send_on_commit(challenge_push.lobby_changed())
    return seek


def seek_cancel(*, user: User, seek_id: int) -> bool:
    """Withdraw ``user``'s open challenge ``seek_id``; False when it was no longer open (idempotent).

    :raises GameError: ``seek_not_found``, ``seek_not_yours``."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id).first()
        if seek is None:
            raise refuse("seek_not_found")
        if seek.creator_id != user.pk:
            raise refuse("seek_not_yours")
        if seek.status != SeekStatus.OPEN:
            return False
        seek.status = SeekStatus.CANCELLED
        seek.save(update_fields=["status"])
        send_on_commit(challenge_push.lobby_changed())
    return True


def range_refusal(seek: Seek, viewer: User, viewer_rating: int | None) -> tuple[str, dict[str, Any]] | None:
    """Why ``viewer`` (shown rating ``viewer_rating``, None for a guest) is outside ``seek``'s rating
    range: ``(code, params)``, or None when inside it (or it has none)."""
    if seek.rating_min is None and seek.rating_max is None:
        return None
    if viewer_rating is None:
        return "seek_guest_range", {}
    low, high = seek.rating_min, seek.rating_max
    if (low is not None and viewer_rating < low) or (high is not None and viewer_rating > high):
        return "seek_out_of_range", {"range": range_text(low, high), "rating": viewer_rating}
    return None


def range_text(low: int | None, high: int | None) -> str:
    """``"1400–1600"``, ``"1400+"``, ``"≤1600"`` or ``""``."""
    if low is not None and high is not None:
        return f"{low}–{high}"
    if low is not None:
        return f"{low}+"
    return "" if high is None else f"≤{high}"


def shown_rating(user: User) -> int | None:
    """The rating shown to ``user`` (provisional or not), None for a guest."""
    return None if user.is_guest else rating_get(user=user).shown


def seek_accept(*, user: User, seek_id: int, now: datetime | None = None) -> Match:
    """Accept the open challenge ``seek_id``: start the match (its creator at seat 0) and send its
    creator there. ``user``'s own open seek, if any, is withdrawn in the same transaction.

    Two players accepting at once: both wait on the seek's row lock; the first starts the match, the
    second then finds it accepted and gets ``seek_taken``. The same player accepting twice (two tabs):
    the second gets the match the first started (nothing changes, nothing is pushed).

    :raises GameError: ``people_only`` (a BOT account), ``seek_not_found``, ``seek_own``, ``seek_taken``,
        ``seek_gone``, ``seek_expired``
        (also an open seek past its ``expires_at`` the sweep has not reached yet), ``seek_guest_range``,
        ``seek_out_of_range``, ``seek_creator_busy`` (a rated seek whose creator started a rated match
        since), ``busy.check_free``'s codes for ``user`` and ``busy.check_pair``'s (``opponent_marked``,
        ``pair_rated_limit``) for the two.
    """
    if getattr(user, "bot_account", False):
        raise refuse("people_only")
    now = now or timezone.now()
    with transaction.atomic():
        seek = (Seek.objects.select_for_update(of=("self",)).select_related("creator")
                .filter(pk=seek_id).first())
        if seek is None:
            raise refuse("seek_not_found")
        if seek.creator_id == user.pk:
            raise refuse("seek_own")
        if seek.status == SeekStatus.ACCEPTED:
            if seek.accepted_by_id == user.pk and seek.match is not None:
                return seek.match
            raise refuse("seek_taken")
        if seek.status == SeekStatus.CANCELLED:
            raise refuse("seek_gone")
        if seek.status == SeekStatus.EXPIRED or seek.expires_at <= now:
            raise refuse("seek_expired")
        if seek.rated and user.is_guest:
            raise refuse("guest_rated")
        if (why := range_refusal(seek, user, shown_rating(user))) is not None:
            raise refuse(why[0], **why[1])
        lock_users(user, seek.creator)
        Seek.objects.filter(creator=user, status=SeekStatus.OPEN).update(status=SeekStatus.CANCELLED)
        busy.check_free(user=user, rated=seek.rated)
        if seek.rated and game_services.active_rated_match_id(user_id=seek.creator_id) is not None:
            raise refuse("seek_creator_busy")
        busy.check_pair(user=user, other=seek.creator, rated=seek.rated)
        match = game_services.match_create_seated(
            player0=seek.creator, player1=user, rules_preset=seek.preset, target=seek.target,
            turn_timer=seek.turn_timer_seconds, rated=seek.rated,
        )
        seek.status = SeekStatus.ACCEPTED
        seek.accepted_by = user
        seek.match = match
        seek.save(update_fields=["status", "accepted_by", "match"])
        url = reverse("games:table", args=[match.pk])
        send_on_commit([*challenge_push.lobby_changed(),
                                       *challenge_push.go_messages(seek.creator_id, url)])
    return match


ACCEPTED_RECENTLY_SECONDS = 30.0
"""A lobby socket that opens this soon after its user's seek was accepted is sent there (``go``): the
creator's page may have been reconnecting (or reloading) when the accept's ``go`` was sent."""


def recently_accepted_match_id(*, user: User, now: datetime | None = None) -> int | None:
    """The active match started from ``user``'s seek within :data:`ACCEPTED_RECENTLY_SECONDS`, or None."""
    since = (now or timezone.now()) - timedelta(seconds=ACCEPTED_RECENTLY_SECONDS)
    return (Seek.objects.filter(creator=user, status=SeekStatus.ACCEPTED, match__status="active",
                                match__started_at__gte=since)
            .order_by("-pk").values_list("match_id", flat=True).first())


def seeks_sweep(*, now: datetime | None = None, grace_seconds: float = 0.0,
                gone: set[int] | None = None) -> int:
    """End the open seeks past their ``expires_at`` by more than ``grace_seconds`` (``expired``) and
    those of the creators in ``gone`` made more than :func:`leave_seconds` ago (``cancelled``: their
    lobby sockets are gone; see ``seek_consumers.creators_gone``). Returns how many ended.

    Idempotent and safe to run in several processes at once: each run locks the rows it ends (SKIP
    LOCKED: a row another sweep or an accept holds is left to them) and re-checks them; a second run
    finds nothing to do.
    """
    now = now or timezone.now()
    with transaction.atomic():
        due = list(Seek.objects.select_for_update(skip_locked=True)
                   .filter(status=SeekStatus.OPEN, expires_at__lte=now - timedelta(seconds=grace_seconds))
                   .values_list("pk", flat=True))
        ended = Seek.objects.filter(pk__in=due, status=SeekStatus.OPEN).update(status=SeekStatus.EXPIRED)
        if gone:
            left = list(Seek.objects.select_for_update(skip_locked=True)
                        .filter(status=SeekStatus.OPEN, creator_id__in=gone,
                                created_at__lte=now - timedelta(seconds=leave_seconds()))
                        .values_list("pk", flat=True))
            ended += (Seek.objects.filter(pk__in=left, status=SeekStatus.OPEN)
                      .update(status=SeekStatus.CANCELLED))
        if ended:
            send_on_commit(challenge_push.lobby_changed())
    return ended


def open_creator_ids(*, now: datetime | None = None) -> list[int]:
    """The creators of the open seeks made more than :func:`leave_seconds` ago (candidates for leaving)."""
    now = now or timezone.now()
    return list(Seek.objects.filter(status=SeekStatus.OPEN,
                                    created_at__lte=now - timedelta(seconds=leave_seconds()))
                .values_list("creator_id", flat=True))


def seek_rows(*, viewer: Any, now: datetime | None = None) -> list[dict[str, Any]]:
    """The open seeks (at most :data:`LIST_LIMIT`) as ``viewer`` sees them, oldest first.

    Each: ``{"id", "creator", "creator_url" (None for a guest), "creator_rating" (shown; None for a
    guest), "preset", "target", "turn_timer" (s or None), "rated", "rating_min", "rating_max", "range"
    (text), "expires_at" (ISO 8601), "mine", "refusal": None or {"code", "message"}}``; ``refusal`` says
    why ``viewer`` may not accept it (the row is shown greyed). Two queries (the seeks with their
    creators; the viewer's rating)."""
    now = now or timezone.now()
    seeks = list(Seek.objects.filter(status=SeekStatus.OPEN, expires_at__gt=now).select_related("creator")
                 .order_by("created_at", "pk")[:LIST_LIMIT])
    signed_in = bool(getattr(viewer, "is_authenticated", False)) and not getattr(viewer, "is_bot", False)
    viewer_rating = shown_rating(viewer) if signed_in and seeks else None
    rows = []
    for seek in seeks:
        mine = signed_in and seek.creator_id == viewer.pk
        why: tuple[str, dict[str, Any]] | None = None
        if not mine:
            if not signed_in:
                why = ("not_authenticated", {})
            elif seek.rated and viewer.is_guest:
                why = ("guest_rated", {})
            else:
                why = range_refusal(seek, viewer, viewer_rating)
        creator = seek.creator
        rows.append({
            "id": seek.pk, "creator": creator.public_name,
            "creator_url": None if creator.is_guest else reverse("ratings:profile", args=[creator.username]),
            "creator_rating": None if creator.is_guest else shown(seek.creator_rating),
            "preset": seek.preset, "target": seek.target, "turn_timer": seek.turn_timer_seconds,
            "rated": seek.rated, "rating_min": seek.rating_min, "rating_max": seek.rating_max,
            "range": range_text(seek.rating_min, seek.rating_max), "expires_at": seek.expires_at.isoformat(),
            "mine": mine,
            "refusal": None if why is None else {"code": why[0], "message": text(why[0], **why[1])},
        })
    return rows
