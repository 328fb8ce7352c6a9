"""Signals of the games app: how ``games`` tells the apps above it what happened, and asks them what only
they know, without importing them (docs/architecture.md "Layers"). Each receiver is connected in its
app's ``AppConfig.ready``.

Announcements. Both are sent by ``games.services.finish.match_finish``, the one place a match ends
(every way it ends goes through it, exactly once per match).

``match_finished``: sent AFTER the commit that finished a match (status ``finished``, never for an
aborted one), once, with ``match_id`` (int) and ``rated`` (bool). Receivers must be quick and must not
raise: ``ratings`` enqueues its rating task here; tournaments may advance a round.

``match_left``: see below (sent inside the transaction, for playbans).

``turn_expired``: see below (sent inside the transaction of each turn the timer played, for the bot
API's pauses).

Questions (sent with ``Signal.send``, each receiver's return value is its answer; read with
:func:`answers`): ``outsider_may_see`` (``replays`` answers), ``private_match_asked`` (``tournaments``
answers) and ``seat_rating_asked`` (``ratings`` answers), below.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

match_finished = Signal()

match_left = Signal()
"""Sent INSIDE the transaction that ends a match between people because players left it, so that what
receivers write commits or rolls back with the end (``lobby`` records its playbans here; docs/lobby.md
"Playbans"). Arguments: ``match`` (the locked :class:`games.models.Match`, already ended: ``rated``,
``status``, ``result_reason`` set), ``seats`` (list of the seats, 0/1, that left), ``why``
(``"abandoned"``: gone from the table, the opponent claimed or the server ended it; ``"timeouts"``: let
the turn timer play ``TIMEOUT_STRIKES_TO_LOSE`` turns in a row) and ``now`` (the aware datetime of the
end). A receiver that raises rolls the end back: keep them small and well tested."""

turn_expired = Signal()
"""Sent INSIDE the transaction in which the turn timer acted for a late seat
(``games.services.match_expire_turn``): its automatic move, the loss on time at the
``TIMEOUT_STRIKES_TO_LOSE``-th in a row, or the end of a match both seats let run out. Whatever receivers
write commits with the timer's move or not at all; the timer's move is idempotent (its seq
compare-and-set), so a turn is announced once. Arguments: ``match`` (the locked
:class:`games.models.Match`, its events stored), ``seat`` (0/1, the late seat), ``user_id`` (that seat's
player, None for an empty seat), ``outcome`` (``"auto_move"``, ``"lost_on_time"`` or ``"both_away"``) and
``now`` (an aware datetime). ``botapi.pauses`` counts a BOT account's timeouts here (docs/bot-api.md "Fair
limits"). A receiver that raises rolls the timer's move back: keep them small and well tested."""

outsider_may_see = Signal()
"""Asked by ``games.selectors.may_see`` when ``user`` (maybe anonymous) is not a player of ``match``: may
they know that the match exists? Arguments: ``match`` (:class:`games.models.Match`), ``user`` and
``session`` (the request's or socket scope's session, or None). A
receiver answers True or False; ``replays`` does (a public match, or one whose link they hold:
``replays.selectors.may_see``). No receiver, or none answering True: only its players see the match."""

private_match_asked = Signal()
"""Asked by ``replays.selectors.may_see`` about a match played for a private event
(``Match.private_event``) when ``user`` (maybe anonymous) is not one of its players: may they see it?
Arguments: ``match`` (:class:`games.models.Match`), ``user`` and ``session`` (the request's or socket
scope's session, or None: a code event's entry code is remembered there). A receiver answers True or
False; ``tournaments`` does (``tournaments.receivers.private_match_asked``: the event's players,
organisers, club members and code holders). No receiver, or none answering True: only its players see
it, whatever its replay's share settings."""

seat_rating_asked = Signal()
"""Asked by the table's socket once a rated match is over (``games.selectors.seat_rating``): the
``rating`` message (docs/protocol.md) of ``user_id`` (int) for ``match_id`` (int). A receiver answers the
message (a dict) or None while the match is not rated yet; ``ratings`` does
(``ratings.selectors.match_rating_get``)."""


def answers(signal: Signal, **kwargs: Any) -> list[Any]:
    """The answers of ``signal``'s receivers to a question (``kwargs``: its arguments), in the order they
    were connected. A receiver that raises propagates its exception, as a direct call would."""
    return [answer for _receiver, answer in signal.send(sender=None, **kwargs)]
