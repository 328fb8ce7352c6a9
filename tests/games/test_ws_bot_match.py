"""A whole match against the house bot over the WebSocket (bot moves scheduled by the consumer)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine.match import replay
from engine.rules import RuleSet
from games import services
from games.live import engine_event
from games.models import Match, MatchEvent
from tests.games.wsclient import choose, connect, recv, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


async def play_out(comm: Any, first: dict[str, Any], *, max_messages: int = 3000) -> list[dict[str, Any]]:
    """Play the human seat with :func:`choose` until the match ends; returns every message received."""
    seen = [first]
    msg = first
    acted: set[int] = set()
    counter = 0
    for _ in range(max_messages):
        if msg["type"] == "state":
            if msg["match"]["status"] != "active":
                return seen
            hand = msg["hand"]
            if hand and hand["your_turn"] and msg["seq"] not in acted:
                acted.add(msg["seq"])
                counter += 1
                action = {"type": "action", "action": choose(hand), "seq": msg["seq"], "id": f"m{counter}"}
                await send(comm, action)
        msg = await recv(comm)
        seen.append(msg)
        assert msg["type"] != "error" or msg["code"] == "stale_seq", msg
    raise AssertionError("the match did not end")


async def test_whole_match_against_bot_over_websocket(
    alice: Any, house_bots: Any, seeded_decks: list[int]
) -> None:
    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=3, rules_preset="classic", target=50,
    )
    comm, first = await connect(alice, match.pk)
    try:
        seen = await play_out(comm, first)
    finally:
        await comm.disconnect()
    final = seen[-1]
    m = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert m.status == "finished" and m.result_reason == "target"
    assert final["match"]["status"] == "finished"
    assert final["match"]["scores"] == m.scores
    assert max(m.scores) >= 50 and m.scores[m.winner] == max(m.scores)
    assert final["last_hand"]["result"]["winner"] == m.winner
    # The stored log replays to the same result.
    rows = await database_sync_to_async(list)(MatchEvent.objects.filter(match=m).order_by("seq"))
    assert [r.seq for r in rows] == list(range(1, m.last_seq + 1))
    state = replay(RuleSet.from_dict(m.rules), m.first_dealer, [engine_event(r.payload) for r in rows])
    assert state.is_over and state.winner == m.winner and list(state.final_scores) == m.scores
    # The bot moved from seat 1 only; every human action came with its message id.
    actions = [r for r in rows if r.type == "action"]
    assert {r.seat for r in actions} == {0, 1}
    assert all(r.msg_id for r in actions if r.seat == 0)
    assert all(not r.msg_id for r in actions if r.seat == 1)
