"""The lines of the bot API's streams, built from the database (docs/bot-api.md "The event stream", "The
match stream"): the match stream's ``matchFull`` and ``state`` (``S``), the event stream's match (``M``),
match end and challenge (``C``) objects.

What a seat receives is built from that seat's ``PlayerView`` (the engine's, ``MatchState.view``) and
public match data only: the opponent's concealed cards and the stock never enter a line. A hand is
shown whole (``last_hand``, ``H``) only once it has ended, as at the table.

The builders take rows already read (a match with its players) and the engine state at the match's
``last_seq`` (``games.live.load``); the ``*_read`` functions read them (synchronous: the streams call
them in a database thread, ``games.db.db_call``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from botapi.players import player_object
from engine.cards import card_names
from engine.hand import HandState
from games.live import LiveMatch, load
from games.models import Match, MatchStatus
from games.selectors import match_get
from lobby.models import Challenge, ChallengeStatus

PROTOCOL_VERSION = 1
"""The bot API's protocol version (docs/bot-api.md): the first line of a match stream carries it."""

OVER = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""A match in one of these statuses never changes again: its stream ends after its last state."""


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def live_of(match: Match) -> LiveMatch | None:
    """The engine state of ``match`` at its ``last_seq`` (shared: never mutate it), or None before its
    first deal (a table still waiting). One query at most (``games.live.load`` caches it)."""
    return None if match.first_dealer is None else load(match)


def _hand_object(hand: HandState, number: int | None) -> dict[str, Any]:
    """``H``: an ended hand, both hands shown: ``{"number", "result" (``HandResult.to_dict()``, None
    after a resignation mid-hand), "hands" (seat 0's and seat 1's cards, ascending, engine notation)}``."""
    return {
        "number": number,
        "result": None if hand.result is None else hand.result.to_dict(),
        "hands": [card_names(sorted(cards)) for cards in hand.hands],
    }


def _last_hand(match: Match, live: LiveMatch) -> dict[str, Any] | None:
    """``H`` of the hand that ended last, or None. The current hand only once it has ended or the match
    is over by the engine (the target reached, a resignation: everything is public then, as the table
    shows it); an aborted match's hand in play stays hidden. Else the hand before the current one."""
    state = live.state
    current = state.hand
    if current is None:
        return None
    deals = live.deals
    if current.is_over or state.is_over:
        number = deals[0].hand if deals and deals[0].hand is not None else state.hand_number
        return _hand_object(current, number)
    if live.previous_hand is None:
        return None
    number = deals[1].hand if len(deals) > 1 and deals[1].hand is not None else state.hand_number - 1
    return _hand_object(live.previous_hand, number)


def state_line(match: Match, seat: int, live: LiveMatch | None) -> dict[str, Any]:
    """``S``, the match as ``seat`` sees it at ``match.last_seq`` (``live``: the engine state there, None
    before the first deal): ``{"seq", "status", "scores", "hand_number", "to_move" (the seat to act, None
    unless active), "turn_deadline" (ISO 8601 UTC or None), "winner", "result_reason", "view" (the engine's
    ``PlayerView.to_dict()`` of the hand in play, None unless the match is active), "last_hand" (``H`` or
    None)}``. No query."""
    state = live.state if live is not None else None
    active = match.status == MatchStatus.ACTIVE and state is not None and state.hand is not None
    view = None
    if active and state is not None and state.hand is not None and not state.hand.is_over:
        view = state.view(seat).to_dict()
    return {
        "seq": match.last_seq,
        "status": match.status,
        "scores": list(match.scores or [0, 0]),
        "hand_number": state.hand_number if state is not None else 0,
        "to_move": state.current_player if active and state is not None else None,
        "turn_deadline": _iso(match.turn_deadline) if match.status == MatchStatus.ACTIVE else None,
        "winner": match.winner,
        "result_reason": match.result_reason or None,
        "view": view,
        "last_hand": None if live is None else _last_hand(match, live),
    }


def match_full(match: Match, seat: int, live: LiveMatch | None = None) -> dict[str, Any]:
    """The match stream's first line: ``{"type": "matchFull", "v", "id", "seat", "players" ([P, P]),
    "rated", "target", "turn_timer" (seconds or None), "rules" (``RuleSet.to_dict()``), "state" (S)}``.
    ``live``: the engine state at ``match.last_seq`` when the caller holds it, else it is loaded. One
    query per member seated (their rating), plus the engine state's when it is not cached."""
    if live is None:
        live = live_of(match)
    return {
        "type": "matchFull",
        "v": PROTOCOL_VERSION,
        "id": match.pk,
        "seat": seat,
        "players": [player_object(match.player0), player_object(match.player1)],
        "rated": match.rated,
        "target": match.rules.get("target"),
        "turn_timer": match.turn_timer_seconds,
        "rules": dict(match.rules),
        "state": state_line(match, seat, live),
    }


def match_object(match: Match, seat: int) -> dict[str, Any]:
    """``M``: ``{"id", "seat", "opponent" (P), "rated", "target", "turn_timer"}`` (players loaded)."""
    return {
        "id": match.pk,
        "seat": seat,
        "opponent": player_object(match.player1 if seat == 0 else match.player0),
        "rated": match.rated,
        "target": match.rules.get("target"),
        "turn_timer": match.turn_timer_seconds,
    }


def finish_object(match: Match, seat: int) -> dict[str, Any]:
    """The event stream's ``matchFinish`` match: ``{"id", "seat", "status", "winner", "result_reason",
    "scores"}``."""
    return {
        "id": match.pk,
        "seat": seat,
        "status": match.status,
        "winner": match.winner,
        "result_reason": match.result_reason or None,
        "scores": list(match.scores or [0, 0]),
    }


def challenge_object(challenge: Challenge, user_id: int) -> dict[str, Any]:
    """``C``, a challenge as the account ``user_id`` (one of its two players) sees it: ``{"id",
    "direction" ("in": made to it, "out": made by it), "challenger" (P), "challenged" (P), "preset",
    "target", "turn_timer", "rated", "expires_at" (ISO 8601 UTC)}`` (players loaded)."""
    return {
        "id": challenge.pk,
        "direction": "out" if challenge.challenger_id == user_id else "in",
        "challenger": player_object(challenge.challenger),
        "challenged": player_object(challenge.challenged),
        "preset": challenge.preset,
        "target": challenge.target,
        "turn_timer": challenge.turn_timer_seconds,
        "rated": challenge.rated,
        "expires_at": _iso(challenge.expires_at),
    }


# --- reads (synchronous: a database thread) ------------------------------------------------------------


def seated_match_read(match_id: int, user_id: int) -> tuple[Match | None, int | None]:
    """(the match with its players or None, the seat of ``user_id`` in it or None). One query."""
    match = match_get(match_id=match_id)
    return match, None if match is None else match.seat_of(user_id)


def state_read(match_id: int, seat: int, after: int) -> tuple[dict[str, Any], bool] | None:
    """(``S`` of match ``match_id`` for ``seat`` now, whether the match is over), or None when its
    ``last_seq`` is not past ``after`` (nothing new; one query)."""
    match = match_get(match_id=match_id)
    if match is None or match.last_seq <= after:
        return None
    return state_line(match, seat, live_of(match)), match.status in OVER


def full_read(match_id: int, seat: int) -> tuple[dict[str, Any], bool] | None:
    """(``matchFull`` of match ``match_id`` for ``seat`` now, whether the match is over), or None when
    the match is gone."""
    match = match_get(match_id=match_id)
    if match is None:
        return None
    return match_full(match, seat), match.status in OVER


def active_matches_read(user_id: int) -> list[Match]:
    """The active matches ``user_id`` is seated in, oldest first, with their players."""
    return list(Match.objects.select_related("player0", "player1")
                .filter(Q(player0_id=user_id) | Q(player1_id=user_id), status=MatchStatus.ACTIVE)
                .order_by("pk"))


def open_challenges_read(user_id: int, now: datetime) -> list[Challenge]:
    """The open challenges made to or by ``user_id`` that have not expired at ``now``, oldest first."""
    return list(Challenge.objects.select_related("challenger", "challenged")
                .filter(Q(challenged_id=user_id) | Q(challenger_id=user_id), status=ChallengeStatus.OPEN,
                        expires_at__gt=now)
                .order_by("created_at", "pk"))


def challenges_read(ids: list[int], user_id: int) -> dict[int, Challenge]:
    """The challenges ``ids`` made to or by ``user_id`` (others are left out), by id."""
    rows = (Challenge.objects.select_related("challenger", "challenged")
            .filter(Q(challenged_id=user_id) | Q(challenger_id=user_id), pk__in=ids))
    return {c.pk: c for c in rows}


def user_match_read(match_id: int, user_id: int) -> Match | None:
    """Match ``match_id`` with its players if ``user_id`` is seated in it and it has started, else None."""
    match = match_get(match_id=match_id)
    if match is None or match.seat_of(user_id) is None or match.first_dealer is None:
        return None
    return match
