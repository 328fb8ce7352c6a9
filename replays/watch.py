"""Live watching (``/watch/<id>/``, ``ws/watch/<id>/``): the third party's ``watch`` payload and the
spectator count.

The payload is built from ``engine.spectator.spectator_hand`` (what both players have shown) plus
public match data; a hand that has ended is revealed in full, as the table reveals it to both players.
The spectator count is the match's seats in the shared cache (``replays.audience``); players and
spectators get it coalesced, at most about once a second (``spectators`` message).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from engine.spectator import spectator_hand
from games import payloads
from games.live import DealRow, load
from games.models import Match, MatchEvent, MatchStatus
from replays import audience

__all__ = ["spectators_count", "watch_payload"]

def spectators_count(*, match_id: int) -> int:
    """How many spectator sockets are open on the match (``replays.audience.count``)."""
    return audience.count(match_id=match_id)


def watch_payload(*, match: Match) -> dict[str, Any]:
    """The ``watch`` message: ``{"type": "watch", "seq", "match": {id, status, preset, target,
    players, scores, hands_won, hand_number, winner, result_reason, spectators}, "hand":
    engine.spectator.spectator_hand(...) | null, "last_hand": the latest ended hand in full | null}``.
    No concealed card of a hand in play, never its stock order."""
    live = load(match) if match.first_dealer is not None else None
    state = live.state if live is not None else None
    payload: dict[str, Any] = {
        "type": "watch",
        "seq": match.last_seq,
        "match": {
            "id": match.pk, "status": match.status, "preset": match.preset,
            "target": match.rules.get("target"), "you": None,
            "players": [payloads.player(match.player0, 0), payloads.player(match.player1, 1)],
            "scores": list(match.scores or [0, 0]),
            "hands_won": list(state.hands_won) if state is not None else [0, 0],
            "hand_number": state.hand_number if state is not None else 0,
            "winner": match.winner, "result_reason": match.result_reason or None,
            "spectators": spectators_count(match_id=match.pk),
        },
        "hand": None,
        "last_hand": None,
    }
    if live is None or state is None or state.hand is None:
        return payload
    deals = [DealRow.of(row) for row in MatchEvent.objects.filter(
        Q(match_id=match.pk) & Q(type="deal") & Q(seq__lte=match.last_seq)).order_by("-seq")[:2]]
    current = state.hand
    if current.is_over or state.is_over:
        payload["last_hand"] = payloads.reveal(current, deals[0] if deals else None, state.scores)
    else:
        if match.status == MatchStatus.ACTIVE:
            payload["hand"] = spectator_hand(current, number=state.hand_number)
        if live.previous_hand is not None and len(deals) > 1:
            payload["last_hand"] = payloads.reveal(live.previous_hand, deals[1], state.scores)
    return payload
