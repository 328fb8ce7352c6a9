"""Rematch after a friend match (docs/protocol.md "Rematch"): one player offers, over the finished
match's socket; the other accepts or declines; the offerer may cancel. Accepting creates exactly one new
match between the same two players with the same settings, its first dealer alternated.

Writes lock the finished match's row (``services.locked_match``) and tell the match's socket group after
the commit (a card-free ``rematch.update``: each socket then reads its own seat's ``rematch`` message from
:func:`rematch_payload`). The new match is guarded twice: the row lock, and ``Match.rematch_of`` being
one-to-one (a second insert fails and the first's match is returned), so two accepts, a double click or
two racing servers create one match. At most one offer per match is open (a partial unique constraint).

Friend matches only: a match created by ``services.table_create`` (an invitation link) or a rematch
of one, between two people. Bot matches have "Play again" instead; tournament matches (seated by
``services.match_create_seated``) never offer a rematch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from engine.rules import RuleSet
from games import ratelimit
from games.models import Match, MatchStatus, RematchOffer, RematchStatus
from games.services import (
    GameError,
    check_not_bot_account,
    check_person,
    check_rated_free,
    locked_match,
    start_match,
)
from push.groups import match_group
from push.send import send_on_commit

log = logging.getLogger(__name__)

MAX_OFFERS_PER_SEAT = 3
"""Offers one player may make after one match (an offer cancelled counts): an offer is a message on the
opponent's screen, so it cannot be repeated without end."""


@dataclass(frozen=True, slots=True)
class RematchDone:
    """Outcome of a rematch message: ``changed`` False when it changed nothing (a repeat: the offer is
    already open, the rematch already made); ``seq`` the finished match's ``last_seq`` (for the ``ack``);
    ``new_match_id`` the rematch once it exists."""

    changed: bool
    seq: int
    new_match_id: int | None = None


def is_friend_match(match: Match) -> bool:
    """Whether ``match`` is a friend match between two people (an invitation link's table, or a rematch
    of one): the only kind that offers a rematch."""
    return (
        (match.invite_token is not None or match.rematch_of_id is not None)
        and match.player1_id is not None and not match.bot_seats and match.first_dealer is not None
    )


def _check(match: Match, user: User) -> int:
    """The seat of ``user`` in ``match``, which may have a rematch now.

    :raises GameError: ``not_seated``, ``bot_api_only`` (``user`` is a BOT account: it plays only
        through the bot API), ``rematch_unavailable`` (not a friend match between two people, the
        opponent is a BOT account, or the opponent's account is closed), ``match_not_over`` (still
        waiting or in play).
    """
    seat = match.seat_of(user.pk)
    if seat is None:
        raise GameError("not_seated", "you are not a player of this match")
    check_not_bot_account(user)
    if not is_friend_match(match):
        raise GameError("rematch_unavailable", "only a friend match between two people has a rematch"
                        " (against a bot: Play again; a tournament's pairings are its own)")
    if match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        raise GameError("match_not_over", "the match is still being played: a rematch is offered at its end")
    opponent = match.player1 if seat == 0 else match.player0
    if opponent is None or not opponent.is_active:
        raise GameError("rematch_unavailable", "your opponent's account is closed")
    if opponent.bot_account:
        raise GameError("rematch_unavailable",
                        "a BOT account plays only through the bot API: challenge it again")
    return seat


def _offers(match: Match) -> list[RematchOffer]:
    return list(RematchOffer.objects.filter(match_id=match.pk).order_by("id"))


def _open(offers: list[RematchOffer]) -> RematchOffer | None:
    return next((o for o in offers if o.status == RematchStatus.OPEN), None)


def _existing(match: Match) -> int | None:
    pk = Match.objects.filter(rematch_of_id=match.pk).values_list("pk", flat=True).first()
    return None if pk is None else int(pk)


def _answer(offer: RematchOffer, status: str) -> None:
    offer.status = status
    offer.answered_at = timezone.now()
    offer.save(update_fields=["status", "answered_at"])


def rematch_offer(*, match_id: int, user: User) -> RematchDone:
    """``user`` offers the opponent a rematch of the finished friend match ``match_id``. Their own open
    offer already there, or the rematch already made: nothing changes. The opponent's open offer: this
    accepts it (both want it).

    :raises GameError: ``no_such_match``, ``not_seated``, ``rematch_unavailable``, ``match_not_over``,
        ``rematch_declined`` (the opponent declined this player's offer: no new one after this match),
        ``rematch_limit`` (:data:`MAX_OFFERS_PER_SEAT` offers made), ``opponent_left`` (accepting the
        opponent's offer while they are away: see :func:`_accept`).
    """
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _check(match, user)
        offers = _offers(match)  # before the rematch: see rematch_accept
        current = _open(offers)
        new = _existing(match)
        if new is not None:
            return RematchDone(False, match.last_seq, new)
        if current is not None and current.seat == seat:
            return RematchDone(False, match.last_seq)
        if current is not None:
            return _accept(match, current, user)
        mine = [o for o in offers if o.seat == seat]
        if any(o.status == RematchStatus.DECLINED for o in mine):
            raise GameError("rematch_declined", "your opponent declined your rematch offer")
        if len(mine) >= MAX_OFFERS_PER_SEAT:
            raise GameError("rematch_limit", f"at most {MAX_OFFERS_PER_SEAT} rematch offers per match")
        _check_rated(match, user)
        RematchOffer.objects.create(match=match, seat=seat)
        _notify_on_commit(match.pk)
        return RematchDone(True, match.last_seq)


def rematch_cancel(*, match_id: int, user: User) -> RematchDone:
    """``user`` takes back their open rematch offer.

    :raises GameError: as :func:`rematch_offer`, and ``no_rematch_offer`` (no open offer of theirs:
        never made, already answered, or the rematch made).
    """
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _check(match, user)
        current = _open(_offers(match))
        if current is None or current.seat != seat:
            raise GameError("no_rematch_offer", "you have no open rematch offer to cancel")
        _answer(current, RematchStatus.CANCELLED)
        _notify_on_commit(match.pk)
        return RematchDone(True, match.last_seq)


def rematch_decline(*, match_id: int, user: User) -> RematchDone:
    """``user`` declines the opponent's open rematch offer.

    :raises GameError: as :func:`rematch_offer`, and ``no_rematch_offer`` (no open offer from the
        opponent).
    """
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _check(match, user)
        current = _open(_offers(match))
        if current is None or current.seat == seat:
            raise GameError("no_rematch_offer", "there is no rematch offer from your opponent to decline")
        _answer(current, RematchStatus.DECLINED)
        _notify_on_commit(match.pk)
        return RematchDone(True, match.last_seq)


def rematch_accept(*, match_id: int, user: User) -> RematchDone:
    """``user`` accepts the opponent's open rematch offer: the new match is created and dealt (see
    :func:`_create`). Idempotent: once the rematch exists, every accept returns it unchanged.

    :raises GameError: as :func:`rematch_offer`, and ``no_rematch_offer`` (no open offer from the
        opponent: your own cannot be accepted by you), ``opponent_left`` (the offerer has left the
        table: see :func:`_accept`).
    """
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _check(match, user)
        # The offers are read before the rematch: a racing accept marks its offer accepted and creates
        # the match in one commit, so (each statement seeing what was committed before it, as in
        # PostgreSQL's read committed) an offer seen answered means the rematch is seen below.
        current = _open(_offers(match))
        new = _existing(match)
        if new is not None:
            return RematchDone(False, match.last_seq, new)
        if current is None or current.seat == seat:
            raise GameError("no_rematch_offer", "there is no rematch offer from your opponent to accept")
        return _accept(match, current, user)


def is_here(match: Match, seat: int) -> bool | None:
    """Whether the player at ``seat`` has the table of ``match`` open (a socket to it, counted by
    ``games.ratelimit``'s slots in the shared cache), or None when the cache cannot tell."""
    user_id = match.player_id(seat)
    count = None if user_id is None else ratelimit.socket_count(match_id=match.pk, user_id=user_id)
    return None if count is None else count > 0


def _check_rated(match: Match, user: User) -> None:
    """A rated rematch of ``match`` (locked) asked or accepted by ``user``: the fair-play limits of any
    rated match between two people (``services.check_rated_free``: a marked account, another active
    rated match of either, the pair's daily cap), checked under both players' row locks.

    :raises GameError: ``RatedRefused`` / ``MatchInProgress`` codes (nothing changed; the players may
        open a casual table instead: a rematch keeps its match's rated flag)."""
    if not _was_rated(match):
        return
    opponent = match.player1 if match.player0_id == user.pk else match.player0
    check_rated_free(user=user, opponent=opponent)


def _was_rated(match: Match) -> bool:
    """Whether ``match`` was played as rated: still rated, or rated until an early resignation made it
    unrated (``Match.unrated_why``): its rematch is rated again (and so checked as one)."""
    return match.rated or bool(match.unrated_why)


def _accept(match: Match, offer: RematchOffer, user: User) -> RematchDone:
    """Create the rematch of ``match`` (locked) and mark ``offer`` accepted, ``user`` accepting; inside
    the caller's transaction. A lost race on the one-to-one ``rematch_of`` returns the winner's match.

    The offerer must still be at the table: the new match deals at once, and with a turn timer an
    absent player's clock would run (their offer stays open for when they come back).

    :raises GameError: ``opponent_left``; a rated rematch: :func:`_check_rated`'s refusals.
    """
    if is_here(match, offer.seat) is False:
        raise GameError("opponent_left", "your opponent has left the table: the rematch can start when"
                        " they are back (their offer stays open)")
    _check_rated(match, user)
    try:
        with transaction.atomic():
            new = _create(match)
    except IntegrityError:
        existing = _existing(match)
        if existing is None:
            raise
        return RematchDone(False, match.last_seq, existing)
    _answer(offer, RematchStatus.ACCEPTED)
    _notify_on_commit(match.pk)
    return RematchDone(True, match.last_seq, new.pk)


def next_first_dealer(match: Match) -> int | None:
    """Who deals hand 1 of the rematch of ``match``: the seat that did not deal its hand 1 (they
    alternate), or None when the rules cut for the deal (``first_dealer`` ``cut``: a new cut decides)."""
    if RuleSet.from_dict(match.rules).first_dealer == "cut" or match.first_dealer is None:
        return None
    return 1 - match.first_dealer


def _create(match: Match) -> Match:
    """The rematch of ``match``: the same two players in the same seats, the same rules (preset and
    target), turn timer and rated flag (:func:`_was_rated`; a match with a guest is never rated, so
    neither is its rematch), hand 1 dealt at once by :func:`next_first_dealer`."""
    players = (match.player0, match.player1)
    for player in players:
        check_person(player)  # type: ignore[arg-type]
    new = Match.objects.create(
        rules=dict(match.rules), preset=match.preset, player0=match.player0, player1=match.player1,
        status=MatchStatus.ACTIVE, turn_timer_seconds=match.turn_timer_seconds, scores=[0, 0],
        timeout_strikes=[0, 0], rated=_was_rated(match) and not any(p.is_guest for p in players if p),
        bot_seats=[], rematch_of=match,
    )
    dealer = next_first_dealer(match)
    start_match(new, first_dealer=0 if dealer is None else dealer)  # schedules its timer, if any
    new.save()
    return new


def rematch_payload(*, match: Match, seat: int, opponent_present: bool | None) -> dict[str, Any] | None:
    """The ``rematch`` message for the player at ``seat`` of the finished friend ``match`` (players
    loaded), or None when it has no rematch (not a friend match, not over, a BOT account seated: it
    plays only through the bot API). Shape (docs/protocol.md
    "Rematch")::

        {"type": "rematch", "match_id", "offer": null | {"by": seat, "status": "open" | "cancelled" |
         "declined" | "accepted"} (the latest offer), "can_offer": bool, "offers_left": int,
         "opponent_present": bool | null, "first_dealer": seat | null, "new_match": null | {"id", "url"}}
    """
    if not is_friend_match(match) or match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        return None
    if any(p is not None and p.bot_account for p in (match.player0, match.player1)):
        return None
    offers = _offers(match)
    latest = offers[-1] if offers else None
    new = _existing(match)
    mine = [o for o in offers if o.seat == seat]
    current = _open(offers)
    left = max(0, MAX_OFFERS_PER_SEAT - len(mine))
    theirs = current is not None and current.seat != seat
    declined = any(o.status == RematchStatus.DECLINED for o in mine)
    opponent = match.player1 if seat == 0 else match.player0
    can_offer = new is None and opponent is not None and opponent.is_active and (
        (theirs and opponent_present is not False) or (current is None and not declined and left > 0)
    )
    return {
        "type": "rematch",
        "match_id": match.pk,
        "offer": None if latest is None else {"by": latest.seat, "status": latest.status},
        "can_offer": can_offer,
        "offers_left": left,
        "opponent_present": opponent_present,
        "first_dealer": next_first_dealer(match),
        "new_match": None if new is None else {"id": new, "url": reverse("games:table", args=[new])},
    }


def _notify_on_commit(match_id: int) -> None:
    """After the commit: a card-free ``rematch.update`` to the match's sockets (``match_<id>``); each
    then sends its seat its own ``rematch`` message (``push.send``; a player's table reads the offer
    again on its next connect)."""
    send_on_commit([(match_group(match_id), {"type": "rematch.update"})])
