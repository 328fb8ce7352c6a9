"""The end of a match, in one place (in the spirit of lichess's ``Finisher``): every write that ends a
match ends it through :func:`match_finish`, inside the transaction that stores the end.

The ways a match ends, and the write that calls it:

- the engine's state is over (``play.refresh_match``): the last hand won (``result_reason`` ``target``
  or the engine's reason), a resignation (``resign``), a loss on time at the third automatic move in a
  row (``timeout``, ``server_moves.match_expire_turn``), a claim against a player who left (``left``,
  ``abandon.match_claim``): status ``finished``, the engine's winner;
- nobody plays it any more (``abandon.end_abandoned``): abandoned by its player or idle, claimed
  (casual), its players gone, both players away at the turn timer: status ``aborted``, ``result_reason``
  ``abandoned``, no winner;
- a resignation before both players moved in a rated match, or of a table still waiting
  (``play.match_resign``): status ``aborted`` (``result_reason`` ``aborted`` / none), no winner.

:func:`match_finish` records the result on the locked row (the caller saves it), sends
``games.signals.match_left`` for the seats that left (inside the transaction: playbans commit or roll
back with the end), and registers ``games.signals.match_finished`` for after the commit when the match
is ``finished`` (ratings, tournaments and analyses listen to it; never for an aborted match). It refuses
a match that has already ended, so a second end (a resignation resent, a timer that fires after the
resignation, two writes racing under the row lock) changes nothing and sends nothing: exactly once.

One write has no transaction of its own: the player's move in ONE statement (``play._write_one``),
which is its own commit. It does the two halves around its statement: :func:`record_result` before,
:func:`announce_finished` once the statement has stored the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games import bot_events, presence
from games.models import Match, MatchStatus
from games.services.errors import GameError
from games.signals import match_finished, match_left


@dataclass(frozen=True, slots=True)
class Left:
    """Seats that left the match that ends (``games.signals.match_left``'s arguments): ``seats`` (0/1),
    ``why`` (``"abandoned"``: gone from the table, claimed or ended by the server; ``"timeouts"``: the
    turn timer played their turns), ``at`` (an aware datetime; None: the clock when the end is stored)."""

    seats: Sequence[int]
    why: str
    at: datetime | None = None


def match_finish(
    match: Match, *, status: str, winner: int | None = None, reason: str | None = None,
    left: Left | None = None,
) -> None:
    """End ``match`` (its row locked by the caller's transaction, which saves it afterwards): record the
    result (:func:`record_result`), tell ``match_left``'s receivers about ``left`` when the match is
    between people, and after the commit send ``match_finished`` once if the match is ``finished``.

    :param status: ``MatchStatus.FINISHED`` (a result) or ``MatchStatus.ABORTED`` (none).
    :param winner: the winning seat (0/1) of a finished match; None for an aborted one.
    :param reason: the ``result_reason`` (``ResultReason``); None keeps the row's (a waiting table's
        abort has none).
    :raises GameError: ``match_over``: the match had already ended; nothing changed or sent.
    """
    record_result(match, status=status, winner=winner, reason=reason)
    if left is not None and presence.between_people(match):
        match_left.send(sender=Match, match=match, seats=list(left.seats), why=left.why,
                        now=left.at or timezone.now())
    if match.status == MatchStatus.FINISHED:
        match_id, rated = match.pk, match.rated
        transaction.on_commit(lambda: _send_finished(match_id, rated))
    bot_events.announce(match, "finish")  # finished or aborted: a BOT account's event stream, matchFinish


def record_result(match: Match, *, status: str, winner: int | None = None, reason: str | None = None) -> None:
    """The result on ``match``'s fields (unsaved): ``status``, ``winner``, ``result_reason`` (when
    ``reason`` is given), ``finished_at`` now, and no turn deadline or server move any more. Only the
    first half of :func:`match_finish`: the one-statement write's (module docstring).

    :raises GameError: ``match_over``: ``match`` is neither active nor a waiting table.
    """
    if match.status not in (MatchStatus.ACTIVE, MatchStatus.WAITING):
        raise GameError("match_over", "the match is over")
    if status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        raise ValueError(f"a match ends finished or aborted, not {status!r}")
    match.status = status
    match.winner = winner
    if reason is not None:
        match.result_reason = reason
    match.finished_at = timezone.now()
    match.turn_deadline = None
    match.server_move_at = None


def announce_finished(match: Match) -> None:
    """Send ``match_finished`` for ``match`` now (its end committed): the one-statement write's second
    half (module docstring); every other write has :func:`match_finish` register it on commit. Its BOT
    accounts' event streams are told too (``games.bot_events``)."""
    _send_finished(match.pk, match.rated)
    bot_events.announce(match, "finish")


def _send_finished(match_id: int, rated: bool) -> None:
    match_finished.send(sender=Match, match_id=match_id, rated=rated)
