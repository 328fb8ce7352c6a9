"""Ending a match nobody plays: a casual bot match abandoned (by its player, or after
``conf.ABANDON_AFTER`` idle), a claim against an opponent who left the table, and the end of a match
between people whose players are gone (docs/lobby.md "Leaving a match between people").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from games import conf, presence
from games.live import load
from games.models import Match, MatchEvent, MatchStatus, ResultReason, UnratedWhy
from games.services.errors import GameError
from games.services.finish import Left, match_finish
from games.services.play import (
    broadcast_on_commit,
    cache_on_commit,
    check_active,
    locked_match,
    locked_match_or_none,
    refresh_match,
    save_cas,
    store_events,
    store_marker,
    too_early_to_rate,
    unrate,
)
from push.send import Outcome


def end_abandoned(
    match: Match, why: str, *, seat: int | None, msg_id: str = "", extra: dict[str, Any] | None = None,
    left: Left | None = None,
) -> MatchEvent:
    """End ``match`` (locked, active) abandoned (``finish.match_finish``): status ``aborted``,
    ``result_reason`` ``abandoned``, no winner, ``match_left`` for ``left``; an ``abandon`` marker
    ``{"why": why, **extra}`` records it in the log (not an engine event, so the engine log replays to the
    hand as it was left); ``msg_id``: the client message that asked for it (a claim), so a resend is
    recognised. The caller saves the row.

    :raises GameError: ``match_over`` (the match had already ended; the caller's transaction rolls the
        marker back).
    """
    row = MatchEvent.objects.create(match_id=match.pk, seq=match.last_seq + 1, type="abandon",
                                    payload={"why": why, **(extra or {})}, seat=seat,
                                    auto=seat is None, msg_id=msg_id)
    match.last_seq += 1
    match_finish(match, status=MatchStatus.ABORTED, reason=ResultReason.ABANDONED, left=left)
    return row



def match_abandon(*, match_id: int, user: User | None = None) -> bool:
    """End the casual bot match ``match_id`` as abandoned (no winner, never rated).

    With ``user`` (a player ending it from "My matches"): at once. Without (the beat sweep): only when
    its last event is older than :data:`games.conf.ABANDON_AFTER`. Idempotent: returns False and changes
    nothing
    when the sweep finds a recent move, the match is no longer active, or a race was lost.

    :raises GameError: (``user`` given) ``no_such_match``, ``not_seated``, ``match_over`` (not active),
        ``not_casual`` (a friend table or a timed/rated match: resign instead).
    """
    try:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(pk=match_id).first()
            if match is None:
                if user is None:
                    return False
                raise GameError("no_such_match", f"no match {match_id}")
            if user is not None:
                if match.seat_of(user.pk) is None:
                    raise GameError("not_seated", "you are not a player of this match")
                if match.status != MatchStatus.ACTIVE:
                    raise GameError("match_over", "the match is over")
                if not match.is_casual:
                    raise GameError("not_casual", "only a casual match against a bot can be ended: resign")
            elif match.status != MatchStatus.ACTIVE or not match.is_casual:
                return False
            else:
                last = MatchEvent.objects.filter(match_id=match.pk).order_by("-seq").values_list(
                    "created_at", flat=True).first()
                if last is not None and last > timezone.now() - conf.ABANDON_AFTER:
                    return False
            before = match.last_seq
            end_abandoned(match, "player" if user is not None else "idle", seat=match.seat_of(
                user.pk) if user is not None else None)
            save_cas(match, before)
            broadcast_on_commit(match, None)
            return True
    except IntegrityError:
        return False  # another write took this seq first


# --------------------------------------------------------------------------------------------- leaving


@dataclass(frozen=True, slots=True)
class Claimed:
    """Outcome of a claim (:func:`match_claim`): ``outcome`` ``"win"`` (rated: the claimer won) or
    ``"end"`` (casual: ended without a result); ``seq`` of the marker event that recorded it,
    ``last_seq`` of the match after it, ``repeat`` when this message id had already claimed."""

    outcome: str
    seq: int
    last_seq: int
    repeat: bool = False
    broadcast: Outcome | None = field(default=None, compare=False)


def match_claim(*, match_id: int, user: User, msg_id: str = "", now: Any = None) -> Claimed:
    """``user`` claims match ``match_id`` because the opponent has left the table (docs/lobby.md
    "Leaving a match between people"). Checked under the match's row lock, in this order:

    - ``no_such_match``; ``not_seated`` (``user`` holds no seat); a repeated ``msg_id`` of a claim that
      already ended the match is answered with its outcome (``repeat=True``), not applied again;
    - ``not_started`` (a waiting table), ``match_over`` (finished or aborted);
    - ``not_between_people`` (a house bot holds a seat: bots never leave);
    - ``opponent_present``: the opponent's table is open, or the opponent is a BOT account (never gone:
      ``games.presence``);
    - ``claim_too_early``: the opponent has been gone less than ``presence.claim_after()`` (the message
      says how many seconds are left).

    Then a rated match ends with the claimer's win (``result_reason`` ``left``: a ``left`` marker
    ``{"seat": leaver, "gone_seconds": n}`` then the engine's resignation of the leaver, so the log
    replays; rated by the ratings app's exactly-once path after the commit, ``match_finished``; unrated,
    ``unrated_why`` ``early_left``, when a seat had made fewer than ``conf.rated_min_moves()`` moves of
    its own, as an early resignation: docs/fairplay.md "Limits that make farming slow"); a casual
    match ends without a result (status ``aborted``, ``result_reason`` ``abandoned``, an ``abandon``
    marker ``{"why": "left", "seat": leaver, ...}``: not rated). Either way ``match_left`` is sent for
    the leaver inside the transaction (``lobby`` records its playban when the match is rated).

    :param now: the clock (an aware datetime; tests inject it), default ``timezone.now()``.
    :raises GameError: one of the codes above; nothing changed.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            match = locked_match(match_id)
            seat = match.seat_of(user.pk)
            if seat is None:
                raise GameError("not_seated", "you are not a player of this match")
            if msg_id:
                done = (MatchEvent.objects.filter(match_id=match.pk, seat=seat, msg_id=msg_id,
                                                  type__in=("left", "abandon")).first())
                if done is not None:
                    outcome = "win" if done.type == "left" else "end"
                    return Claimed(outcome=outcome, seq=done.seq, last_seq=match.last_seq, repeat=True)
            check_active(match)
            if not presence.between_people(match):
                raise GameError("not_between_people", "only a match between two people can be claimed")
            leaver = 1 - seat
            gone = presence.seats(match, now=now).gone_for(leaver)
            if gone is None:
                raise GameError("opponent_present", "your opponent has the table open")
            wait = presence.claim_after()
            if gone < wait:
                left = int((wait - gone).total_seconds() + 0.999)
                away = int(gone.total_seconds())
                raise GameError("claim_too_early",
                                f"your opponent left {away} s ago: you can claim in {left} s")
            before = match.last_seq
            extra = {"seat": leaver, "gone_seconds": int(gone.total_seconds())}
            if match.rated:
                if too_early_to_rate(match):
                    # the claimer's win stands, unrated: a puppet that leaves after a move or two
                    # transfers nothing (docs/fairplay.md); the leaver's playban still counts it
                    unrate(match, UnratedWhy.EARLY_LEFT)
                live = load(match).clone()
                row = store_marker(match, "left", extra, seat, msg_id=msg_id)
                store_events(match, live, [(e, {}) for e in live.state.resign(leaver)], seat=leaver,
                             auto=True)
                cache_on_commit(match, live)
                refresh_match(match, live, dealt=False, reason=ResultReason.LEFT,
                              left=Left([leaver], "abandoned", now))
                outcome = "win"
            else:
                live = None
                row = end_abandoned(match, "left", seat=seat, msg_id=msg_id, extra=extra,
                                    left=Left([leaver], "abandoned", now))
                outcome = "end"
            save_cas(match, before)
            sent = broadcast_on_commit(match, live)
            return Claimed(outcome=outcome, seq=row.seq, last_seq=match.last_seq, broadcast=sent)
    except IntegrityError:
        raise GameError("stale_seq", "another move was made first: try again") from None


def match_end_absent(*, match_id: int, now: Any = None) -> bool:
    """End match ``match_id`` between people without a result when its players are gone (docs/lobby.md
    "Leaving a match between people"): both seats gone for ``presence.gone_end_after()``, or one seat
    gone for ``presence.one_gone_end_after()``. Status ``aborted``, ``result_reason`` ``abandoned``, an
    ``abandon`` marker ``{"why": "gone", "seats": [...]}``, never rated; ``match_left`` is sent for the
    gone seats (a rated match's playbans). Driven by the sweeps (:func:`match_sweep_absent`).

    Idempotent: returns False and changes nothing when the match is not active, not between people,
    its players are not gone long enough at ``now`` (default ``timezone.now()``), or a race was lost.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            match = locked_match_or_none(match_id)
            if match is None or match.status != MatchStatus.ACTIVE or not presence.between_people(match):
                return False
            where = presence.seats(match, now=now)
            gone = [where.gone_for(seat) for seat in (0, 1)]
            if all(g is not None and g >= presence.gone_end_after() for g in gone):
                leavers = [0, 1]
            else:
                leavers = [seat for seat in (0, 1)
                           if (g := gone[seat]) is not None and g >= presence.one_gone_end_after()]
            if not leavers:
                return False
            before = match.last_seq
            end_abandoned(match, "gone", seat=None, extra={"seats": leavers},
                          left=Left(leavers, "abandoned", now))
            save_cas(match, before)
            broadcast_on_commit(match, None)
            return True
    except IntegrityError:
        return False  # another write took this seq first


def match_absent_ids(*, now: Any = None, grace: timedelta = timedelta(0), limit: int = 1000) -> list[int]:
    """Ids of active matches between people that :func:`match_end_absent` may end at ``now`` (a cheap
    superset: it re-checks each under the lock): started long enough ago, and no seat seen within
    ``presence.gone_end_after()`` (both gone), or fewer than two seats seen within
    ``presence.one_gone_end_after()`` (one gone). ``grace``: how much longer they must have been gone
    (the embedded worker's sweep leaves them to Daphne's first). A match with a BOT account is never
    listed: its seat is never gone (``games.presence``), its turn timer ends a match whose player left."""
    now = (now or timezone.now()) - grace
    both, one = now - presence.gone_end_after(), now - presence.one_gone_end_after()
    people = (Match.objects.filter(status=MatchStatus.ACTIVE, player1__isnull=False, bot_level__isnull=True,
                                   bot_seats=[])
              .exclude(Q(player0__bot_account=True) | Q(player1__bot_account=True))
              .annotate(seen_both=Count("presence", filter=Q(presence__seen_at__gt=both)),
                        seen_one=Count("presence", filter=Q(presence__seen_at__gt=one))))
    due = people.filter(Q(started_at__lte=both, seen_both=0) | Q(started_at__lte=one, seen_one__lt=2))
    return list(due.order_by("pk").values_list("pk", flat=True)[:limit])


def match_sweep_absent(*, now: Any = None, grace: timedelta = timedelta(0)) -> int:
    """End every match of :func:`match_absent_ids` whose players are gone (:func:`match_end_absent`);
    returns how many were ended."""
    return sum(1 for pk in match_absent_ids(now=now, grace=grace) if match_end_absent(match_id=pk, now=now))
