"""Drive a stored match through the services (no WebSocket): both humans play ``wsclient.choose``;
a bot seat is moved with ``match_play_bot_turn``."""

from __future__ import annotations

from typing import Any

from games import selectors, services
from games.models import Match
from tests.games.wsclient import choose


def play_until(
    match_id: int, users: dict[int, Any], *, hands: int | None = None, max_steps: int = 5000
) -> Match:
    """Play until the match is over, or until ``hands`` hands have ended. Returns the fresh match."""
    for step in range(max_steps):
        match = Match.objects.select_related("player0", "player1").get(pk=match_id)
        if match.status != "active":
            return match
        payload = selectors.match_state_payload(match=match, seat=0)
        if hands is not None and payload["match"]["hands_won"] and payload["hand"]["number"] > hands:
            return match
        seat = payload["hand"]["to_act"]
        if seat not in users:
            assert services.match_play_bot_turn(match_id=match_id) is not None
            continue
        mine = selectors.match_state_payload(match=match, seat=seat)["hand"]
        services.match_apply_action(
            match_id=match_id,
            user=users[seat],
            action_text=choose(mine),
            client_seq=match.last_seq,
            msg_id=f"p{step}",
        )
    raise AssertionError("the match did not end")
