"""Two clients play whole friend matches over the WebSocket; no message sent to a player while a hand is
in play names any of the opponent's concealed cards or any stock card (every payload inspected, many
seeded hands)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine.events import DealEvent
from engine.match import MatchState, replay
from engine.rules import RuleSet
from games import services
from games.live import LiveMatch, engine_event, rebuild
from games.models import Match, MatchEvent
from tests.games.play import play_until
from tests.games.wsclient import connect, due_move, recv, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


async def play_two(
    comms: dict[int, Any], firsts: dict[int, dict[str, Any]]
) -> dict[int, list[dict[str, Any]]]:
    """Both seats play :func:`choose` until the match ends; returns every message each seat received."""
    seen: dict[int, list[dict[str, Any]]] = {0: [firsts[0]], 1: [firsts[1]]}
    latest = dict(firsts)
    acted: set[tuple[int, int]] = set()
    counter = 0
    for _ in range(20_000):
        if all(latest[s]["match"]["status"] == "finished" for s in (0, 1)):
            return seen
        for seat in (0, 1):
            move = due_move(seat, latest[seat], acted)
            if move is not None:
                counter += 1
                await send(comms[seat], {**move, "id": f"s{seat}-{counter}"})
            while not await comms[seat].receive_nothing(timeout=0.002):
                msg = await recv(comms[seat])
                seen[seat].append(msg)
                assert msg["type"] in ("state", "ack", "rematch"), msg  # rematch: at the end
                if msg["type"] == "state":
                    latest[seat] = msg
    raise AssertionError("the match did not end")


def secrets_by_seq(match: Match, rows: list[MatchEvent]) -> dict[int, dict[int, set[str]]]:
    """seq -> seat -> names of the cards that seat must not see (opponent's concealed cards and the
    stock) while a hand is in play after that many events."""
    from engine.cards import card_name

    state = MatchState(RuleSet.from_dict(match.rules), match.first_dealer)
    out: dict[int, dict[int, set[str]]] = {}
    for row in rows:
        if row.type in ("deal", "action", "resign"):
            event = engine_event(row.payload)
            if isinstance(event, DealEvent):
                state.deal(list(event.deck))
            elif row.type == "action":
                state.apply(event.action, event.seat)  # type: ignore[union-attr]
            else:
                state.resign(event.seat)  # type: ignore[union-attr]
        hand = state.hand
        if hand is None or hand.is_over or state.is_over:
            continue
        stock = {card_name(c) for c in hand.stock}
        out[row.seq] = {
            seat: {card_name(c) for c in hand.hands[1 - seat] if c not in hand.known[1 - seat]} | stock
            for seat in (0, 1)
        }
    return out


def strings(value: Any) -> list[str]:
    """Every string (values and keys) inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


async def _play_match(alice: Any, bob: Any, preset: str, target: int) -> tuple[Match, dict[int, list[Any]]]:
    table = await database_sync_to_async(services.table_create)(
        user=alice,
        rules_preset=preset,
        target=target,
        turn_timer=None,
    )
    comms: dict[int, Any] = {}
    firsts: dict[int, Any] = {}
    try:
        comms[0], waiting = await connect(alice, table.pk)
        assert waiting["match"]["status"] == "waiting" and waiting["hand"] is None
        await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
        firsts[0] = await recv(comms[0])  # the join's broadcast: hand 1 dealt
        assert firsts[0]["type"] == "state" and firsts[0]["match"]["status"] == "active"
        comms[1], firsts[1] = await connect(bob, table.pk)
        seen = await play_two(comms, firsts)
    finally:
        for comm in comms.values():
            await comm.disconnect()
    match = await database_sync_to_async(Match.objects.get)(pk=table.pk)
    return match, seen


@pytest.mark.parametrize(("preset", "target"), [("classic", 100), ("table", 100)])
async def test_friend_match_over_websocket_leaks_nothing(
    alice: Any, bob: Any, seeded_decks: list[int], preset: str, target: int
) -> None:
    match, seen = await _play_match(alice, bob, preset, target)
    rows = await database_sync_to_async(list)(MatchEvent.objects.filter(match=match).order_by("seq"))
    assert match.status == "finished" and match.result_reason == "target"
    assert [r.seq for r in rows] == list(range(1, match.last_seq + 1))
    full = replay(RuleSet.from_dict(match.rules), match.first_dealer, [engine_event(r.payload) for r in rows])
    assert full.is_over and full.winner == match.winner and list(full.final_scores) == match.scores
    hands = sum(1 for r in rows if r.type == "deal")
    assert hands == len(seeded_decks) >= 1

    hidden = secrets_by_seq(match, rows)
    checked = 0
    for seat in (0, 1):
        states = [m for m in seen[seat] if m["type"] == "state"]
        assert states[-1]["match"]["winner"] == match.winner
        for msg in seen[seat]:
            if msg["type"] != "state" or msg["hand"] is None:
                continue
            secret = hidden[msg["seq"]][seat]
            assert len(secret) >= 2  # the stock never goes below its floor (2)
            public = {k: v for k, v in msg.items() if k != "last_hand"}
            leaked = {tok for s in strings(public) for tok in s.split()} & secret
            assert not leaked, (seat, msg["seq"], leaked)
            if msg.get("last_hand") is not None:  # the revealed hand is an earlier, finished one
                assert msg["last_hand"]["number"] < msg["hand"]["number"]
            checked += 1
    assert checked > 50


def test_rebuild_equals_engine_replay(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """games.live.rebuild gives the same state as engine.events.replay, and keeps the previous hand."""
    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None)
    match = services.table_join(user=bob, token=table.invite_token)
    play_until(match.pk, {0: alice, 1: bob}, hands=3)
    match.refresh_from_db()
    rows = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    live: LiveMatch = rebuild(match, rows)
    expected = replay(
        RuleSet.from_dict(match.rules), match.first_dealer, [engine_event(r.payload) for r in rows]
    )
    assert live.state == expected
    assert live.previous_hand is not None and live.previous_hand.is_over
